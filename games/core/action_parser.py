"""``ActionParser``: what an agent returned, turned into a legal action or a reason why not.

Code agents return a dict; language-model seats return text with a JSON object in it. Either way
``parse`` normalises the keys (``type`` is the agent-facing alias of ``action_type``, games add
their own aliases), finds the available action or template it names, and lets the game check
parameters. ``ActionParseError`` messages go straight back to the agent as ``error``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from games.core.errors import ActionParseError
from games.core.game import Action
from games.core.state_adapter import agent_action

_FENCED_JSON = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


class ActionParser:
    """Base parser. Games set ``field_aliases`` and override ``validate``."""

    #: Extra key aliases: ``{"text": "code"}`` lets an agent write ``text`` for ``code``.
    field_aliases: ClassVar[dict[str, str]] = {}

    def __init__(self, fallback_to_random: bool = True, seed: int | None = None) -> None:
        self.fallback_to_random = fallback_to_random
        self._rng = random.Random(seed)

    def parse(self, raw_output: Any, valid_actions: list[Action]) -> Action:
        """Return a legal action built from ``raw_output``, or raise ``ActionParseError``.

        With ``fallback_to_random`` (the default) a random legal action replaces a failure;
        the referee always turns it off.
        """
        try:
            return self._parse(raw_output, valid_actions)
        except ActionParseError:
            if self.fallback_to_random and valid_actions:
                return self.get_random_action(valid_actions)
            raise

    def _parse(self, raw_output: Any, valid_actions: list[Action]) -> Action:
        if isinstance(raw_output, str):
            found = self.extract_json(raw_output)
            if found is None:
                raise ActionParseError(
                    f"on_turn returned the string {raw_output[:60]!r}; return a dict"
                    f"{self.example_text(valid_actions)} (a string is read only if it holds a "
                    "JSON object)"
                )
            raw_output = found
        if not isinstance(raw_output, Mapping):
            raise ActionParseError(
                f"on_turn must return a dict{self.example_text(valid_actions)}, got "
                f"{type(raw_output).__name__}"
            )
        action = self.normalize(raw_output)
        template = self.find_closest_action(action, valid_actions)
        if template is None:
            names = sorted({a["action_type"] for a in valid_actions})
            asked = action.get("action_type")
            if asked is None:
                raise ActionParseError(f'the action has no "type"; legal now: {", ".join(names)}')
            raise ActionParseError(
                f"action type {asked!r} is not legal now; legal now: {', '.join(names)}"
            )
        return self.validate(action, template, valid_actions)

    def normalize(self, raw: Mapping[str, Any]) -> Action:
        """Copy ``raw`` with ``type`` renamed ``action_type`` and the game's aliases applied."""
        action: Action = {}
        for key, value in raw.items():
            key = str(key)
            if key == "type":
                key = "action_type"
            key = self.field_aliases.get(key, key)
            if key in action and action[key] != value:
                raise ActionParseError(f"{key!r} is given twice (through an alias) with two values")
            action[key] = value
        if isinstance(action.get("action_type"), str):
            action["action_type"] = action["action_type"].strip().lower()
        return action

    def validate(self, action: Action, template: Action, valid_actions: list[Action]) -> Action:
        """Check parameters against the template; default: the action must equal a listed one.

        Games with parametric actions override this. Extra keys are ignored, not copied.
        """
        same_type = [a for a in valid_actions if a["action_type"] == action["action_type"]]
        for candidate in same_type:
            if all(action.get(k) == v for k, v in candidate.items()):
                return dict(candidate)
        if len(same_type) == 1:
            expected = {k: v for k, v in same_type[0].items() if k != "action_type"}
            raise ActionParseError(
                f"{action['action_type']!r} must be exactly {json.dumps(expected)} now"
            )
        raise ActionParseError(
            f"{json.dumps(action, default=str)[:200]} is not one of "
            f"the {len(same_type)} legal {action['action_type']!r} actions"
        )

    def example_action(self, valid_actions: list[Action]) -> Action | None:
        """A legal action to show in an error message, in the game's own form: the first listed
        action with its template filled (``min``/``max`` -> the smallest ``amount``,
        ``max_length`` -> a short ``text``, a game's own template keys by its
        ``get_random_action`` with a fixed seed, so the same state always shows the same one).
        ``None`` when nothing is legal."""
        if not valid_actions:
            return None
        first = valid_actions[0]
        saved = self._rng
        self._rng = random.Random(0)
        try:
            example = self.get_random_action([first])
        finally:
            self._rng = saved
        if "min" in first and "max" in first:
            example["amount"] = int(first["min"])
        if "max_length" in first:
            example["text"] = "hello"[: int(first["max_length"])]
        return example

    def example_text(self, valid_actions: list[Action]) -> str:
        """`` such as {...}`` naming a legal action now, or nothing when none is listed."""
        example = self.example_action(valid_actions)
        return "" if example is None else f" such as {json.dumps(agent_action(example))}"

    # --- utilities -------------------------------------------------------------------

    def extract_json(self, raw_output: str) -> dict[str, Any] | None:
        """The first JSON object in a fenced code block, else the first balanced ``{...}``."""
        for match in _FENCED_JSON.finditer(raw_output):
            try:
                value = json.loads(match.group(1))
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
        decoder = json.JSONDecoder()
        for start in (i for i, ch in enumerate(raw_output) if ch == "{"):
            try:
                value, _ = decoder.raw_decode(raw_output, start)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
        return None

    def find_closest_action(self, parsed: Action, valid_actions: list[Action]) -> Action | None:
        """The first available action or template with the same ``action_type``."""
        for candidate in valid_actions:
            if candidate["action_type"] == parsed.get("action_type"):
                return candidate
        return None

    def get_random_action(self, valid_actions: list[Action]) -> Action:
        """A random concrete action: templates with ``min``/``max`` get a random ``amount``,
        templates with ``max_length`` a short ``text``. Games whose templates need more override
        this (the conformance check plays with it)."""
        choice = dict(self._rng.choice(valid_actions))
        if "min" in choice and "max" in choice:
            low, high = choice.pop("min"), choice.pop("max")
            choice["amount"] = self._rng.randint(int(low), int(high))
        if "max_length" in choice:
            limit = int(choice.pop("max_length"))
            words = ["deal", "trust", "me", "split", "steal", "maybe", "ok", "no"]
            text = " ".join(self._rng.choice(words) for _ in range(self._rng.randint(0, 6)))
            choice["text"] = text[:limit]
        return choice
