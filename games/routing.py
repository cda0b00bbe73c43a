"""Websocket URL patterns, mounted by mahjong_site.asgi (behind the auth and origin checks)."""

from django.urls import path

from games.consumers import RoomConsumer
from games.watch_consumer import SpectatorConsumer

websocket_urlpatterns = [
    path("ws/room/<int:room_id>/", RoomConsumer.as_asgi()),
    path("ws/room/<int:room_id>/watch/<str:key>/", SpectatorConsumer.as_asgi()),  # 观战: read only
]
