"""Sign-up form."""

from __future__ import annotations

from django.contrib.auth.forms import UserCreationForm

from arena.accounts.models import User


class SignUpForm(UserCreationForm[User]):
    """Username and password twice."""

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined,misc]  # stubs omit Meta
        model = User
        fields = ("username",)
