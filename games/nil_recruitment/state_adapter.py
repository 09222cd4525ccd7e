"""NIL Recruitment as an agent sees it: the common fields, the original platform's fields
(``round_number``, ``is_your_turn``, ``messages[].author``) and the side's view of the scenario
(``your_university``, ``opponent_university_name``, ``athlete_profile``)."""

from __future__ import annotations

from games.core.persuasion import PersuasionStateAdapter
from games.nil_recruitment.game import NilRecruitmentGame


class NilRecruitmentStateAdapter(PersuasionStateAdapter):
    """The shared persuasion adapter for this game."""

    game_class = NilRecruitmentGame
