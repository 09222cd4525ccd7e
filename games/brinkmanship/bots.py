"""House bots for brinkmanship, from trivial to strong.

* ``always-yield`` and ``always-stand``: the two pure strategies.
* ``equilibrium``: stands with the symmetric equilibrium probability of each escalation level,
  found by backward induction over the hidden threshold (about 3 in 4 at L = 0).
* ``tit-for-tat``: yields in the first crisis, then opens each crisis with what the opponent
  opened the previous one with.
* ``grudger``: yields until the opponent stands once, then stands for the rest of the match.
* ``reputation``: plays for points, since the ladder ranks brinkmanship by mean payoff per match
  (a ladder of wins would crown ``always-stand``, which never falls behind). It keeps the peace
  with a peaceful opponent (standing only in the last crisis, which has no future to protect);
  once the opponent has stood it counts how often it stood at each level and best-responds by
  backward induction, yielding to a stander rather than sharing a war.

With retaliators in the field ``always-stand`` earns little (every crisis with them ends in war):
``arena strength --game brinkmanship`` ranks ``reputation`` first and ``always-stand`` fourth.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Payoffs:
    """The numbers a strategy needs; defaults are those of ``rules.md``."""

    pot: float = 100.0
    escalation_cost: float = 10.0
    war_penalty: float = 100.0
    max_threshold: int = 5

    @classmethod
    def from_match_info(cls, match_info: dict[str, Any]) -> Payoffs:
        """Read the match's config (``match_info["config"]``), falling back to the defaults."""
        cfg = match_info.get("config") or {}
        return cls(
            pot=float(cfg.get("pot", 100)),
            escalation_cost=float(cfg.get("escalation_cost", 10)),
            war_penalty=float(cfg.get("war_penalty", 100)),
            max_threshold=int(cfg.get("max_threshold", 5)),
        )

    def war_chance(self, level: int) -> float:
        """P(war when both stand at ``level``), given no war has happened up to ``level``."""
        remaining = self.max_threshold - level
        return 1.0 if remaining <= 1 else 1.0 / remaining


def best_response_values(payoffs: Payoffs, stand_chance: list[float]) -> list[tuple[float, float]]:
    """(EV of standing, EV of yielding) at each level against an opponent who stands at level L
    with ``stand_chance[L]``, playing the best response at every later level."""
    p_half, cost, war = payoffs.pot / 2, payoffs.escalation_cost, payoffs.war_penalty
    values: list[tuple[float, float]] = [(0.0, 0.0)] * payoffs.max_threshold
    after = 0.0  # value of reaching the next level
    for level in range(payoffs.max_threshold - 1, -1, -1):
        p = stand_chance[level]
        pw = payoffs.war_chance(level)
        both_stand = pw * -war + (1 - pw) * after
        stand = p * both_stand + (1 - p) * (payoffs.pot - cost * level)
        yield_ = p * -cost * level + (1 - p) * (p_half - cost * level)
        values[level] = (stand, yield_)
        after = max(stand, yield_)
    return values


def equilibrium_stand_chances(payoffs: Payoffs) -> list[float]:
    """The symmetric equilibrium's P(stand) at each level, by backward induction."""
    p_half, cost, war = payoffs.pot / 2, payoffs.escalation_cost, payoffs.war_penalty
    chances = [0.0] * payoffs.max_threshold
    after = 0.0
    for level in range(payoffs.max_threshold - 1, -1, -1):
        pw = payoffs.war_chance(level)
        both_stand = pw * -war + (1 - pw) * after
        gap = p_half - both_stand - cost * level
        if gap <= p_half:  # standing dominates: stand against a stander is no worse
            q, value = 1.0, both_stand
        else:
            q = p_half / gap
            value = (1 - q) * p_half - cost * level
        chances[level] = q
        after = value
    return chances


class _Unwavering:
    """Says ``line`` whenever it negotiates, then commits ``choice``, every time."""

    GAME = "brinkmanship"
    line: str
    choice: str

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        """The line, then the choice."""
        if state["phase"] == "negotiate":
            return {"type": "message", "text": self.line}
        return {"type": "commit", "choice": self.choice}


class AlwaysYieldBot(_Unwavering):
    """Backs down at once, every time: proposes peace, then yields."""

    line = "Let us both step back from the brink."
    choice = "yield"


class AlwaysStandBot(_Unwavering):
    """Never backs down: threatens, then stands."""

    line = "I will never back down. Yield now."
    choice = "stand"


