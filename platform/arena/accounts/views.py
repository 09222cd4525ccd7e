"""Sign-up, sign-in (Django's view), and the token page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from arena.accounts.forms import SignUpForm
from arena.accounts.selectors import signed_in_user
from arena.accounts.services import token_get_or_create


def signup(request: HttpRequest) -> HttpResponse:
    """Create an account and sign in."""
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        # Two backends (django-axes first): name the one that knows passwords.
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(
            request,
            f"Welcome to Agent Arena, {user.username}! Next: upload an agent below. No agent yet? "
            "Download a game's starter agent from its page, edit it, and upload it here.",
        )
        return redirect("submissions:upload")
    return render(request, "accounts/signup.html", {"form": form})


@login_required
def token(request: HttpRequest) -> HttpResponse:
    """Show the user's API token for ``arena submit``."""
    return render(
        request, "accounts/token.html", {"token": token_get_or_create(user=signed_in_user(request))}
    )
