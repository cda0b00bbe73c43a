from django.urls import path

from games import lobby_views, views

app_name = "games"

urlpatterns = [
    path("", views.home, name="home"),
    path("calculator/", views.calculator, name="calculator"),
    path("rules/taizhou/", views.rules_taizhou, name="rules_taizhou"),
    path("lobby/", lobby_views.lobby, name="lobby"),
]
