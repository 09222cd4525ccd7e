from django.apps import AppConfig


class OpsConfig(AppConfig):
    """Operating the platform: health, metrics, worker heartbeats, the operator's page."""

    name = "arena.ops"
    label = "ops"
    default_auto_field = "django.db.models.BigAutoField"
