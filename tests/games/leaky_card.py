"""A deliberately broken copy of simple-card: it shows the pending card to the next player."""

from __future__ import annotations

from typing import Any

from games.core import GamePackage
from games.simple_card import bots as _bots
from games.simple_card.action_parser import SimpleCardActionParser as LeakyCardActionParser
from games.simple_card.config import SimpleCardConfig as LeakyCardConfig
from games.simple_card.game import SimpleCardGame
from games.simple_card.state_adapter import SimpleCardStateAdapter

BOTS = _bots.BOTS


class LeakyCardGame(SimpleCardGame):
    game_type = "leaky-card"

    def get_public_state(self) -> dict[str, Any]:
        return {**super().get_public_state(), "pending": dict(self.pending)}


class LeakyCardStateAdapter(SimpleCardStateAdapter):
    def game_fields(self, public_state: dict[str, Any], private_state: dict[str, Any], pid: str):
        return {**super().game_fields(public_state, private_state, pid), **public_state}


ARENA_GAME = GamePackage(
    game_class=LeakyCardGame,
    state_adapter_class=LeakyCardStateAdapter,
    action_parser_class=LeakyCardActionParser,
    bots="BOTS",
    presenter=None,
)


__all__ = ["LeakyCardActionParser", "LeakyCardConfig"]
