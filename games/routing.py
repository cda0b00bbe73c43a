"""Websocket URL patterns, mounted by mahjong_site.asgi. Empty until the game table lands."""

websocket_urlpatterns = []
