"""The small declarations a game makes about itself on its ``Game`` class: the golden
playthroughs recorded for it and the figures its ladder shows (docs/games.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
