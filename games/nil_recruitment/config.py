"""NIL Recruitment's config (defaults of ``rules.md``)."""

from games.nil_recruitment.game import NilRecruitmentConfig

__all__ = ["NilRecruitmentConfig"]
