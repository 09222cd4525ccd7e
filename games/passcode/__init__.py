"""Passcode: a 20-questions race against a secret keeper, a language model holding a word."""

from games.passcode.game import PasscodeConfig, PasscodeGame

__all__ = ["PasscodeConfig", "PasscodeGame"]
