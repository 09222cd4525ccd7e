"""Match pages."""

from django.urls import path

from arena.matches import views

app_name = "matches"
urlpatterns = [
    path("<int:match_id>/", views.detail, name="detail"),
    path("<int:match_id>/live/", views.live, name="live"),
    path("<int:match_id>/calls/", views.log, name="log"),
    path("<int:match_id>/events/<int:seq>/", views.event_state, name="event_state"),
]