class EquilibriumBot:
    """Stands with the equilibrium probability of the current level (seeded, so replayable)."""

    GAME = "brinkmanship"

    def __init__(self) -> None:
        self.rng = random.Random(7)
        self.payoffs = Payoffs()
        self.chances = equilibrium_stand_chances(self.payoffs)
        self.total_rounds = 6

    def on_match_start(self, match_info: dict[str, Any]) -> None:
        """Take the payoffs and the number of crises from the match's config."""
        self.payoffs = Payoffs.from_match_info(match_info)
        self.chances = equilibrium_stand_chances(self.payoffs)
        self.total_rounds = int(match_info.get("total_rounds", 6))

    def reseed(self, state: dict[str, Any]) -> None:
        """Seed from what this seat has seen (revealed thresholds, crisis, step), so matches with
        different seeds differ while the same seed replays identically."""
        seen = [h["threshold"] for h in state["history"]]
        self.rng.seed(f"{seen}-{state['round']}-{state['step']}")

    def stand_chance(self, state: dict[str, Any]) -> float:
        """P(stand) at this state's level."""
        level = min(int(state["escalation_level"]), len(self.chances) - 1)
        return self.chances[level]

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        """A neutral message, then a mixed choice."""
        if state["phase"] == "negotiate":
            return {"type": "message", "text": "Neither of us wants a war. Think carefully."}
        self.reseed(state)
        stand = self.rng.random() < self.stand_chance(state)
        return {"type": "commit", "choice": "stand" if stand else "yield"}


class TitForTatBot:
    """Yields in the first crisis; in each later one does what the opponent did first last time."""

    GAME = "brinkmanship"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        """Announce the rule, then mirror the opponent's first choice of the previous crisis."""
        previous = state["history"][-1]["opponent_choices"][:1] if state["history"] else []
        choice = "stand" if previous == ["stand"] else "yield"
        if state["phase"] == "negotiate":
            return {
                "type": "message",
                "text": f"You chose {previous[0]} last time; so do I."
                if previous
                else "I do to you what you do to me.",
            }
        return {"type": "commit", "choice": choice}


class GrudgerBot:
    """Yields until the opponent stands once, then stands for the rest of the match."""

    GAME = "brinkmanship"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        """Warn, then yield while the opponent never stood; stand forever after."""
        crises = [h["opponent_choices"] for h in state["history"]]
        crises.append(state.get("opponent_choices", []))
        wronged = any("stand" in choices for choices in crises)
        if state["phase"] == "negotiate":
            text = (
                "You stood against me. Now I stand."
                if wronged
                else "Stand once and I never yield again."
            )
            return {"type": "message", "text": text}
        return {"type": "commit", "choice": "stand" if wronged else "yield"}


class ReputationBot(EquilibriumBot):
    """Plays for points against what the opponent has shown, and keeps the peace with the peaceful.

    The ladder ranks brinkmanship by mean payoff per match, so this bot maximises its own points:

    * it opens the match by yielding (a retaliator, met with a stand, would stand for good);
    * against an opponent that has yielded at the first step of every crisis it yields too (50
      each beats a war started by a grudge), until the last crisis, which has no future to protect:
      there it stands;
    * once the opponent has stood, it counts how often the opponent stood at each level (a prior
      of the equilibrium) and plays the best response by backward induction: it yields to a
      stander instead of sharing a war, and stands against a bluffer who backs down later.
    """

    #: Pseudo-observations of the equilibrium prior at each level.
    PRIOR_WEIGHT = 1.0

    def estimate(self, state: dict[str, Any]) -> list[float]:
        """The opponent's estimated P(stand) at each level."""
        stands = [q * self.PRIOR_WEIGHT for q in self.chances]
        seen = [self.PRIOR_WEIGHT] * len(self.chances)
        for choices in self._opponent_crises(state):
            for level, choice in enumerate(choices[: len(seen)]):
                seen[level] += 1
                stands[level] += choice == "stand"
        return [s / n for s, n in zip(stands, seen, strict=True)]

    @staticmethod
    def _opponent_crises(state: dict[str, Any]) -> list[list[str]]:
        crises = [list(h["opponent_choices"]) for h in state["history"]]
        crises.append(list(state.get("opponent_choices", [])))
        return crises

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        """Say what it has seen, then play for points."""
        opponent = self._opponent_crises(state)
        peaceful = not any("stand" in choices for choices in opponent)
        if state["phase"] == "negotiate":
            past = [h["opponent_choices"][:1] for h in state["history"]]
            yielded = sum(1 for c in past if c == ["yield"])
            text = (
                f"You yielded first in {yielded} of {len(past)} crises. I have noticed."
                if past
                else "I answer how you play. Yield and so will I."
            )
            return {"type": "message", "text": text}
        if peaceful:
            last_crisis = int(state["round"]) >= self.total_rounds
            return {"type": "commit", "choice": "stand" if last_crisis else "yield"}
        level = min(int(state["escalation_level"]), len(self.chances) - 1)
        stand, yield_ = best_response_values(self.payoffs, self.estimate(state))[level]
        return {"type": "commit", "choice": "stand" if stand > yield_ else "yield"}


BOTS: dict[str, type] = {
    "always-yield": AlwaysYieldBot,
    "always-stand": AlwaysStandBot,
    "equilibrium": EquilibriumBot,
    "tit-for-tat": TitForTatBot,
    "grudger": GrudgerBot,
    "reputation": ReputationBot,
}
