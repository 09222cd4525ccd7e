"""Sealed-bid recruitment: two schools bid a season budget for five recruits."""

from games.sealed_bid_recruitment.config import SealedBidRecruitmentConfig
from games.sealed_bid_recruitment.game import SealedBidRecruitmentGame

__all__ = ["SealedBidRecruitmentConfig", "SealedBidRecruitmentGame"]
