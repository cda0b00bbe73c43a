"""Shared body of the score_hands / settle_hands commands."""

import io
import os
import sys

from django.core.management.base import BaseCommand, CommandError

from games.contracts import process_jsonl


def _read_lines(stream):
    try:
        yield from stream
    except OSError as exc:
        raise CommandError(f"cannot read standard input: {exc}") from exc


class JsonLinesCommand(BaseCommand):
    """Read JSON lines on stdin, answer one JSON line each on stdout (UTF-8, same order).

    Exit status 0 whatever the lines hold (bad lines get an error answer); 1 if stdin is unreadable.
    """

    contract_func = None  # set by subclasses: a dict -> dict function that never raises
    stealth_options = ("stdin",)

    def handle(self, *args, **options):
        stdin = options.get("stdin")
        if stdin is None:
            if sys.stdin is None or not hasattr(sys.stdin, "buffer"):
                raise CommandError("cannot read standard input: it is closed")
            # Read bytes as UTF-8 whatever the locale; undecodable bytes become U+FFFD.
            stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")

        if options.get("stdout") is None and getattr(sys.stdout, "buffer", None) is not None:
            sys.stdout.flush()
            out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", line_buffering=True)
            try:
                process_jsonl(type(self).contract_func, _read_lines(stdin), out.write)
                out.flush()
            except BrokenPipeError:
                # The reader went away (e.g. `| head`): stop quietly, as Unix filters do.
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
                return
            finally:
                out.detach()
        else:
            process_jsonl(type(self).contract_func, _read_lines(stdin), lambda text: self.stdout.write(text, ending=""))
