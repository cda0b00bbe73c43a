from django.urls import path

from games import history_views, lobby_views, replay_views, room_views, verify_views, views

app_name = "games"

urlpatterns = [
    path("", views.home, name="home"),
    path("calculator/", views.calculator, name="calculator"),
    path("rules/taizhou/", views.rules_taizhou, name="rules_taizhou"),
    path("rules/wenzhou/", views.rules_wenzhou, name="rules_wenzhou"),
    path("rules/zhuji/", views.rules_zhuji, name="rules_zhuji"),
    path("rules/taizhou-traditional/", views.rules_taizhou_trad, name="rules_taizhou_trad"),
    path("lobby/", lobby_views.lobby, name="lobby"),
    path("practice/", lobby_views.practice, name="practice"),
    path("join/<str:token>/", lobby_views.join, name="join"),
    path("room/<int:room_id>/", room_views.room, name="room"),
    path("room/<int:room_id>/watch/<str:key>/", room_views.watch, name="watch"),
    path("room/<int:room_id>/invite.svg", lobby_views.invite_svg, name="invite_svg"),
    path("replay/<str:token>.json", replay_views.replay_json, name="replay_json"),
    path("replay/<str:token>/", replay_views.replay, name="replay"),
    path("verify/", verify_views.verify, name="verify"),
    path("history/", history_views.history, name="history"),
    path("history/<int:game_id>/", history_views.history_game, name="history_game"),
    path("history/<int:game_id>/hand/<int:number>/replay/", history_views.hand_replay, name="hand_replay"),
    path("history/<int:game_id>/sharing/", history_views.replay_sharing, name="replay_sharing"),
]
