"""Model-entrant pages."""

from django.urls import path

from arena.llm import views

app_name = "llm"
urlpatterns = [
    path("new/", views.new_entrant, name="new"),
    path("matches/<int:match_id>/", views.match_calls, name="match_calls"),
    path("submissions/<int:submission_id>/models/", views.agent_models, name="agent_models"),
]
