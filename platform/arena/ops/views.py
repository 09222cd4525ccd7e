"""Health probes, the metrics endpoint and the operator's page (docs/operations.md).

``/healthz`` and ``/readyz`` answer everyone with a status word only; staff (or a scrape with
the metrics token) also get which check failed. Nothing else about the platform leaks here.
"""

from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST

from arena.ops.collectors import PlatformCollector
from arena.ops.exposition import PROXY_HEADERS, metrics_allowed, metrics_text
from arena.ops.probes import readiness
from arena.ops.selectors import ops_overview


def _may_see_details(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.is_staff:
        return True
    return metrics_allowed(remote_addr="", authorization=request.headers.get("Authorization", ""))


@never_cache
@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness: the process answers (no database, no broker)."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request: HttpRequest) -> HttpResponse:
    """Readiness: the database and the broker answer and every queue has a live worker."""
    checks = readiness()
    ready = all(checks.values())
    body: dict[str, object] = {"status": "ready" if ready else "unavailable"}
    if _may_see_details(request):
        body["checks"] = {name: "ok" if ok else "failing" for name, ok in checks.items()}
    return JsonResponse(body, status=200 if ready else 503)


@never_cache
@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """Prometheus text, for an allowed address or the bearer token (``ARENA_METRICS_*``)."""
    if not metrics_allowed(
        remote_addr=str(request.META.get("REMOTE_ADDR", "")),
        authorization=request.headers.get("Authorization", ""),
        proxied=any(request.META.get(header) for header in PROXY_HEADERS),
    ):
        return HttpResponse("forbidden\n", status=403, content_type="text/plain")
    return HttpResponse(metrics_text([PlatformCollector()]), content_type=CONTENT_TYPE_LATEST)


@staff_member_required
@never_cache
def ops_page(request: HttpRequest) -> HttpResponse:
    """The operator's page: queues, workers, rates, errors, maintenance, model spend."""
    return render(request, "ops/overview.html", ops_overview())
