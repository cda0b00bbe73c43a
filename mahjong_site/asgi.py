"""ASGI entry point: `daphne mahjong_site.asgi:application`.

HTTP goes to Django (with static files served by daphne when SERVE_STATIC, default = DEBUG);
websockets go through the auth + allowed-origin checks to games.routing.
"""

import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_site.settings")
# How long a thread may hold the GIL while another waits (Python's default 5 ms). A daphne process
# renders its rooms' seats on pool threads, CPU-bound and several at once: at 5 ms they preempt
# each other and the event loop in turn; at 20 ms a render runs through and its sockets are sent
# sooner (bench/live.py, 1 process, measured when each seat rendered on a thread of its own: 20
# tables p50 58 -> 38 ms, p99 208 -> 162 ms; 30 tables p99 416 -> 351 ms, ~1 ms less CPU per
# move). The loop still takes the GIL whenever a render waits on the database.
sys.setswitchinterval(float(os.environ.get("GIL_SWITCH_INTERVAL", "0.02")))

from django.core.asgi import get_asgi_application  # noqa: E402

# Set Django up (apps, models) before importing anything that touches models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402

# The garbage collector's thresholds (GC_THRESHOLD="gen0,gen1,gen2"; "python": Python's own
# 700,10,10). A daphne process keeps tens of thousands of long-lived objects (snapshots, rendered
# fragments, compiled templates) and makes thousands of short-lived ones per move: at Python's
# thresholds a collection of the older generations walks them all several times a second while
# every socket of the process waits. bench/live.py, 200 tables on 2 processes: p99 278 -> 154 ms,
# the longest wait 508 -> 274 ms, for the same CPU and memory. What is loaded by now (Django, the
# apps, the templates compiled on import) is frozen out of the collections for good.
_gc = os.environ.get("GC_THRESHOLD", "50000,20,100")
if _gc != "python":
    import gc

    gc.freeze()
    gc.set_threshold(*(int(x) for x in _gc.split(",")))
if os.environ.get("GC_PAUSE_LOG"):  # each collection's time, written down (bench/live.py reports them)
    from mahjong_site import gc_pauses

    gc_pauses.record_to(os.environ["GC_PAUSE_LOG"])

http_app = django_asgi_app
if settings.SERVE_STATIC:
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    http_app = ASGIStaticFilesHandler(django_asgi_app)

application = ProtocolTypeRouter(
    {
        "http": http_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
