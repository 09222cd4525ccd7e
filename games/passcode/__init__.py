"""Passcode: a bulls-and-cows race to crack the same 4-digit code."""

from games.passcode.config import PasscodeConfig
from games.passcode.game import PasscodeGame

__all__ = ["PasscodeConfig", "PasscodeGame"]
