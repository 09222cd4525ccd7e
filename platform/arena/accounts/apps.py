"""App config of `arena.accounts`."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """The `accounts` app."""

    name = "arena.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
