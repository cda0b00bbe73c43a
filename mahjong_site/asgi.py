"""ASGI entry point: `daphne mahjong_site.asgi:application`.

HTTP goes to Django (with static files served by daphne when SERVE_STATIC, default = DEBUG);
websockets go through the auth + allowed-origin checks to games.routing.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mahjong_site.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

# Set Django up (apps, models) before importing anything that touches models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402

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
