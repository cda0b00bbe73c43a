from django.urls import path

from games import lobby_views, room_views, views

app_name = "games"

urlpatterns = [
    path("", views.home, name="home"),
    path("calculator/", views.calculator, name="calculator"),
    path("rules/taizhou/", views.rules_taizhou, name="rules_taizhou"),
    path("lobby/", lobby_views.lobby, name="lobby"),
    path("join/<str:token>/", lobby_views.join, name="join"),
    path("room/<int:room_id>/", room_views.room, name="room"),
    path("room/<int:room_id>/invite.svg", lobby_views.invite_svg, name="invite_svg"),
]
