from django.apps import AppConfig


class WorkflowsConfig(AppConfig):
    """No models: the cross-app workflows and the Celery tasks that run them."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "arena.workflows"

    def ready(self) -> None:
        """Register the tasks in every process, so ``dispatch`` can send them by name."""
        from arena.workflows import tasks  # noqa: F401
