"""Bulls and Cows's parser: ``code`` (alias ``text`` for questions, ``word`` for guesses)."""

from __future__ import annotations

from typing import ClassVar

from games.bulls_and_cows.game import code_error
from games.core import Action, ActionParseError, ActionParser


class BullsAndCowsActionParser(ActionParser):
    """``{"type": "question", "code": "0123"}``, ``{"type": "guess", "code": "4567"}``,
    ``{"type": "pass"}``. ``text`` and ``word`` are accepted for ``code``."""

    field_aliases: ClassVar[dict[str, str]] = {"text": "code", "word": "code"}

    def validate(self, action: Action, template: Action, valid_actions: list[Action]) -> Action:
        """A question or guess needs a code of 4 distinct digits."""
        kind = action["action_type"]
        if kind == "pass":
            return {"action_type": "pass"}
        code = action.get("code")
        if code is None:
            raise ActionParseError(
                f'a {kind} needs "code": write {{"type": "{kind}", "code": "0123"}}'
            )
        problem = code_error(code, kind)
        if problem:
            raise ActionParseError(problem)
        return {"action_type": kind, "code": code}

    def get_random_action(self, valid_actions: list[Action]) -> Action:
        """A random entry; questions and guesses get a random code of 4 distinct digits."""
        choice = dict(self._rng.choice(valid_actions))
        if "code_length" in choice:
            choice.pop("code_length")
            choice["code"] = "".join(self._rng.sample("0123456789", 4))
        return choice
