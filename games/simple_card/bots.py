"""House bots for simple-card, from trivial to sensible."""

from __future__ import annotations

import random
from typing import Any


class RandomBot:
    """Plays a random card from its hand."""

    GAME = "simple-card"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"type": "play_card", "card": self.rng.choice(state["hand"])}


class HighestBot:
    """Plays its highest card first."""

    GAME = "simple-card"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"type": "play_card", "card": max(state["hand"])}


class LowestBot:
    """Plays its lowest card first."""

    GAME = "simple-card"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"type": "play_card", "card": min(state["hand"])}


BOTS: dict[str, type] = {"random": RandomBot, "highest": HighestBot, "lowest": LowestBot}
