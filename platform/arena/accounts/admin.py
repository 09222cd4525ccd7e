"""Admin: users (disable = untick active) and their tokens."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

from arena.accounts.models import ApiToken, User


@admin.action(description="Disable the selected users (they can no longer sign in or use tokens)")
def disable_users(
    modeladmin: admin.ModelAdmin[User], request: HttpRequest, queryset: QuerySet[User]
) -> None:
    """Untick ``is_active`` and take their submissions off the ladder."""
    from arena.submissions.models import Submission

    queryset.update(is_active=False)
    Submission.objects.filter(agent__owner__in=queryset).update(active=False)


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
