"""NIL recruitment: two schools bid a season budget for five recruits."""

from games.nil_recruitment.config import NilRecruitmentConfig
from games.nil_recruitment.game import NilRecruitmentGame

__all__ = ["NilRecruitmentConfig", "NilRecruitmentGame"]
