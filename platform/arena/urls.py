"""URL map: pages per app, the JSON API under /api/, the admin."""

from django.contrib import admin
from django.urls import include, path

from arena import api

api_patterns = [
    path("token", api.token),
    path("games", api.games),
    path("submissions", api.submissions),
    path("submissions/<int:submission_id>", api.submission_detail),
    path("submissions/<int:submission_id>/activate", api.submission_activate_view),
    path("submissions/<int:submission_id>/deactivate", api.submission_deactivate_view),
    path("training", api.training),
    path("matches/<int:match_id>", api.match_detail),
    path("matches/<int:match_id>/log", api.match_log),
    path("leaderboard/<str:game>", api.leaderboard_view),
    path("openapi.json", api.openapi),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include(api_patterns)),
    path("accounts/", include("arena.accounts.urls")),
    path("submissions/", include("arena.submissions.urls")),
    path("matches/", include("arena.matches.urls")),
    path("", include("arena.catalog.urls")),
]
