"""Simple-card: the reference game, the template a new game copies.

Each player is dealt ``hand_size`` cards from ``copies`` decks of 1..``max_card``. Each round both
play one card "at once" (collected one after the other; the second never sees the first's card);
the higher card scores 1, a tie scores nothing.
"""

from __future__ import annotations

from typing import Any

from games.core import Action, IllegalActionError
from games.core.figures import Playthrough
from games.core.game import RoundsGame, your_and_opponent
from games.simple_card.config import SimpleCardConfig


class SimpleCardGame(RoundsGame):
    """Two players, one simultaneous card play per round."""

    game_type = "simple-card"
    #: Short matches where a full one would make a file of megabytes.
    playthroughs = (
        Playthrough(("random", "highest"), 1),
        Playthrough(("counter", "lowest"), 2),
    )
    order = 10
    title = "Simple Card"
    version = 1
    config_class = SimpleCardConfig
    simultaneous_phases = frozenset({"play"})
    #: The hand stays hidden; played cards show once both have played (the round result).
    secret_fields = frozenset({"hand"})
    config: SimpleCardConfig

    def _start_match(self) -> None:
        """Shuffle and deal both hands."""
        cfg = self.config
        deck = [c for c in range(1, cfg.max_card + 1) for _ in range(cfg.copies)]
        self.rng.shuffle(deck)
        self.hands = {
            p: sorted(deck[i * cfg.hand_size : (i + 1) * cfg.hand_size])
            for i, p in enumerate(self.players)
        }

    def _start_round(self) -> None:
        self.pending: dict[str, int] = {}  # cards played this round, hidden until both played

    def _end_match(self) -> None:
        """Nothing is pending once the match is over."""
        self._start_round()

    def get_current_player(self) -> str:
        """Seat 0 then seat 1 each round; ``""`` when over."""
        if self.over:
            return ""
        return next(p for p in self.players if p not in self.pending)

    def get_public_state(self) -> dict[str, Any]:
        """Round, scores and the cards of finished rounds. Pending cards stay hidden."""
        return {
            "phase": "play" if not self.is_over() else "over",
            "round": self.get_round(),
            "turn": len(self.pending) + 1,
            "pot": 1,
            "scores": dict(self.scores),
            "messages": [],
            "played": [dict(r) for r in self.finished],
        }

    def get_private_state(self, player_id: str) -> dict[str, Any]:
        """The player's hand and their history of finished rounds."""
        opponent = self.opponent_of(player_id)
        history = [_round_view(r, player_id, opponent) for r in self.finished]
        return {"player_id": player_id, "hand": list(self.hands[player_id]), "history": history}

    def get_available_actions(self) -> list[Action]:
        """One ``play_card`` per distinct card in hand."""
        player = self.get_current_player()
        if not player:
            return []
        return [{"action_type": "play_card", "card": c} for c in sorted(set(self.hands[player]))]

    def step(self, action: Action) -> tuple[dict[str, Any], bool]:
        """Play a card; when both have played, score the round."""
        player = self.get_current_player()
        if not player:
            raise IllegalActionError("the game is over")
        if action.get("action_type") != "play_card":
            raise IllegalActionError("the only action is play_card")
        card = action.get("card")
        if card not in self.hands[player]:
            raise IllegalActionError(f"card {card!r} is not in your hand {self.hands[player]}")
        self.hands[player].remove(card)
        self.pending[player] = card
        info: dict[str, Any] = {"player": player, "action": dict(action)}
        if len(self.pending) == len(self.players):
            info["round_result"] = self._score_round()
        return info, self.is_over()

    def _score_round(self) -> dict[str, dict[str, Any]]:
        a, b = self.players
        points = {a: 0, b: 0}
        if self.pending[a] != self.pending[b]:
            points[a if self.pending[a] > self.pending[b] else b] = 1
        entry = {"round": self.round, "cards": dict(self.pending), "points": points}
        return self._finish_round(points, entry, lambda p, o: _round_view(entry, p, o))


def _round_view(entry: dict[str, Any], viewer: str, opponent: str) -> dict[str, Any]:
    """A finished round from ``viewer``'s side: both cards and both points."""
    return {
        "round": entry["round"],
        **your_and_opponent(viewer, opponent, card=entry["cards"], points=entry["points"]),
    }
