"""Liar's dice (``rules.md`` beside it).

Each round is a full game: both players start with ``dice_per_player`` dice, 1s are wild and
bids name faces 2–6. A bid must raise the standing bid (a higher quantity, or the same quantity
and a higher face). A challenge reveals both hands: if the count of the face plus the 1s reaches
the quantity the challenger loses a die, otherwise the bidder does. Everyone re-rolls and the
loser of the challenge opens. The round ends when a player has no dice left; the other scores
the dice they still hold. Seat 0 opens round 1 and the opener alternates by round.
"""

from __future__ import annotations

from typing import Any

from games.core import Action, IllegalActionError
from games.core.figures import Playthrough
from games.core.game import RoundsGame
from games.liars_dice.config import LiarsDiceConfig

#: Faces a bid may name; 1s are wild and count towards every bid.
BID_FACES = (2, 3, 4, 5, 6)


def count_matching(dice: list[int], face: int) -> int:
    """How many of ``dice`` count towards a bid on ``face`` (the face itself plus wild 1s)."""
    return sum(1 for d in dice if d == face or d == 1)


def bid_raises(quantity: int, face: int, standing: tuple[int, int] | None) -> bool:
    """Whether ``quantity``×``face`` raises the standing ``(quantity, face)`` bid."""
    if standing is None:
        return True
    q, f = standing
    return quantity > q or (quantity == q and face > f)


