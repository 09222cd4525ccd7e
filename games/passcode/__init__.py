"""Passcode: a bulls-and-cows race to crack the same 4-digit code."""

from games.core import ArenaConfig
from games.passcode.config import PasscodeConfig
from games.passcode.game import PasscodeGame


def create_game(arena_config: ArenaConfig) -> PasscodeGame:
    """Build the game for the seats, seed and config of ``arena_config``."""
    players = [p.id for p in arena_config.players]
    return PasscodeGame(
        players=players, config=PasscodeConfig(**arena_config.config), seed=arena_config.seed
    )


__all__ = ["PasscodeConfig", "PasscodeGame", "create_game"]
