"""App config of `arena.llm`."""

from django.apps import AppConfig


class LlmConfig(AppConfig):
    """The `llm` app."""

    name = "arena.llm"
    label = "llm"
    default_auto_field = "django.db.models.BigAutoField"
