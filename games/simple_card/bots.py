"""House bots for simple-card, from trivial to strong.

* ``random``, ``highest``, ``lowest``: one-line policies.
* ``counter``: counts cards and reads its opponent. It knows the deck, so every hand the opponent
  might hold is weighed exactly (how many ways the deal could give it), together with the
  opponent's habit: which of its remaining cards, by rank, it plays each round (highest first,
  lowest first, middle first, …) or any card at random; the cards the opponent has shown update
  both. It then plays the card that starts the order of its remaining cards with the
  best expected match result (win 1, draw 0, loss -1; ties broken by expected rounds won).
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, permutations, product
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


#: A habit is the position, in its remaining cards sorted low to high, of the card a player plays
#: at each round: ``(2, 1, 0)`` is highest first, ``(0, 0, 0)`` lowest first. ``None`` is a player
#: who picks any remaining card at random. Hands above this size weigh only the common habits.
MAX_HAND_FOR_EVERY_HABIT = 4
#: Prior weight of a common habit (highest first, lowest first, middle first then highest), of
#: any other fixed habit, and of random play. Measured against the house bots: with every habit
#: equally likely the counter lost to lowest-first; weighing the habits people write most wins
#: against each of them.
COMMON_HABIT_WEIGHT = 3.0
OTHER_HABIT_WEIGHT = 1.0
RANDOM_HABIT_WEIGHT = 1.0

Habit = tuple[int, ...] | None


def common_habits(hand_size: int) -> list[tuple[int, ...]]:
    """Highest first, lowest first, and middle first then highest down."""
    highest = tuple(range(hand_size - 1, -1, -1))
    lowest = (0,) * hand_size
    middle = (hand_size // 2, *range(hand_size - 2, -1, -1))
    return list(dict.fromkeys([highest, lowest, middle]))


def habits(hand_size: int) -> list[Habit]:
    """Every habit the counter considers for a hand of ``hand_size`` cards."""
    fixed: list[tuple[int, ...]] = common_habits(hand_size)
    if hand_size <= MAX_HAND_FOR_EVERY_HABIT:
        every = product(*(range(n) for n in range(hand_size, 0, -1)))
        fixed += [h for h in every if h not in fixed]
    return [*fixed, None]


def habit_weight(habit: Habit, hand_size: int) -> float:
    """The prior weight of ``habit``."""
    if habit is None:
        return RANDOM_HABIT_WEIGHT
    return COMMON_HABIT_WEIGHT if habit in common_habits(hand_size) else OTHER_HABIT_WEIGHT


def _habit_sequences(habit: Habit, hand: list[int], played: int) -> list[tuple[int, ...]]:
    """Every order, equally likely, in which ``hand`` (after ``played`` rounds) is played."""
    if habit is None:
        return list(permutations(hand))
    left = sorted(hand)
    sequence = []
    for position in habit[played:]:
        sequence.append(left.pop(min(position, len(left) - 1)))
    return [tuple(sequence)]


def _habit_likelihood(habit: Habit, hand: tuple[int, ...], shown: list[int]) -> float:
    """P(the opponent played ``shown`` in that order | it held ``hand`` and has ``habit``)."""
    left = sorted(hand)
    chance = 1.0
    for step, card in enumerate(shown):
        if card not in left:
            return 0.0
        if habit is None:
            chance *= left.count(card) / len(left)
        elif left[min(habit[step], len(left) - 1)] != card:
            return 0.0
        left.remove(card)
    return chance


class CounterBot:
    """Counts the cards left in the deck and infers how the opponent plays (see the module)."""

    GAME = "simple-card"

    def __init__(self) -> None:
        self.max_card, self.copies, self.hand_size = 10, 2, 3

    def on_match_start(self, match_info: dict[str, Any]) -> None:
        """Take the deck and hand size from the match's config."""
        cfg = match_info.get("config") or {}
        self.max_card = int(cfg.get("max_card", 10))
        self.copies = int(cfg.get("copies", 2))
        self.hand_size = int(cfg.get("hand_size", 3))

    def opponent_hands(self, state: dict[str, Any]) -> Counter[tuple[int, ...]]:
        """Every hand the opponent may have been dealt, with the number of deals giving it."""
        mine = list(state["hand"]) + [h["your_card"] for h in state["history"]]
        pool = [c for c in range(1, self.max_card + 1) for _ in range(self.copies)]
        for card in mine:
            pool.remove(card)
        return Counter(
            tuple(sorted(pool[i] for i in picked))
            for picked in combinations(range(len(pool)), self.hand_size)
        )

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        """Play the first card of the best order of the remaining hand."""
        shown = [h["opponent_card"] for h in state["history"]]
        margin_so_far = sum(h["your_points"] - h["opponent_points"] for h in state["history"])
        futures: dict[tuple[int, ...], float] = {}  # opponent's next cards, weighted
        priors = {habit: habit_weight(habit, self.hand_size) for habit in habits(self.hand_size)}
        for hand, deals in self.opponent_hands(state).items():
            for habit, prior in priors.items():
                weight = prior * deals * _habit_likelihood(habit, hand, shown)
                if not weight:
                    continue
                left = list(hand)
                for card in shown:
                    left.remove(card)
                sequences = _habit_sequences(habit, left, len(shown))
                for sequence in sequences:
                    futures[sequence] = futures.get(sequence, 0.0) + weight / len(sequences)
        best: tuple[float, float, int] | None = None
        for order in set(permutations(state["hand"])):
            result, expected_rounds = 0.0, 0.0
            for sequence, weight in futures.items():
                margin = sum((a > b) - (a < b) for a, b in zip(order, sequence, strict=False))
                final = margin_so_far + margin
                result += weight * ((final > 0) - (final < 0))
                expected_rounds += weight * sum(
                    a > b for a, b in zip(order, sequence, strict=False)
                )
            # Deterministic tie-break: prefer keeping high cards (a lower first card).
            key = (result, expected_rounds, -order[0])
            if best is None or key > best:
                best = key
        assert best is not None
        return {"type": "play_card", "card": -best[2]}


BOTS: dict[str, type] = {
    "random": RandomBot,
    "highest": HighestBot,
    "lowest": LowestBot,
    "counter": CounterBot,
}
