"""Admin: users (disable = untick active) and their tokens."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

from arena.accounts.models import ApiToken, User
from arena.workflows.accounts import users_disable


@admin.action(description="Disable the selected users (they can no longer sign in or use tokens)")
def disable_users(
    modeladmin: admin.ModelAdmin[User], request: HttpRequest, queryset: QuerySet[User]
) -> None:
    """Untick ``is_active`` and take their submissions off the ladder."""
    users_disable(users=queryset)


@admin.register(User)
class ArenaUserAdmin(UserAdmin[User]):
    """Django's user admin plus a disable action."""

    actions = [disable_users]
    list_display = ("username", "email", "is_active", "is_staff", "date_joined")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    """Tokens (delete one to revoke it)."""

    list_display = ("user", "created")
    readonly_fields = ("key",)
