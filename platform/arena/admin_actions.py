"""What the admin's bulk actions share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from arena.errors import Refused

M = TypeVar("M", bound=Model)


def each_selected(
    modeladmin: admin.ModelAdmin[Any],
    request: HttpRequest,
    queryset: QuerySet[M],
    action: Callable[[M], object],
    *,
    label: Callable[[M], str] = str,
) -> None:
    """Apply ``action`` to each selected row; a row it refuses gets a warning (``label``: how
    the warning names the row) and the others still go ahead."""
    for row in queryset:
        try:
            action(row)
        except Refused as exc:
            modeladmin.message_user(request, f"{label(row)}: {exc.message}", messages.WARNING)
