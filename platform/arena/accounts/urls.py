"""Account pages: Django's own sign-in and password views in the site's templates."""

from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from arena.accounts import views

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
        auth_views.PasswordChangeView.as_view(
            template_name="accounts/password_form.html",
            success_url=reverse_lazy("accounts:password_change_done"),
            extra_context={"title": "Change your password"},
        ),
        name="password_change",
    ),
    path(
        "password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(
            template_name="accounts/password_done.html",
            extra_context={"title": "Password changed", "what": "Your password is changed."},
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
        auth_views.PasswordResetDoneView.as_view(
            template_name="accounts/password_done.html",
            extra_context={
                "title": "Check your email",
                "what": "If an account has this address, we sent it a link to choose a new "
                "password. It works once, for three days.",
            },
        ),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="accounts/password_form.html",
            success_url=reverse_lazy("accounts:password_reset_complete"),
            extra_context={"title": "Choose a new password"},
        ),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(
            template_name="accounts/password_done.html",
            extra_context={
                "title": "Password set",
                "what": "Your new password is set: sign in with it.",
                "sign_in": True,
            },
        ),
        name="password_reset_complete",
    ),
]
