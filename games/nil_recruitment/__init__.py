"""NIL Recruitment: two recruiters pitch one athlete, a language model playing the athlete."""

from games.nil_recruitment.game import NilRecruitmentConfig, NilRecruitmentGame

__all__ = ["NilRecruitmentConfig", "NilRecruitmentGame"]
