"""NIL recruitment: two schools bid a season budget for five recruits."""

from games.core import ArenaConfig
from games.nil_recruitment.config import NilRecruitmentConfig
from games.nil_recruitment.game import NilRecruitmentGame


def create_game(arena_config: ArenaConfig) -> NilRecruitmentGame:
    """Build the game for the seats, seed and config of ``arena_config``."""
    players = [p.id for p in arena_config.players]
    return NilRecruitmentGame(
        players=players,
        config=NilRecruitmentConfig(**arena_config.config),
        seed=arena_config.seed,
    )


__all__ = ["NilRecruitmentConfig", "NilRecruitmentGame", "create_game"]
