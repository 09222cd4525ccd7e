"""NIL recruitment: two schools bid a season budget for five recruits."""

from games.core.manifest import GamePackage, Playthrough
from games.nil_recruitment.action_parser import NilRecruitmentActionParser
from games.nil_recruitment.config import NilRecruitmentConfig
from games.nil_recruitment.game import NilRecruitmentGame
from games.nil_recruitment.state_adapter import NilRecruitmentStateAdapter

#: What the registry finds in this folder (``games.core.manifest``). Playthroughs are short
#: matches where a full one would make a file of megabytes.
ARENA_GAME = GamePackage(
    game_class=NilRecruitmentGame,
    state_adapter_class=NilRecruitmentStateAdapter,
    action_parser_class=NilRecruitmentActionParser,
    playthroughs=(
        Playthrough(("shading", "proportional"), 1),
        Playthrough(("spend-everything", "shading"), 2),
    ),
    order=40,
)

__all__ = [
    "ARENA_GAME",
    "NilRecruitmentActionParser",
    "NilRecruitmentConfig",
    "NilRecruitmentGame",
    "NilRecruitmentStateAdapter",
]
