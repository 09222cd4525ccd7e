"""Pages: the inbox and the notification settings (channels per kind, webhook)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from arena.accounts.selectors import signed_in_user
from arena.errors import Refused
from arena.notifications import selectors, services
from arena.notifications.models import Kind
from arena.notifications.webhooks import SIGNATURE_HEADER, TIMESTAMP_HEADER


@login_required
def inbox(request: HttpRequest) -> HttpResponse:
    """The user's notifications, newest first (unread ones marked)."""
    try:
        before = int(request.GET.get("before", "")) or None
    except ValueError:
        before = None
    rows = list(selectors.inbox(user=signed_in_user(request), before=before))
    return render(
        request,
        "notifications/inbox.html",
        {
            "notifications": rows,
            "next_before": rows[-1].pk if len(rows) == selectors.INBOX_PER_PAGE else None,
        },
    )


@login_required
@require_POST
def mark_read(request: HttpRequest) -> HttpResponse:
    """Mark every notification read (or the one named by ``id``)."""
    ids = None
    if request.POST.get("id", "").isdigit():
        ids = [int(request.POST["id"])]
    services.notifications_mark_read(user=signed_in_user(request), ids=ids)
    return redirect("notifications:inbox")


@login_required
def settings_page(request: HttpRequest) -> HttpResponse:
    """Channels per kind (inbox, email, webhook) and the webhook's URL and secret."""
    user = signed_in_user(request)
    if request.method == "POST":
        action = request.POST.get("action", "preferences")
        try:
            if action == "webhook":
                services.webhook_set(user=user, url=request.POST.get("url", ""))
                messages.success(request, "Webhook saved: a new signing secret is shown below.")
            elif action == "webhook-delete":
                services.webhook_delete(user=user)
                messages.success(request, "Webhook removed.")
            else:
                values = {
                    kind: {
                        channel: request.POST.get(f"{kind}:{channel}") == "on"
                        for channel in ("inbox", "email", "webhook")
                    }
                    for kind in Kind.values
                }
                services.preferences_set(user=user, values=values)
                messages.success(request, "Notification settings saved.")
        except Refused as exc:
            messages.error(request, exc.message)
        return redirect("notifications:settings")
    prefs = services.preferences_of(user)
    return render(
        request,
        "notifications/settings.html",
        {
            "rows": [{"kind": kind, "label": label, **prefs[kind]} for kind, label in Kind.choices],
            "webhook": selectors.webhook_of(user=user),
            "email_enabled": services.email_enabled(),
            "signature_header": SIGNATURE_HEADER,
            "timestamp_header": TIMESTAMP_HEADER,
        },
    )
