"""Nuclear War as an agent sees it: the common fields, the original platform's fields
(``round_number``, ``is_your_turn``, ``messages[].author``) and the side's view of the scenario
(``your_role``, ``country``, ``president_profile``)."""

from __future__ import annotations

from games.core.persuasion import PersuasionStateAdapter
from games.nuclear_war.game import NuclearWarGame


class NuclearWarStateAdapter(PersuasionStateAdapter):
    """The shared persuasion adapter for this game."""

    game_class = NuclearWarGame
