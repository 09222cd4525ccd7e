"""Nuclear war: brinkmanship over six crises with a hidden war threshold."""

from games.core.manifest import GamePackage, Playthrough
from games.nuclear_war.action_parser import NuclearWarActionParser
from games.nuclear_war.config import NuclearWarConfig
from games.nuclear_war.game import NuclearWarGame
from games.nuclear_war.state_adapter import NuclearWarStateAdapter

#: What the registry finds in this folder (``games.core.manifest``). Playthroughs are short
#: matches where a full one would make a file of megabytes.
ARENA_GAME = GamePackage(
    game_class=NuclearWarGame,
    state_adapter_class=NuclearWarStateAdapter,
    action_parser_class=NuclearWarActionParser,
    playthroughs=(
        Playthrough(("reputation", "equilibrium"), 1),
        Playthrough(("always-stand", "grudger"), 2),
    ),
    order=50,
)

__all__ = [
    "ARENA_GAME",
    "NuclearWarActionParser",
    "NuclearWarConfig",
    "NuclearWarGame",
    "NuclearWarStateAdapter",
]
