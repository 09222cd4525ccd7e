"""Probes, metrics and the operator's page."""

from django.urls import path

from arena.ops import views

app_name = "ops"
urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("readyz", views.readyz, name="readyz"),
    path("metrics", views.metrics_view, name="metrics"),
    path("ops/", views.ops_page, name="overview"),
]
