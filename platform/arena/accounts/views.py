"""Sign-up, sign-in and password pages (Django's views, the site's templates), the account
page (email, verification, password, deleting the account) and the token page."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from arena.accounts.forms import DeleteAccountForm, EmailForm, SignUpForm
from arena.accounts.models import User
from arena.accounts.selectors import signed_in_user
from arena.accounts.services import (
    DELETED_USERNAME,
    email_change,
    email_verification_send,
    email_verification_token,
    email_verify,
    token_get_or_create,
)
from arena.errors import Refused
from arena.workflows.accounts import account_delete


def _send_verification(request: HttpRequest, user: User) -> None:
    token = email_verification_token(user=user)
    url = request.build_absolute_uri(reverse("accounts:verify", args=[token]))
    email_verification_send(user=user, verify_url=url)


def signup(request: HttpRequest) -> HttpResponse:
    """Create an account and sign in (and mail the verification link when the site sends
    email)."""
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        # Two backends (django-axes first): name the one that knows passwords.
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        welcome = (
            f"Welcome to Agent Arena, {user.username}! Next: upload an agent below. No agent "
            "yet? Download a game's starter agent from its page, edit it, and upload it here."
        )
        if settings.ARENA_EMAIL_VERIFICATION and user.email:
            _send_verification(request, user)
            welcome += f" First, open the link we sent to {user.email}: uploads need it."
        messages.success(request, welcome)
        return redirect("submissions:upload")
    return render(
        request,
        "accounts/signup.html",
        {"form": form, "verification": settings.ARENA_EMAIL_VERIFICATION},
    )


@login_required
def account(request: HttpRequest) -> HttpResponse:
    """The account page: email address and its verification, password, deleting."""
    user = request.user
    assert isinstance(user, User)
    email_form = EmailForm(
        request.POST if request.POST.get("action") == "email" else None,
        initial={"email": user.email},
    )
    if request.method == "POST" and email_form.is_bound and email_form.is_valid():
        try:
            email_change(user=user, email=email_form.cleaned_data["email"])
        except Refused as exc:
            email_form.add_error("email", exc.message)
        else:
            if settings.ARENA_EMAIL_ENABLED and not user.email_verified:
                _send_verification(request, user)
                messages.success(request, f"We sent a link to {user.email}: open it to verify.")
            else:
                messages.success(request, "Your email address is saved.")
            return redirect("accounts:account")
    return render(
        request,
        "accounts/account.html",
        {
            "email_form": email_form,
            "delete_form": DeleteAccountForm(),
            "email_enabled": settings.ARENA_EMAIL_ENABLED,
            "verification": settings.ARENA_EMAIL_VERIFICATION,
            # The name its matches show once deleted (the same the deletion's message gives).
            "deleted_name": DELETED_USERNAME.format(pk=user.pk),
        },
    )


@login_required
@require_POST
def verification_resend(request: HttpRequest) -> HttpResponse:
    """Mail the verification link again."""
    user = request.user
    assert isinstance(user, User)
    if settings.ARENA_EMAIL_ENABLED and user.email and not user.email_verified:
        _send_verification(request, user)
        messages.success(request, f"We sent a new link to {user.email}.")
    return redirect("accounts:account")


def verify(request: HttpRequest, token: str) -> HttpResponse:
    """The link from the verification email."""
    try:
        user = email_verify(token=token)
    except Refused as exc:
        return render(request, "accounts/verify.html", {"error": exc.message}, status=400)
    return render(request, "accounts/verify.html", {"verified": user})


@login_required
def delete(request: HttpRequest) -> HttpResponse:
    """Delete the account after the password and a confirmation."""
    user = request.user
    assert isinstance(user, User)
    form = DeleteAccountForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            deleted = account_delete(user=user, password=form.cleaned_data["password"])
        except Refused as exc:
            form.add_error("password", exc.message)
        else:
            logout(request)
            messages.success(
                request,
                "Your account is deleted. Your agents left the ladders; the matches they played "
                f"stay, under the name “{deleted.username}”.",
            )
            return redirect("catalog:home")
    return render(
        request,
        "accounts/account.html",
        {
            "email_form": EmailForm(initial={"email": user.email}),
            "delete_form": form,
            "email_enabled": settings.ARENA_EMAIL_ENABLED,
            "verification": settings.ARENA_EMAIL_VERIFICATION,
            # The name its matches show once deleted (the same the deletion's message gives).
            "deleted_name": DELETED_USERNAME.format(pk=user.pk),
        },
        status=400 if request.method == "POST" else 200,
    )


@login_required
def token(request: HttpRequest) -> HttpResponse:
    """Show the user's API token and the exact commands for ``arena login`` and ``submit``."""
    return render(
        request,
        "accounts/token.html",
        {
            "token": token_get_or_create(user=signed_in_user(request)),
            "server": request.build_absolute_uri("/").rstrip("/"),
        },
    )


class EmailAwareMixin:
    """Tells the template whether this site sends email (settings are read per request)."""

    def get_context_data(self, **kwargs: object) -> dict[str, object]:
        context: dict[str, object] = super().get_context_data(**kwargs)  # type: ignore[misc]
        context["email_enabled"] = settings.ARENA_EMAIL_ENABLED
        return context


class SignInView(EmailAwareMixin, auth_views.LoginView):
    """Django's sign-in, in the site's template, with the way to reset a password."""

    template_name = "accounts/login.html"


class PasswordResetView(EmailAwareMixin, auth_views.PasswordResetView):
    """Django's password reset by email; a site that sends no email says so instead."""

    template_name = "accounts/password_reset.html"
    email_template_name = "accounts/password_reset_email.txt"
    subject_template_name = "accounts/password_reset_subject.txt"

    def post(self, request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if not settings.ARENA_EMAIL_ENABLED:
            return self.get(request, *args, **kwargs)
        return super().post(request, *args, **kwargs)
