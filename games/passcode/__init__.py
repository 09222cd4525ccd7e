"""Passcode: a bulls-and-cows race to crack the same 4-digit code."""

from games.core.manifest import GamePackage, Playthrough
from games.passcode.action_parser import PasscodeActionParser
from games.passcode.config import PasscodeConfig
from games.passcode.game import PasscodeGame
from games.passcode.state_adapter import PasscodeStateAdapter

#: What the registry finds in this folder (``games.core.manifest``). Playthroughs are short
#: matches where a full one would make a file of megabytes.
ARENA_GAME = GamePackage(
    game_class=PasscodeGame,
    state_adapter_class=PasscodeStateAdapter,
    action_parser_class=PasscodeActionParser,
    playthroughs=(
        Playthrough(("strong", "solver"), 1),
        Playthrough(("random", "strong"), 2),
    ),
    order=60,
)

__all__ = [
    "ARENA_GAME",
    "PasscodeActionParser",
    "PasscodeConfig",
    "PasscodeGame",
    "PasscodeStateAdapter",
]
