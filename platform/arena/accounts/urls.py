"""Account pages: Django's own sign-in and password views in the site's templates."""

from collections.abc import Callable
from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpResponseBase
from django.urls import path, reverse_lazy
from django.views import View

from arena.accounts import views


def _password_form(view: type[View], title: str, *, then: str) -> Callable[..., HttpResponseBase]:
    """A page with a password form; ``then``: the page after it (a name in this app)."""
    return view.as_view(
        template_name="accounts/password_form.html",
        success_url=reverse_lazy(f"accounts:{then}"),
        extra_context={"title": title},
    )


def _password_done(
    view: type[View], title: str, what: str, **more: Any
) -> Callable[..., HttpResponseBase]:
    """The page that says a password step is done (``what``: what happened, what next)."""
    return view.as_view(
        template_name="accounts/password_done.html",
        extra_context={"title": title, "what": what, **more},
    )


app_name = "accounts"
urlpatterns = [
    path("", views.account, name="account"),
    path("signup/", views.signup, name="signup"),
    path("login/", views.SignInView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("token/", views.token, name="token"),
    path("verify/resend/", views.verification_resend, name="verification_resend"),
    path("verify/<str:token>/", views.verify, name="verify"),
    path("delete/", views.delete, name="delete"),
    path(
        "password/change/",
        _password_form(
            auth_views.PasswordChangeView, "Change your password", then="password_change_done"
        ),
        name="password_change",
    ),
    path(
        "password/change/done/",
        _password_done(
            auth_views.PasswordChangeDoneView, "Password changed", "Your password is changed."
        ),
        name="password_change_done",
    ),
    path(
        "password/reset/",
        views.PasswordResetView.as_view(success_url=reverse_lazy("accounts:password_reset_done")),
        name="password_reset",
    ),
    path(
        "password/reset/sent/",
        _password_done(
            auth_views.PasswordResetDoneView,
            "Check your email",
            "If an account has this address, we sent it a link to choose a new password. It "
            "works once, for three days.",
        ),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        _password_form(
            auth_views.PasswordResetConfirmView,
            "Choose a new password",
            then="password_reset_complete",
        ),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        _password_done(
            auth_views.PasswordResetCompleteView,
            "Password set",
            "Your new password is set: sign in with it.",
            sign_in=True,
        ),
        name="password_reset_complete",
    ),
]
