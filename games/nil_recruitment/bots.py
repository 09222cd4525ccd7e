"""House bots for NIL Recruitment.

* ``brief``: one short, generic line a phase; the floor of the ladder.
* ``boastful``: recites its university's record (titles, alumni, stadium), whatever the athlete
  asked.
* ``tailored``: speaks to the athlete's priorities and concerns in order, and answers the
  athlete's last question in its own words first.
"""

from __future__ import annotations

from typing import Any


class _Recruiter:
    GAME = "nil-recruitment"

    def __init__(self) -> None:
        self.university: dict[str, Any] = {}
        self.athlete: dict[str, Any] = {}

    def on_round_start(self, round_info: dict[str, Any]) -> None:
        state = round_info.get("game_state") or {}
        self.university = state.get("your_university") or {}
        self.athlete = state.get("athlete_profile") or {}

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        self.university = state.get("your_university") or self.university
        self.athlete = state.get("athlete_profile") or self.athlete
        asked = [m["text"] for m in state.get("messages", []) if m.get("author") == "athlete"]
        text = self.pitch(str(state.get("phase")), asked[-1] if asked else "")
        return {"type": "pitch", "text": text}

    def pitch(self, phase: str, question: str) -> str:
        raise NotImplementedError


class Brief(_Recruiter):
    """A line a phase."""

    def pitch(self, phase: str, question: str) -> str:
        return f"{self.university.get('name', 'We')} wants you. Come play for us."


class Boastful(_Recruiter):
    """The record, loudly."""

    def pitch(self, phase: str, question: str) -> str:
        u = self.university
        alumni = ", ".join(u.get("notable_nfl_alumni", [])) or "many pros"
        return (
            f"{u.get('full_name')} has {u.get('national_championships', 0)} national titles, "
            f"{u.get('heisman_winners', 0)} Heisman winners and sent {alumni} to the NFL. "
            f"{u.get('stadium')} holds {u.get('stadium_capacity', 0):,} fans every Saturday."
        )


class Tailored(_Recruiter):
    """The athlete's own priorities and concerns, one by one."""

    def __init__(self) -> None:
        super().__init__()
        self.said = 0

    def on_round_start(self, round_info: dict[str, Any]) -> None:
        super().on_round_start(round_info)
        self.said = 0

    def pitch(self, phase: str, question: str) -> str:
        a, u = self.athlete, self.university
        first = str(a.get("name", "friend")).split()[0]
        priorities = a.get("priorities") or ["your future"]
        concerns = a.get("concerns") or ["the move"]
        strengths = u.get("strengths") or ["our program"]
        self.said += 1
        priority = priorities[(self.said - 1) % len(priorities)]
        concern = concerns[(self.said - 1) % len(concerns)]
        strength = strengths[(self.said - 1) % len(strengths)]
        if phase == "introduction":
            return (
                f"{first}, at {u.get('full_name')} we recruit {a.get('position')}s for "
                f"{priority}, and our {strength} is built for exactly that."
            )
        if phase == "closing":
            return (
                f"{first}, you told us what matters: {'; '.join(priorities)}. "
                f"{u.get('name')} answers each one, and we will handle {concern} with you."
            )
        answer = f"On your question ({question[:120]}): " if question else ""
        return (
            f"{answer}{first}, about {concern}: our staff plans for it from day one. "
            f"And for {priority}, our {strength} gives you a real edge."
        )


BOTS: dict[str, type] = {"brief": Brief, "boastful": Boastful, "tailored": Tailored}
