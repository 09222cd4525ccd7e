"""URL map: pages per app, the JSON API under /api/, the admin."""

from django.contrib import admin
from django.urls import include, path, re_path

from arena import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.index),
    path("api/", api.api.urls),
    # Any other /api/ path: a JSON 404 in the API's error shape, not the HTML page.
    re_path(r"^api/", api.not_found),
    path("accounts/", include("arena.accounts.urls")),
    path("submissions/", include("arena.submissions.urls")),
    path("matches/", include("arena.matches.urls")),
    path("notifications/", include("arena.notifications.urls")),
    path("", include("arena.competitions.urls")),
    path("tournaments/", include("arena.tournaments.urls")),
    # /healthz, /readyz, /metrics and the operator's page /ops/ (docs/operations.md).
    path("", include("arena.ops.urls")),
    path("llm/", include("arena.llm.urls")),
    path("ratings/", include("arena.ratings.urls")),
    path("", include("arena.catalog.urls")),
]
