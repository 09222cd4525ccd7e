"""Heads-up no-limit Texas Hold'em as the arena plays it (``rules.md`` beside it).

A match is ``config.hands`` hands (rounds). Every hand starts with ``starting_stack`` chips each
(20,000; stacks reset each hand as in the ACPC standard game) and static blinds 50/100. The button
alternates every hand, posts the small blind and acts first before the flop; the big blind acts
first on the flop, turn and river.

Betting is "raise to": ``{"type": "raise", "amount": X}`` makes X this player's total on the
street. The minimum opening bet is the big blind; a raise must raise by at least the last bet or
raise on the street; all-in for less is always allowed (and an incomplete all-in raise does not
change the minimum raise increment). Showdowns are judged by treys; a tie returns each player's
own chips. With ``duplicate`` on, hands 2k+1 and 2k+2 deal the same cards to the same positions,
so each player holds both sets of cards once.

The score is net chips over the match. After the last illegal retry the referee folds the hand
(``on_retries_exhausted``), the rule for invalid bets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from treys import Card, Evaluator

from games.core import Action, Game, IllegalActionError
from games.core.figures import LadderFigure, Playthrough
from games.poker.config import PokerConfig

STREETS = ("preflop", "flop", "turn", "river")
BOARD_CARDS = {"preflop": 0, "flop": 3, "turn": 4, "river": 5}
RANKS = "23456789TJQKA"
SUITS = "shdc"
#: The 52 cards as treys spells them ("As", "Td", "2c"), in a fixed order before shuffling.
FULL_DECK = tuple(rank + suit for rank in RANKS for suit in SUITS)

_EVALUATOR = Evaluator()


@dataclass(frozen=True)
class Deal:
    """The cards of one hand, by position: the button's, the big blind's, and the board."""

    button_cards: tuple[str, str]
    big_blind_cards: tuple[str, str]
    board: tuple[str, str, str, str, str]


def hand_rank(hole: tuple[str, ...] | list[str], board: tuple[str, ...] | list[str]) -> int:
    """treys' rank of the best five of hole + board: lower is stronger (1 is a royal flush)."""
    return int(_EVALUATOR.evaluate([Card.new(c) for c in board], [Card.new(c) for c in hole]))


def hand_class(rank: int) -> str:
    """The class name of a treys rank, e.g. ``"Straight"``."""
    return str(_EVALUATOR.class_to_string(_EVALUATOR.get_rank_class(rank)))


