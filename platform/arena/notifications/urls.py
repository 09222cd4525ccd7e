"""Notification pages."""

from django.urls import path

from arena.notifications import views

app_name = "notifications"
urlpatterns = [
    path("", views.inbox, name="inbox"),
    path("read/", views.mark_read, name="read"),
    path("settings/", views.settings_page, name="settings"),
]
