"""House bots for Nuclear War.

* ``terse``: one short line for its side, every time.
* ``hawk``: argues force and credibility whatever its role asks (it says its side, then talks
  of strength), deaf to the president's questions.
* ``measured``: speaks to the president's priorities and key question in order, answers the
  president's last question first, and argues its own side of the crisis.
"""

from __future__ import annotations

from typing import Any


class _Advisor:
    GAME = "nuclear-war"

    def __init__(self) -> None:
        self.role = "anti_nuclear"
        self.country: dict[str, Any] = {}
        self.president: dict[str, Any] = {}

    def on_round_start(self, round_info: dict[str, Any]) -> None:
        state = round_info.get("game_state") or {}
        self.role = state.get("your_role", self.role)
        self.country = state.get("country") or {}
        self.president = state.get("president_profile") or {}

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        self.role = state.get("your_role", self.role)
        asked = [m["text"] for m in state.get("messages", []) if m.get("author") == "president"]
        text = self.argue(str(state.get("phase")), asked[-1] if asked else "")
        return {"action_type": "argument", "text": text}

    @property
    def for_strike(self) -> bool:
        return self.role == "pro_nuclear"

    def argue(self, phase: str, question: str) -> str:
        raise NotImplementedError


class Terse(_Advisor):
    """A line."""

    def argue(self, phase: str, question: str) -> str:
        return "Authorise the strike." if self.for_strike else "Do not authorise the strike."


class Hawk(_Advisor):
    """Strength, always."""

    def argue(self, phase: str, question: str) -> str:
        side = "Strike now." if self.for_strike else "Hold the strike, but show strength."
        return f"{side} Weakness invites attack; our credibility is on the line."


class Measured(_Advisor):
    """The president's own priorities, one by one."""

    def __init__(self) -> None:
        super().__init__()
        self.said = 0

    def on_round_start(self, round_info: dict[str, Any]) -> None:
        super().on_round_start(round_info)
        self.said = 0

    def argue(self, phase: str, question: str) -> str:
        p, c = self.president, self.country
        priorities = p.get("priorities") or ["our nation's security"]
        self.said += 1
        priority = priorities[(self.said - 1) % len(priorities)]
        crisis = c.get("scenario_name", "this crisis")
        if self.for_strike:
            case = (
                f"a limited strike now ends {crisis} before {c.get('time_pressure', 'long')} "
                f"runs out and protects {priority}"
            )
        else:
            case = (
                f"restraint keeps {crisis} from becoming a wider war; every conventional and "
                f"diplomatic option still serves {priority}"
            )
        answer = f"To your question ({question[:120]}): " if question else ""
        if phase == "closing":
            return f"{p.get('name', 'President')}, my recommendation stands: {case}."
        return f"{answer}{p.get('name', 'President')}, {case}. {c.get('stakes', '')}"


BOTS: dict[str, type] = {"terse": Terse, "hawk": Hawk, "measured": Measured}