class PokerGame(Game):
    """Two players, ``config.hands`` hands of heads-up no-limit hold'em."""

    game_type = "poker"
    #: Short matches where a full one would make a file of megabytes.
    playthroughs = (
        Playthrough(("hand-strength", "raise-happy"), 1, {"hands": 6}),
        Playthrough(("always-call", "hand-strength"), 2, {"hands": 6}),
    )
    order = 80
    ladder_figures = (
        LadderFigure(
            "bb_per_100",
            "BB/100",
            "big blinds won per 100 hands, the mean over its rated matches",
        ),
    )
    title = "Heads-Up No-Limit Texas Hold'em"
    #: 2: ``call`` with nothing owed checks, ``all_in`` with raising closed calls, an explicit
    #: call amount must equal what is owed, and ``round_result.pot`` is the contested pot (the
    #: uncalled chips returned are reported apart, in ``returned``).
    version = 2
    config_class = PokerConfig
    config: PokerConfig

    @classmethod
    def public_payload(
        cls, method: str, payload: Mapping[str, Any], revealed: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """Hole cards only of hands shown down: in the state of a hand in play (once it has
        ended at a showdown), in every finished hand of ``history`` and in a hand's result."""
        view = super().public_payload(method, payload, revealed)
        if method == "on_round_end":
            return dict(_public_hand(view))
        if "your_cards" in view and not (revealed is not None and revealed.get("showdown")):
            view["your_cards"] = None
        if isinstance(view.get("history"), list):
            view["history"] = [_public_hand(hand) for hand in view["history"]]
        return view

    def reset(self, seed: int) -> None:
        """Shuffle with ``seed`` and start hand 1."""
        self.rng.seed(seed)
        self.scores: dict[str, int] = dict.fromkeys(self.players, 0)
        self.finished: list[dict[str, Any]] = []  # one public record per finished hand
        self._over = False
        self._shuffled_for = -1
        self._deck: list[str] = []
        self._dealt: dict[int, dict[str, tuple[str, str]]] = {}
        self._start_hand(1)

    # --- dealing ------------------------------------------------------------------------------

    def deal(self, hand_number: int) -> Deal:
        """The cards of ``hand_number``: a fresh shuffle, or the pair's shuffle when duplicate."""
        key = (hand_number - 1) // 2 if self.config.duplicate else hand_number - 1
        if key != self._shuffled_for:
            self._deck = list(FULL_DECK)
            self.rng.shuffle(self._deck)
            self._shuffled_for = key
        d = self._deck
        return Deal((d[0], d[1]), (d[2], d[3]), (d[4], d[5], d[6], d[7], d[8]))

    def _start_hand(self, number: int) -> None:
        cfg = self.config
        self.hand_number = number
        self.button = self.players[(number - 1) % 2]
        self.big_blind_player = self.opponent_of(self.button)
        deal = self.deal(number)
        self.hole = {self.button: deal.button_cards, self.big_blind_player: deal.big_blind_cards}
        self._dealt[number] = dict(self.hole)  # each player's own cards, for their history
        self.full_board = deal.board
        self.street = "preflop"
        self.stacks = dict.fromkeys(self.players, cfg.starting_stack)
        self.street_bets = dict.fromkeys(self.players, 0)
        self.contributed = dict.fromkeys(self.players, 0)
        self.actions: list[dict[str, Any]] = []
        self._put(self.button, cfg.small_blind)
        self._record(self.button, "small_blind", cfg.small_blind)
        self._put(self.big_blind_player, cfg.big_blind)
        self._record(self.big_blind_player, "big_blind", cfg.big_blind)
        self.current_bet = cfg.big_blind
        self.min_raise_increment = cfg.big_blind
        self.acted: set[str] = set()
        self.to_act = self.button

    def _put(self, player: str, chips: int) -> None:
        self.stacks[player] -= chips
        self.street_bets[player] += chips
        self.contributed[player] += chips

    def _record(self, player: str, kind: str, amount: int | None = None) -> None:
        entry: dict[str, Any] = {"player": player, "street": self.street, "type": kind}
        if amount is not None:
            entry["amount"] = amount
        self.actions.append(entry)

    # --- the rules of betting -----------------------------------------------------------------

    def to_call(self, player: str) -> int:
        """Chips ``player`` must add to call (capped at their stack: a call for less)."""
        return min(max(0, self.current_bet - self.street_bets[player]), self.stacks[player])

    def can_raise(self, player: str) -> bool:
        """Whether ``player`` may bet or raise: chips beyond a call, and an opponent with chips."""
        return (
            self.stacks[player] > self.to_call(player) and self.stacks[self.opponent_of(player)] > 0
        )

    def max_raise_to(self, player: str) -> int:
        """The largest "raise to" for ``player``: everything in (all-in)."""
        return self.street_bets[player] + self.stacks[player]

    def min_raise_to(self, player: str) -> int:
        """The smallest full bet or raise: the current bet plus the last increment (or the big
        blind); an all-in for less is allowed on top of this, see ``step``."""
        return min(self.current_bet + self.min_raise_increment, self.max_raise_to(player))

    def limits(self, player: str) -> dict[str, int | None]:
        """``to_call``, ``min_raise_to``, ``max_raise_to`` (``None`` when raising is closed)."""
        raising = self.can_raise(player)
        return {
            "to_call": self.to_call(player),
            "min_raise_to": self.min_raise_to(player) if raising else None,
            "max_raise_to": self.max_raise_to(player) if raising else None,
        }

    def _range_text(self, player: str) -> str:
        if not self.can_raise(player):
            return "raising is closed (the opponent is all-in or you cannot add beyond a call)"
        low, high = self.min_raise_to(player), self.max_raise_to(player)
        if low == high:
            return f"the only raise is all-in to {high}"
        return f"the legal range is raise to {low}..{high} ({high} is all-in)"

    # --- Game API -----------------------------------------------------------------------------

    @property
    def total_rounds(self) -> int:
        """``config.hands``."""
        return self.config.hands

    def get_round(self) -> int:
        """The current hand, 1-based (the last one once over)."""
        return min(self.hand_number, self.config.hands)

    def get_current_player(self) -> str:
        """The player to act; ``""`` once the match is over."""
        return "" if self._over else self.to_act

    def get_public_state(self) -> dict[str, Any]:
        """Stacks, bets, the board so far, this hand's actions; hole cards only once shown."""
        return {
            "phase": "over" if self._over else self.street,
            "round": self.get_round(),
            "turn": sum(1 for a in self.actions if a["type"] not in ("small_blind", "big_blind"))
            + 1,
            "pot": sum(self.contributed.values()),
            "scores": {p: float(s) for p, s in self.scores.items()},
            "messages": [],
            "hand": self.hand_number,
            "button": self.button,
            "street": self.street,
            "board": list(self.full_board[: BOARD_CARDS[self.street]]),
            "stacks": dict(self.stacks),
            "street_bets": dict(self.street_bets),
            "current_bet": self.current_bet,
            "limits": {p: self.limits(p) for p in self.players},
            "actions": [dict(a) for a in self.actions],
            "small_blind": self.config.small_blind,
            "big_blind": self.config.big_blind,
            "hands": [dict(h) for h in self.finished],
        }

    def get_private_state(self, player_id: str) -> dict[str, Any]:
        """The seat's hole cards and its history of finished hands."""
        return {
            "player_id": player_id,
            "your_cards": list(self.hole[player_id]),
            # Without each hand's action list: 100 hands of it made every call ~120 KB. The full
            # entry, actions included, reaches the agent once, in on_round_end.
            "history": [self._hand_entry(h, player_id, with_actions=False) for h in self.finished],
        }

    def get_available_actions(self) -> list[Action]:
        """fold; check or call; and, while raising is open, a raise template and all-in."""
        if self._over:
            return []
        player = self.to_act
        owed = self.to_call(player)
        actions: list[Action] = [{"action_type": "fold"}]
        if owed == 0:
            actions.append({"action_type": "check"})
        else:
            actions.append({"action_type": "call", "amount": owed})
        if self.can_raise(player):
            actions.append(
                {
                    "action_type": "raise",
                    "min": self.min_raise_to(player),
                    "max": self.max_raise_to(player),
                }
            )
            actions.append({"action_type": "all_in", "amount": self.max_raise_to(player)})
        return actions

    def step(self, action: Action) -> tuple[dict[str, Any], bool]:
        """Apply one betting action; finish the street, the hand and the match as they end."""
        if self._over:
            raise IllegalActionError("the match is over")
        player = self.to_act
        owed = self.to_call(player)
        kind = self.normalized_type(player, action)
        if kind == "fold":
            self._record(player, "fold")
            result = self._finish_hand(winner=self.opponent_of(player), showdown=False)
            return {"player": player, "action": {"action_type": "fold"}, "round_result": result}, (
                self._over
            )
        if kind == "check":
            if owed:
                raise IllegalActionError(
                    f"you cannot check: you owe {owed} to call; call, fold, or raise "
                    f"({self._range_text(player)})"
                )
            self._record(player, "check")
        elif kind == "call":
            self._put(player, owed)
            self._record(player, "call", owed)
        elif kind in ("raise", "all_in"):
            if not self.can_raise(player):
                raise IllegalActionError(
                    f"you cannot raise now: {self._range_text(player)}; call or fold"
                )
            target = self.max_raise_to(player) if kind == "all_in" else self._raise_target(action)
            self._check_raise(player, target)
            increment = target - self.current_bet
            if increment >= self.min_raise_increment:
                self.min_raise_increment = increment  # a full raise sets the next minimum
            opening = self.current_bet == 0
            self.current_bet = target
            self._put(player, target - self.street_bets[player])
            self.acted = set()
            label = "all_in" if self.stacks[player] == 0 else "bet" if opening else "raise"
            self._record(player, label, target)
        else:
            raise IllegalActionError(
                f"unknown poker action {kind!r}: use fold, check, call, raise (with amount, the "
                "total you put in on this street) or all_in"
            )
        self.acted.add(player)
        info: dict[str, Any] = {"player": player, "action": dict(self.actions[-1])}
        finished = self._advance()
        if finished is not None:
            info["round_result"] = finished
        return info, self._over

    def normalized_type(self, player: str, action: Action) -> str:
        """The action type ``step`` applies for ``player``: what a player would expect to work.

        ``call`` with nothing owed is a check; ``all_in`` while raising is closed is a call (or a
        check when nothing is owed). A ``call`` that names an amount must name exactly what is
        owed: an under-call is refused, with the amount owed in the reason.
        """
        kind = action.get("action_type")
        owed = self.to_call(player)
        if kind == "call":
            self.check_call_amount(player, action.get("amount"))
            return "call" if owed else "check"
        if kind == "all_in" and not self.can_raise(player):
            return "call" if owed else "check"
        return str(kind)

    def check_call_amount(self, player: str, amount: Any) -> None:
        """Refuse a call whose explicit ``amount`` is not what ``player`` owes (``None``: fine)."""
        if amount is None:
            return
        owed = self.to_call(player)
        if isinstance(amount, float) and amount.is_integer():
            amount = int(amount)
        if isinstance(amount, int) and not isinstance(amount, bool) and amount == owed:
            return
        what = f"you owe {owed} to call" if owed else "you owe nothing: check"
        raise IllegalActionError(
            f'call amount {amount!r} is not what you owe: {what}. Send {{"type": "call"}} '
            f"without an amount to call {owed}, or fold, or raise ({self._range_text(player)})"
        )

    def _raise_target(self, action: Action) -> int:
        amount = action.get("amount")
        if isinstance(amount, float) and amount.is_integer():
            amount = int(amount)
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise IllegalActionError(
                f'a raise needs "amount": a whole number of chips, the total you put in on this '
                f"street (raise to); got {amount!r}; {self._range_text(self.to_act)}"
            )
        return amount

    def _check_raise(self, player: str, target: int) -> None:
        high = self.max_raise_to(player)
        low = self.min_raise_to(player)
        if target > high:
            raise IllegalActionError(
                f"raise to {target} is more than you have: {self._range_text(player)}"
            )
        if target < low and target != high:
            what = (
                f"the minimum bet is the big blind, {self.config.big_blind}"
                if self.current_bet == 0
                else f"a raise must add at least {self.min_raise_increment} (the last bet or "
                f"raise on this street) to the current bet of {self.current_bet}"
            )
            raise IllegalActionError(
                f"raise to {target} is too small: {what}; {self._range_text(player)}"
            )

    def _advance(self) -> dict[str, dict[str, Any]] | None:
        """Pass the turn, or close the street; returns the round result if the hand ended."""
        waiting = [
            p
            for p in self.players
            if self.stacks[p] > 0
            and (p not in self.acted or self.street_bets[p] < self.current_bet)
        ]
        if waiting:
            self.to_act = waiting[0]  # the player who just acted never waits on themselves
            return None
        someone_all_in = any(self.stacks[p] == 0 for p in self.players)
        if someone_all_in or self.street == "river":
            self.street = "river"  # run the board out
            return self._finish_hand(winner=None, showdown=True)
        self.street = STREETS[STREETS.index(self.street) + 1]
        self.street_bets = dict.fromkeys(self.players, 0)
        self.current_bet = 0
        self.min_raise_increment = self.config.big_blind
        self.acted = set()
        self.to_act = self.big_blind_player
        return None

    def _finish_hand(self, winner: str | None, showdown: bool) -> dict[str, dict[str, Any]]:
        a, b = self.players
        paid = self.contributed
        matched = min(paid[a], paid[b])  # chips beyond this were never called: they go back
        ranks: dict[str, int] = {}
        if showdown:
            ranks = {p: hand_rank(self.hole[p], self.full_board) for p in self.players}
            if ranks[a] != ranks[b]:
                winner = a if ranks[a] < ranks[b] else b
        if winner is None:
            net = {a: 0, b: 0}  # a split pot returns each player's own chips
        else:
            loser = self.opponent_of(winner)
            net = {winner: matched if showdown else paid[loser], loser: 0}
            net[loser] = -net[winner]
        for p in self.players:
            self.scores[p] += net[p]
        # Chips beyond the matched amount were never called: they go back to whoever bet them
        # and are not part of the pot the hand was played for.
        returned = paid[a] + paid[b] - 2 * matched
        returned_to = None if not returned else a if paid[a] > paid[b] else b
        record: dict[str, Any] = {
            "hand": self.hand_number,
            "button": self.button,
            "showdown": showdown,
            "winner": winner,
            "net": net,
            "pot": 2 * matched,
            "returned": returned,
            "returned_to": returned_to,
            "board": list(self.full_board[: BOARD_CARDS[self.street]]),
            "cards": {p: list(self.hole[p]) for p in self.players} if showdown else None,
            "hand_classes": {p: hand_class(r) for p, r in ranks.items()} if showdown else None,
            "actions": [dict(x) for x in self.actions],
        }
        self.finished.append(record)
        result = {p: self._hand_entry(record, p) for p in self.players}
        if self.hand_number >= self.config.hands:
            self._over = True
        else:
            self._start_hand(self.hand_number + 1)
        return result

    def _hand_entry(
        self, record: dict[str, Any], player: str, *, with_actions: bool = True
    ) -> dict[str, Any]:
        """A finished hand from ``player``'s point of view (round_result; history without the
        action list)."""
        opponent = self.opponent_of(player)
        net = record["net"]
        winner = record["winner"]
        shown = record["cards"]
        classes = record["hand_classes"]
        entry = {
            "round": record["hand"],
            "your_points": net[player],
            "opponent_points": net[opponent],
            "result": "split" if winner is None else "win" if winner == player else "loss",
            "showdown": record["showdown"],
            "button": "you" if record["button"] == player else "opponent",
            "your_cards": list(self._dealt[record["hand"]][player]),
            "opponent_cards": list(shown[opponent]) if shown else None,
            "your_hand": classes[player] if classes else None,
            "opponent_hand": classes[opponent] if classes else None,
            "board": list(record["board"]),
            "pot": record["pot"],
            "returned": record["returned"],
            "returned_to": None
            if record["returned_to"] is None
            else "you"
            if record["returned_to"] == player
            else "opponent",
            "your_stack": self.config.starting_stack + net[player],
            "opponent_stack": self.config.starting_stack + net[opponent],
        }
        if with_actions:
            entry["actions"] = [
                {**a, "player": "you" if a["player"] == player else "opponent"}
                for a in record["actions"]
            ]
        return entry

    def get_scores(self) -> dict[str, float]:
        """Net chips over the match."""
        return {p: float(s) for p, s in self.scores.items()}

    def get_match_stats(self) -> dict[str, Any]:
        """BB/100 per seat (in ``self.players`` order) and the number of hands played."""
        hands = len(self.finished)
        per_100 = [
            round(self.scores[p] / self.config.big_blind / hands * 100, 2) if hands else 0.0
            for p in self.players
        ]
        return {"bb_per_100": per_100, "hands_played": hands}

    def on_retries_exhausted(self, player_id: str) -> Action | None:
        """Seed 003: repeated invalid bets fold the hand (a timeout still forfeits the match)."""
        return {"action_type": "fold"}


def _public_hand(hand: Any) -> Any:
    """A finished hand as a spectator saw it: the seat's hole cards only if shown down."""
    if isinstance(hand, Mapping) and not hand.get("showdown"):
        return {**hand, "your_cards": None} if "your_cards" in hand else dict(hand)
    return hand
