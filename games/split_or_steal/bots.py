"""House bots for split-or-steal, from trivial to the ones that read the opponent."""

from __future__ import annotations

import re
from typing import Any

GAME = "split-or-steal"


class _Base:
    """Talks with ``say`` and chooses with ``choose``; the protocol plumbing lives here."""

    GAME = GAME
    line = "Let's both split."

    def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
        if state["phase"] == "negotiate":
            return {"type": "message", "text": self.say(state)}
        return {"type": "commit", "choice": self.choose(state)}

    def say(self, state: dict[str, Any]) -> str:
        return self.line

    def choose(self, state: dict[str, Any]) -> str:
        raise NotImplementedError


class AlwaysSplit(_Base):
    """Always splits."""

    def choose(self, state: dict[str, Any]) -> str:
        return "split"


class AlwaysSteal(_Base):
    """Promises to split, always steals."""

    def choose(self, state: dict[str, Any]) -> str:
        return "steal"


class TitForTat(_Base):
    """Splits first, then does what the opponent did last round."""

    line = "I split with those who split with me."

    def choose(self, state: dict[str, Any]) -> str:
        history = state["history"]
        return history[-1]["opponent_choice"] if history else "split"


class Grudger(_Base):
    """Splits until the opponent steals once, then steals for ever."""

    line = "I split, but I never forget a steal."

    def choose(self, state: dict[str, Any]) -> str:
        stolen = any(r["opponent_choice"] == "steal" for r in state["history"])
        return "steal" if stolen else "split"


_STEAL_WORDS = re.compile(
    r"\b(i\s*(?:'ll|will|am going to|'m going to|plan to|am gonna|'m gonna)?\s*steal\b"
    r"|i'm stealing|stealing it|take (?:it all|everything|the (?:whole )?pot))",
    re.I,
)
_SPLIT_WORDS = re.compile(r"\b(split|share|half|cooperate|together|deal)\b", re.I)


class MessageReader(_Base):
    """Reads what the opponent says and checks it against what they did.

    Steals from an opponent who announces a steal or has broken a promise to split; splits with one
    who promises to split and has kept its word; otherwise plays tit-for-tat. In the last round
    it steals whatever was said: no later round is left in which a steal could be punished.
    """

    def __init__(self) -> None:
        self.promised: dict[int, bool] = {}
        self.total_rounds = 5

    def on_match_start(self, match_info: dict[str, Any]) -> None:
        self.total_rounds = int(match_info.get("total_rounds", 5))

    def say(self, state: dict[str, Any]) -> str:
        if self._liar(state):
            return "You broke your word. Convince me."
        return "I will split if you promise to split. Do you promise?"

    def _liar(self, state: dict[str, Any]) -> bool:
        return any(
            self.promised.get(r["round"]) and r["opponent_choice"] == "steal"
            for r in state["history"]
        )

    def choose(self, state: dict[str, Any]) -> str:
        said = " ".join(m["text"] for m in state["messages"] if m["sender"] == "opponent")
        announces_steal = bool(_STEAL_WORDS.search(said))
        promises = bool(_SPLIT_WORDS.search(said)) and not announces_steal
        self.promised[state["round"]] = promises
        last_round = state["round"] == self.total_rounds
        if announces_steal or self._liar(state) or last_round:
            return "steal"
        if promises:
            return "split"
        history = state["history"]
        return history[-1]["opponent_choice"] if history else "split"


BOTS: dict[str, type] = {
    "always-split": AlwaysSplit,
    "always-steal": AlwaysSteal,
    "tit-for-tat": TitForTat,
    "grudger": Grudger,
    "message-reader": MessageReader,
}
