"""The ASGI application and the channel layer (in-memory by default, Redis with CHANNEL_LAYER=redis)."""

import uuid

from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from channels.layers import get_channel_layer
from channels.routing import ProtocolTypeRouter
from django.conf import settings


def test_application_routes_http_and_websocket():
    from mahjong_site.asgi import application

    assert isinstance(application, ProtocolTypeRouter)
    assert set(application.application_mapping) == {"http", "websocket"}


def test_http_and_static_through_asgi():
    from mahjong_site.asgi import application

    async def fetch(path):
        # Like channels.testing.HttpCommunicator, but accepting body-less chunks (allowed by ASGI,
        # sent by Django's streaming FileResponse for static files).
        scope = {
            "type": "http", "http_version": "1.1", "method": "GET", "scheme": "http", "path": path,
            "raw_path": path.encode(), "query_string": b"", "root_path": "",
            "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
        }
        communicator = ApplicationCommunicator(application, scope)
        await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
        start = await communicator.receive_output(10)
        body = b""
        while True:
            chunk = await communicator.receive_output(10)
            body += chunk.get("body", b"")
            if not chunk.get("more_body", False):
                break
        await communicator.wait(10)
        return {"status": start["status"], "body": body}

    page = async_to_sync(fetch)("/")
    assert page["status"] == 200
    assert "台州麻将" in page["body"].decode()
    script = async_to_sync(fetch)("/static/vendor/htmx.min.js")
    assert script["status"] == 200
    assert b"htmx" in script["body"]


def test_channel_layer_group_round_trip():
    layer = get_channel_layer()
    expected = "memory" if settings.CHANNEL_LAYER == "memory" else "redis"
    assert (type(layer).__name__ == "InMemoryChannelLayer") == (expected == "memory")
    group = f"test-{uuid.uuid4().hex}"

    async def round_trip():
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
        await layer.group_send(group, {"type": "hand.updated", "version": 7})
        message = await layer.receive(channel)
        await layer.group_discard(group, channel)
        return message

    assert async_to_sync(round_trip)() == {"type": "hand.updated", "version": 7}
