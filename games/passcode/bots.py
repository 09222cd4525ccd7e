"""House bots for Passcode. The keeper's words are public (``rules.md``), so a bot can narrow
them down.

* ``blurter``: guesses a word at random at once (a wrong guess locks it out).
* ``asker``: asks about length and letters, keeps the words that fit, guesses when one is left
  or on the last cycle.
* ``halver``: asks "Is the word one of: ...?" with half the words that still fit, and guesses
  once one is left; the strongest when the keeper answers well.
"""

from __future__ import annotations

import random
from typing import Any

from games.passcode.game import WORDS
from games.passcode.keeper import answer as rule_answer


class _Player:
    GAME = "passcode"

    def __init__(self) -> None:
        self.rng = random.Random(7)
        self.candidates = list(WORDS)
        self.seen = 0

    def on_round_start(self, round_info: dict[str, Any]) -> None:
        self.candidates = list(WORDS)
        self.seen = 0

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        history = state.get("your_qa_history") or []
        for qa in history[self.seen :]:
            self.learn(str(qa.get("question", "")), str(qa.get("answer", "")))
        self.seen = len(history)
        if state.get("phase") == "asking":
            return self.ask(state)
        return self.guess(state)

    def learn(self, question: str, answer: str) -> None:
        if answer not in ("yes", "no"):
            return
        kept = [w for w in self.candidates if rule_answer(w, question.lower()) == answer]
        self.candidates = kept or self.candidates

    def ask(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"type": "pass"}

    def guess(self, state: dict[str, Any]) -> dict[str, Any]:
        last = state.get("cycle") == state.get("cycle_limit")
        if len(self.candidates) == 1 or last:
            return {"type": "guess", "text": self.candidates[0]}
        return {"type": "pass"}


class Blurter(_Player):
    """A random word, at once."""

    def ask(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"action_type": "question", "text": "Is it an animal?"}

    def guess(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"action_type": "guess", "text": self.rng.choice(self.candidates)}


class Asker(_Player):
    """Length, then letters."""

    def ask(self, state: dict[str, Any]) -> dict[str, Any]:
        cycle = int(state.get("cycle") or 1)
        if cycle == 1:
            return {"type": "question", "text": "Does the word have more than 6 letters?"}
        letters = "eaorinltsu"
        return {
            "type": "question",
            "text": f"Does the word contain the letter '{letters[cycle % 10]}'?",
        }


class Halver(_Player):
    """Half of what still fits, each cycle."""

    def ask(self, state: dict[str, Any]) -> dict[str, Any]:
        half = self.candidates[: max(1, len(self.candidates) // 2)]
        return {"type": "question", "text": "Is the word one of: " + ", ".join(half) + "?"}


BOTS: dict[str, type] = {"blurter": Blurter, "asker": Asker, "halver": Halver}
