"""daphne on uvloop's event loop: `python -m mahjong_site.serve <daphne's own arguments>`.

daphne runs twisted on an asyncio loop that it makes when `daphne.server` is imported, before the
application is loaded; so the loop's kind has to be chosen here, before daphne is imported, not in
mahjong_site.asgi. uvloop (libuv, in C) does the loop's own work — the socket reads and writes of
twisted, the hand-over of each finished thread-pool call, the channel layer's Redis traffic, the
tasks and futures of every consumer — for less CPU than asyncio's loop in Python (bench/live.py,
issue 17: ~6% less daphne CPU per move and a lower p50 at the same load).

EVENT_LOOP=asyncio keeps Python's own loop (and so does a machine without uvloop).
"""

from __future__ import annotations

import asyncio
import os
import sys


def use_uvloop() -> bool:
    """Make every new asyncio loop a uvloop one, unless EVENT_LOOP=asyncio; True if it did."""
    if os.environ.get("EVENT_LOOP", "uvloop").strip().lower() == "asyncio":
        return False
    try:
        import uvloop
    except ImportError:  # a platform without the wheel: daphne runs on asyncio's loop as before
        return False
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return True


def main(argv=None) -> None:
    use_uvloop()
    from daphne.cli import CommandLineInterface  # imports daphne.server, which makes the loop

    CommandLineInterface().run(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
