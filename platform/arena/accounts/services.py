"""Writes for accounts: API tokens, email verification, and deleting an account."""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.core.mail import send_mail
from django.utils import timezone

from arena.accounts.models import ApiToken, User
from arena.errors import Refused

#: Separates verification links from every other signed value of the site.
EMAIL_SIGNING_SALT = "arena.accounts.email-verify"
#: The name a deleted account's agents and matches show from then on.
DELETED_USERNAME = "deleted-user-{pk}"


def token_get_or_create(*, user: User) -> ApiToken:
    """The user's API token, created on first use."""
    token, _ = ApiToken.objects.get_or_create(user=user)
    return token


def token_user(key: str) -> User | None:
    """The active user a token belongs to, or None."""
    token = ApiToken.objects.select_related("user").filter(key=key).first()
    if token is None or not token.user.is_active:
        return None
    return token.user


def email_verification_token(*, user: User) -> str:
    """A signed, dated token for ``user``'s current address (it stops working if it changes)."""
    return signing.dumps({"user": user.pk, "email": user.email}, salt=EMAIL_SIGNING_SALT)


def email_verification_send(*, user: User, verify_url: str) -> None:
    """Mail ``user`` the link ``verify_url`` (which carries ``email_verification_token``)."""
    hours = settings.ARENA_EMAIL_LINK_MAX_AGE_S // 3600
    send_mail(
        subject="Agent Arena: confirm your email address",
        message=(
            f"Hello {user.username},\n\n"
            f"Open this link to confirm that {user.email} is your address on Agent Arena:\n\n"
            f"{verify_url}\n\n"
            f"The link works for {hours} hours. If you did not sign up, ignore this message.\n"
        ),
        from_email=None,
        recipient_list=[user.email],
    )


def email_verify(*, token: str) -> User:
    """Mark the address a verification link was sent to as verified; ``Refused`` when the link
    is forged, expired, or for an address the account no longer has."""
    try:
        data = signing.loads(
            token, salt=EMAIL_SIGNING_SALT, max_age=settings.ARENA_EMAIL_LINK_MAX_AGE_S
        )
    except signing.SignatureExpired:
        raise Refused("this link has expired: ask for a new one on your account page") from None
    except signing.BadSignature:
        raise Refused("this link is not valid: copy the whole link from the email") from None
    user = User.objects.filter(pk=data.get("user"), is_active=True).first()
    if user is None or user.email != data.get("email"):
        raise Refused(
            "this link was sent to an address your account no longer has: ask for a new one on "
            "your account page"
        )
    if not user.email_verified:
        user.email_verified = True
        user.save(update_fields=["email_verified"])
    return user


def email_change(*, user: User, email: str) -> User:
    """Set a new address; it is unverified until its link is opened."""
    email = User.objects.normalize_email(email.strip())
    if email and User.objects.filter(email__iexact=email).exclude(pk=user.pk).exists():
        raise Refused("another account uses this address")
    if email != user.email:
        user.email = email
        user.email_verified = False
        user.save(update_fields=["email", "email_verified"])
    return user


def upload_allowed_check(*, user: User) -> None:
    """``Refused`` when uploads need a verified address (the site sends email) and ``user`` has
    none; staff and the house are never asked."""
    if not settings.ARENA_EMAIL_VERIFICATION or user.email_verified or user.is_staff:
        return
    if not user.email:
        raise Refused(
            "this site accepts uploads from a verified email address: add your address on your "
            "account page (/accounts/), then open the link we send to it"
        )
    raise Refused(
        f"this site accepts uploads from a verified email address: open the link we sent to "
        f"{user.email}, or ask for a new one on your account page (/accounts/)"
    )


def user_anonymise(*, user: User, password: str) -> User:
    """Check the password, then disable the account for good: token deleted, password unusable,
    name ``deleted-user-<id>``, address erased. Its agents are the caller's business
    (``arena.workflows.accounts.account_delete``)."""
    if not user.check_password(password):
        raise Refused("the password is not right: the account was not deleted")
    ApiToken.objects.filter(user=user).delete()
    user.username = DELETED_USERNAME.format(pk=user.pk)
    user.email = ""
    user.first_name = user.last_name = ""
    user.email_verified = False
    user.is_active = False
    user.deleted = timezone.now()
    user.set_unusable_password()
    user.save()
    return user
