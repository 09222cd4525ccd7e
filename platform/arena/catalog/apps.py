"""App config of `arena.catalog`."""

from django.apps import AppConfig


class CatalogConfig(AppConfig):
    """The `catalog` app."""

    name = "arena.catalog"
    label = "catalog"
    default_auto_field = "django.db.models.BigAutoField"
