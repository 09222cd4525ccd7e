"""Account forms: sign-up, email address, deleting the account."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm

from arena.accounts.models import User


class SignUpForm(UserCreationForm[User]):
    """Username, email (required when uploads need a verified address) and password twice."""

    email = forms.EmailField(required=False, help_text="")

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]  # stubs omit Meta
        model = User
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["email"].required = settings.ARENA_EMAIL_VERIFICATION

    def clean_email(self) -> str:
        email = str(self.cleaned_data.get("email") or "").strip()
        if email and User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("another account uses this address")
        return email


class EmailForm(forms.Form):
    """A new email address."""

    email = forms.EmailField(label="Email address")


class DeleteAccountForm(forms.Form):
    """The password again, and a box to tick: deleting cannot be undone."""

    password = forms.CharField(label="Your password", widget=forms.PasswordInput)
    confirm = forms.BooleanField(
        label="I understand: my agents leave the ladders and my account cannot be restored"
    )