class LiarsDiceGame(RoundsGame):
    """Two players bid on the dice under the cups; a challenge settles who loses a die."""

    game_type = "liars-dice"
    #: Short matches where a full one would make a file of megabytes.
    playthroughs = (
        Playthrough(("reader", "probability"), 1, {"rounds": 2}),
        Playthrough(("random", "reader"), 2, {"rounds": 2}),
    )
    order = 30
    title = "Liar's Dice"
    version = 1
    config_class = LiarsDiceConfig
    simultaneous_phases = frozenset()
    #: Dice are seen only as the reveals of a challenge show them.
    secret_fields = frozenset({"your_dice"})
    config: LiarsDiceConfig

    # --- round mechanics ----------------------------------------------------------------------

    def _start_round(self) -> None:
        self.turn = 1
        self.dice_count = dict.fromkeys(self.players, self.config.dice_per_player)
        self.reveals: list[dict[str, Any]] = []
        self.current = (self.round - 1) % 2  # seat 0 opens round 1, then the opener alternates
        self._roll()

    def _roll(self) -> None:
        self.hands = {
            p: sorted(self.rng.randint(1, 6) for _ in range(self.dice_count[p]))
            for p in self.players
        }
        self.bids: list[dict[str, Any]] = []  # the current bidding, ids as ``player``

    def _standing(self) -> tuple[int, int] | None:
        if not self.bids:
            return None
        last = self.bids[-1]
        return int(last["quantity"]), int(last["face"])

    @property
    def total_dice(self) -> int:
        """Dice in play, both hands together."""
        return sum(self.dice_count.values())

    # --- the Game contract --------------------------------------------------------------------

    def get_current_player(self) -> str:
        """Whoever bids or challenges next; ``""`` when the match is over."""
        return "" if self.over else self.players[self.current]

    def get_public_state(self) -> dict[str, Any]:
        """Dice counts, the bidding and this round's reveals; hands stay hidden till a challenge."""
        standing = self.bids[-1] if self.bids else None
        return {
            "phase": "over" if self.over else "bid",
            "round": self.get_round(),
            "turn": self.turn,
            "pot": self.config.dice_per_player,
            "scores": dict(self.scores),
            "messages": [],
            "dice_counts": dict(self.dice_count),
            "total_dice": self.total_dice,
            "current_bid": dict(standing) if standing else None,
            "bid_history": [dict(b) for b in self.bids],
            "reveals": [_copy_reveal(r) for r in self.reveals],
        }

    def get_private_state(self, player_id: str) -> dict[str, Any]:
        """The player's own dice and their history of finished rounds."""
        opponent = self.opponent_of(player_id)
        history = [
            {
                "round": r["round"],
                "winner": "you" if r["winner"] == player_id else "opponent",
                "your_points": r["points"][player_id],
                "opponent_points": r["points"][opponent],
                "challenges": len(r["reveals"]),
            }
            for r in self.finished
        ]
        return {
            "player_id": player_id,
            "dice": list(self.hands[player_id]),
            "history": history,
        }

    def get_available_actions(self) -> list[Action]:
        """Every bid that raises the standing bid, then ``challenge`` when there is one."""
        if self.over:
            return []
        standing = self._standing()
        actions: list[Action] = [
            {"action_type": "bid", "quantity": q, "face": f}
            for q in range(1, self.total_dice + 1)
            for f in BID_FACES
            if bid_raises(q, f, standing)
        ]
        if standing is not None:
            actions.append({"action_type": "challenge"})
        return actions

    def step(self, action: Action) -> tuple[dict[str, Any], bool]:
        """Apply a bid or a challenge for the current player."""
        if self.over:
            raise IllegalActionError("the match is over: no more bids or challenges")
        player = self.players[self.current]
        kind = action.get("action_type")
        info: dict[str, Any] = {"player": player, "action": dict(action)}
        if kind == "bid":
            self._bid(player, action.get("quantity"), action.get("face"))
        elif kind == "challenge":
            info.update(self._challenge(player))
        else:
            raise IllegalActionError(
                f"unknown action {kind!r}: liar's dice has 'bid' (with quantity and face) "
                "and 'challenge'"
            )
        return info, self.over

    def _bid(self, player: str, quantity: Any, face: Any) -> None:
        if not _is_int(quantity) or not _is_int(face):
            raise IllegalActionError(
                f"a bid needs whole numbers, got quantity={quantity!r} face={face!r}: "
                'write {"type": "bid", "quantity": 3, "face": 4}'
            )
        if face not in BID_FACES:
            raise IllegalActionError(
                f"face {face} cannot be bid: bids name faces 2–6 (1s are wild and count for "
                "every face)"
            )
        if not 1 <= quantity <= self.total_dice:
            raise IllegalActionError(
                f"quantity {quantity} is out of range: it must be 1 to {self.total_dice}, "
                "the dice in play"
            )
        standing = self._standing()
        if not bid_raises(quantity, face, standing):
            assert standing is not None
            q, f = standing
            raise IllegalActionError(
                f"bid {quantity}×{face} does not raise the standing bid {q}×{f}: raise the "
                "quantity, or keep it and name a higher face"
            )
        self.bids.append({"player": player, "quantity": quantity, "face": face})
        self.current = 1 - self.current
        self.turn += 1

    def _challenge(self, challenger: str) -> dict[str, Any]:
        if not self.bids:
            raise IllegalActionError(
                "there is no standing bid to challenge: open the bidding with a bid"
            )
        bid = self.bids[-1]
        bidder = str(bid["player"])
        count = sum(count_matching(hand, int(bid["face"])) for hand in self.hands.values())
        loser = challenger if count >= int(bid["quantity"]) else bidder
        self.reveals.append(
            {
                "bid": dict(bid),
                "challenger": challenger,
                "hands": {p: list(h) for p, h in self.hands.items()},
                "count": count,
                "loser": loser,
            }
        )
        self.dice_count[loser] -= 1
        self.turn += 1
        info: dict[str, Any] = {"challenge": _copy_reveal(self.reveals[-1])}
        if self.dice_count[loser] == 0:
            info["round_result"] = self._end_round(winner=self.opponent_of(loser))
        else:
            self._roll()
            self.current = self.players.index(loser)  # the loser of the challenge opens
        return info

    def _end_round(self, winner: str) -> dict[str, dict[str, Any]]:
        points = dict.fromkeys(self.players, 0)
        points[winner] = self.dice_count[winner]
        entry = {
            "round": self.round,
            "winner": winner,
            "points": dict(points),
            "dice_left": dict(self.dice_count),
            "reveals": [_copy_reveal(r) for r in self.reveals],
        }

        def view(p: str, o: str) -> dict[str, Any]:
            return {
                "round": self.round,
                "your_points": points[p],
                "opponent_points": points[o],
                "winner": "you" if winner == p else "opponent",
                "your_dice_left": self.dice_count[p],
                "opponent_dice_left": self.dice_count[o],
                "reveals": [reveal_for(r, p, o) for r in self.reveals],
            }

        return self._finish_round(points, entry, view)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _copy_reveal(reveal: dict[str, Any]) -> dict[str, Any]:
    out = dict(reveal)
    out["bid"] = dict(reveal["bid"])
    out["hands"] = {p: list(h) for p, h in reveal["hands"].items()}
    return out


def reveal_for(reveal: dict[str, Any], viewer: str, opponent: str) -> dict[str, Any]:
    """A challenge as ``viewer`` sees it: players named ``"you"``/``"opponent"``."""

    def name(pid: str) -> str:
        return "you" if pid == viewer else "opponent"

    bid = reveal["bid"]
    return {
        "bid": {"player": name(bid["player"]), "quantity": bid["quantity"], "face": bid["face"]},
        "challenger": name(reveal["challenger"]),
        "your_dice": list(reveal["hands"][viewer]),
        "opponent_dice": list(reveal["hands"][opponent]),
        "count": reveal["count"],
        "loser": name(reveal["loser"]),
    }
