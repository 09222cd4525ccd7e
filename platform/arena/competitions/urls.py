"""Pages of an agent's history, head-to-head, pairs and challenges."""

from django.urls import path

from arena.competitions import views

app_name = "competitions"
urlpatterns = [
    path("agents/<int:agent_id>/matches/", views.history, name="history"),
    path("agents/<int:agent_id>/head-to-head/", views.head_to_head, name="head_to_head"),
    path("agents/<int:agent_id>/versus/<int:opponent_id>/", views.pair, name="pair"),
    path("agents/<int:agent_id>/challenge/", views.challenge, name="challenge"),
    path(
        "agents/<int:agent_id>/challenge-settings/",
        views.challenge_settings,
        name="challenge_settings",
    ),
]
