"""What a game's folder declares about itself: ``ARENA_GAME`` in its package's ``__init__.py``.

The registry (``games.core.registry``) finds every package under ``games/`` (and those named in
``ARENA_GAME_PACKAGES``) that defines ``ARENA_GAME``; nothing outside the game's folder lists it.
See docs/games.md, "Adding a game".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.core.action_parser import ActionParser
from games.core.game import Game
from games.core.state_adapter import StateAdapter


@dataclass(frozen=True)
class Playthrough:
    """A golden playthrough to record: two house bots, a seed and a config (``{}``: defaults)."""

    bots: tuple[str, str]
    seed: int
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def filename(self) -> str:
        """``<bot>--<bot>--seed<N>.txt``."""
        return f"{self.bots[0]}--{self.bots[1]}--seed{self.seed}.txt"


@dataclass(frozen=True)
class LadderFigure:
    """A figure of the game's own that its ladder shows beside the rating (poker's BB/100).

    Each rated match contributes the seat's value of ``Game.get_match_stats()[key]`` (a list in
    seat order, or a dict keyed by seat or ``p<seat>``); the ladder shows their mean.
    """

    #: The key in the match's stats, and in the ladder row's ``figures``.
    key: str
    #: The column's heading.
    label: str
    #: What it measures, for the column's tooltip and the API's description.
    description: str = ""
    #: Decimals shown.
    digits: int = 1


@dataclass(frozen=True)
class GamePackage:
    """A game as its folder declares it.

    ``bots`` and ``presenter`` are paths relative to the game's package, imported only when used
    (``"bots.BOTS"``: a dict of bot name to ``Agent`` class; ``"presenter.present"``: the replay
    presenter, the generic one when the module is absent). ``rules.md``, ``starter_agent.py``,
    ``strength.json`` and ``playthroughs/`` are files in the folder.
    """

    game_class: type[Game]
    state_adapter_class: type[StateAdapter]
    action_parser_class: type[ActionParser]
    bots: str = "bots.BOTS"
    presenter: str | None = "presenter.present"
    #: The golden playthroughs recorded for the game (``arena playthroughs --write``).
    playthroughs: tuple[Playthrough, ...] = ()
    #: Figures of the game's own shown on its ladder.
    ladder_figures: tuple[LadderFigure, ...] = ()
    #: Where the game comes in lists (lower first; ties by id).
    order: int = 100
