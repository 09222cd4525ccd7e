"""House bots for Sealed-bid recruitment, from trivial to strong.

* ``spend-everything``: offers its whole remaining budget every round.
* ``proportional``: offers the share of its budget that the recruit's value is of the values
  still to come.
* ``shading``: models the opponent's offers from what they revealed (how much of their budget
  they put on how much of the remaining value), then plans the season: it picks the set of
  remaining recruits worth the most that its budget can buy at the predicted prices, and for the
  current recruit shades its offer to its own fit (a high fit needs less money) against the chance
  of the opponent's fit.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any


def _pitch(state: dict[str, Any], line: str) -> dict[str, Any]:
    recruit = state["recruit"]
    text = (
        f"{recruit['name']}, {state['your_university']} wants you at {recruit['position']}. "
        f"We hear you care about {' and '.join(recruit['priorities'])}. {line}"
    )
    return {"type": "message", "text": text[:500]}


class SpendEverythingBot:
    """All in, every round."""

    GAME = "sealed-bid-recruitment"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        """Pitch, then offer the whole remaining budget."""
        if state["phase"] == "pitch":
            return _pitch(state, "Whatever they offer, we offer everything we have.")
        return {"type": "offer", "amount": int(state["your_budget"])}


class ProportionalBot:
    """Offers budget × value / (sum of the values still to come)."""

    GAME = "sealed-bid-recruitment"

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        """Pitch, then offer this recruit's share of the budget."""
        if state["phase"] == "pitch":
            return _pitch(state, "Our offer is fair and it is serious.")
        remaining = sum(state["remaining_values"]) or 1
        amount = int(state["your_budget"]) * int(state["pot"]) // remaining
        return {"type": "offer", "amount": amount}


class ShadingBot:
    """Plans the season against a model of the opponent, shading each offer to its fit."""

    GAME = "sealed-bid-recruitment"

    def __init__(self) -> None:
        self.budget = 300
        self.max_fit = 40

    def on_match_start(self, match_info: dict[str, Any]) -> None:
        """Read the budget and the fit range from the match's config."""
        self.budget = int(match_info.get("budget", 300))
        self.max_fit = int((match_info.get("config") or {}).get("max_fit", 40))

    # --- the opponent model -------------------------------------------------------------------

    def opponent_share(self, state: dict[str, Any]) -> tuple[float, bool]:
        """(how many times its value-share of budget the opponent offers, whether it goes all in),
        from the rounds played so far; (1.0, False) before any evidence."""
        values = state["recruit_values"]
        opponent_budget = self.budget
        ratios, all_in = [], True
        for past in state["history"]:
            index = past["round"] - 1
            share = past["value"] / (sum(values[index:]) or 1)
            offer = past["opponent_offer"]
            if opponent_budget > 0:
                ratios.append(offer / (opponent_budget * share))
                all_in = all_in and offer >= opponent_budget
            opponent_budget = past["opponent_budget"]
        if not ratios:
            return 1.0, False
        return sum(ratios) / len(ratios), all_in

    def predicted_offers(self, state: dict[str, Any]) -> list[float]:
        """The opponent's predicted offer for each remaining recruit, at today's budget."""
        factor, all_in = self.opponent_share(state)
        budget = float(state["opponent_budget"])
        remaining = state["remaining_values"]
        if all_in:
            return [budget] + [0.0] * (len(remaining) - 1)  # it will have nothing left after
        out = []
        for i, value in enumerate(remaining):
            share = value / (sum(remaining[i:]) or 1)
            out.append(min(budget, factor * budget * share))
        return out

    # --- the plan -----------------------------------------------------------------------------

    def season_value(self, budget: float, values: list[int], prices: list[float]) -> int:
        """The most value ``budget`` buys among future recruits at ``prices`` (a small knapsack)."""
        best = 0
        items = list(zip(values, prices, strict=True))
        for size in range(1, len(items) + 1):
            for combo in combinations(items, size):
                if sum(p for _, p in combo) <= budget:
                    best = max(best, sum(v for v, _ in combo))
        return best

    def choose_offer(self, state: dict[str, Any]) -> int:
        """The offer that maximises this recruit's expected value plus the rest of the season's."""
        budget = int(state["your_budget"])
        fit = int(state["your_fit"])
        value = int(state["pot"])
        predicted = self.predicted_offers(state)
        future_values = list(state["remaining_values"][1:])
        # A future recruit costs its predicted offer plus a margin for the unknown fits.
        future_prices = [p + self.max_fit / 2 + 1 for p in predicted[1:]]
        keep_all = self.season_value(budget, future_values, future_prices)
        best_amount, best_score = 0, float(keep_all)
        for margin in range(0, self.max_fit + 1, max(1, self.max_fit // 8)):
            # Beat every opponent fit up to ``margin``: P(win) ≈ (margin + 1) / (max_fit + 1).
            amount = int(min(budget, max(0.0, predicted[0] + margin - fit + 1)))
            opp_fit_beaten = min(self.max_fit, amount + fit - predicted[0] - 1)
            win = max(0.0, min(1.0, (opp_fit_beaten + 1) / (self.max_fit + 1)))
            after = self.season_value(budget - amount, future_values, future_prices)
            score = win * (value + after) + (1 - win) * keep_all
            if score > best_score:
                best_amount, best_score = amount, score
        return best_amount

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        """Pitch by fit; offer what the season plan says."""
        if state["phase"] == "pitch":
            fit = int(state["your_fit"])
            line = (
                "Our system was built for a player like you."
                if fit >= self.max_fit // 2
                else "We will make room for you."
            )
            return _pitch(state, line)
        return {"type": "offer", "amount": self.choose_offer(state)}


BOTS: dict[str, type] = {
    "spend-everything": SpendEverythingBot,
    "proportional": ProportionalBot,
    "shading": ShadingBot,
}
