"""URL map: pages per app, the JSON API under /api/, the admin."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.static import serve

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

if settings.ARENA_SERVE_STATIC:
    # A small deployment without a proxy in front: gunicorn serves the collected assets.
    urlpatterns.insert(
        0, re_path(r"^static/(?P<path>.*)$", serve, {"document_root": settings.STATIC_ROOT})
    )
