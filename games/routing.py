"""Websocket URL patterns, mounted by mahjong_site.asgi (behind the auth and origin checks)."""

from django.urls import path

from games.consumers import RoomConsumer

websocket_urlpatterns = [
    path("ws/room/<int:room_id>/", RoomConsumer.as_asgi()),
]
