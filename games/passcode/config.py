"""Passcode's config (defaults of ``rules.md``)."""

from games.passcode.game import PasscodeConfig

__all__ = ["PasscodeConfig"]
