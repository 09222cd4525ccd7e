"""A scripted secret keeper for offline tools (golden playthroughs, house-bot tests, ``arena
play``): it reads the word from its instructions and answers a few question forms exactly;
anything else is ``unknown``. Never the keeper of a rated match."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from games.core.judge import JudgeRequest

_WORD = re.compile(r"The secret word is: ([a-z]+)\.")


class ScriptedKeeper:
    """Answers "is it X", "is it one of a, b, c", "does it contain the letter x", "does it have
    more than N letters", "does it start with a letter between A and M"."""

    def ask(self, request: JudgeRequest) -> Mapping[str, Any]:
        """The answer, by rule."""
        found = _WORD.search(request.instructions)
        question = request.items[0].text.lower() if request.items else ""
        return {"answer": answer(found.group(1) if found else "", question)}


def answer(word: str, question: str) -> str:
    """``yes``/``no``/``unknown`` for ``question`` about ``word``."""
    q = question.strip().rstrip("?").strip()
    if m := re.search(r"one of[: ]+(.+)$", q):
        options = {w.strip(" .'\"") for w in re.split(r",|\bor\b", m.group(1))}
        return "yes" if word in options else "no"
    if (m := re.search(r"letter '?([a-z])'?", q)) and "start" not in q:
        return "yes" if m.group(1) in word else "no"
    if m := re.search(r"more than (\d+) letters", q):
        return "yes" if len(word) > int(m.group(1)) else "no"
    if "between a and m" in q:
        return "yes" if word[:1] <= "m" else "no"
    if m := re.fullmatch(r"is (?:it|the word) (?:an? |the )?([a-z]+)", q):
        return "yes" if m.group(1) == word else "no"
    return "unknown"
