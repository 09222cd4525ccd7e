"""Sign-up form."""

from __future__ import annotations

from django.contrib.auth.forms import UserCreationForm

from arena.accounts.models import User


class SignUpForm(UserCreationForm):
    """Username and password twice."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)
