from django.urls import path

from . import views

app_name = "support"

urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.new, name="new"),
    path("<int:ticket_id>/", views.detail, name="detail"),
    path("announcements/<int:pk>/dismiss/", views.dismiss_announcement, name="dismiss_announcement"),
]
