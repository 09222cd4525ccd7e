"""``StateAdapter``: the game's state as an agent sees it.

Two audiences. Code agents get the ``round_state`` dict from ``to_round_state``; language
model seats get a prompt from ``state_to_prompt`` and answer to ``get_output_schema``. Both are
built only from the public state and the seat's own private state, so a seat can never see more
than the game chose to show it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from games.core.game import Action


def agent_action(action: Action) -> dict[str, Any]:
    """An action or template in the form agents write: ``type`` first, ``action_type`` dropped."""
    out: dict[str, Any] = {"type": action["action_type"]}
    out.update({k: v for k, v in action.items() if k != "action_type"})
    return out


def seat_name(player_id: str, viewer: str) -> str:
    """``"you"`` or ``"opponent"``: how agents' states name players in a seat's view."""
    return "you" if player_id == viewer else "opponent"


def answer_schema(
    kinds: str | Sequence[str], *, required: Sequence[str] = (), **parameters: dict[str, Any]
) -> dict[str, Any]:
    """The JSON Schema of an answer: an object whose ``type`` is ``kinds`` (one name, or any of
    several), with the ``parameters`` properties after it; ``type`` and ``required`` are required.
    """
    kind: dict[str, Any] = {"const": kinds} if isinstance(kinds, str) else {"enum": list(kinds)}
    return {
        "type": "object",
        "properties": {"type": kind, **parameters},
        "required": ["type", *required],
    }


class StateAdapter:
    """Base adapter. Games override ``game_fields`` (and may override the rest)."""

    #: Common seed-002 fields every game's public state carries.
    COMMON_FIELDS = ("phase", "round", "turn", "pot")

    def to_round_state(
        self,
        public_state: dict[str, Any],
        private_state: dict[str, Any],
        player_id: str,
        valid_actions: list[Action] | None = None,
    ) -> dict[str, Any]:
        """Seed 002's ``round_state`` for ``player_id``.

        Common fields: ``phase, round, turn, pot, your_score, opponent_score, history, messages``,
        then the game's own fields, then ``available_actions`` in agent form.
        """
        scores: dict[str, float] = public_state.get("scores", {})
        opponent_scores = [s for p, s in scores.items() if p != player_id]
        state: dict[str, Any] = {k: public_state.get(k) for k in self.COMMON_FIELDS}
        state["your_score"] = scores.get(player_id, 0)
        state["opponent_score"] = opponent_scores[0] if opponent_scores else 0
        state["history"] = private_state.get("history", [])
        state["messages"] = [
            {"sender": seat_name(m["sender"], player_id), "text": m["text"]}
            for m in public_state.get("messages", [])
        ]
        state.update(self.game_fields(public_state, private_state, player_id))
        if valid_actions is not None:
            state["available_actions"] = [agent_action(a) for a in valid_actions]
        return state

    def game_fields(
        self, public_state: dict[str, Any], private_state: dict[str, Any], player_id: str
    ) -> dict[str, Any]:
        """The game's own ``round_state`` fields. Default: the private state minus ``history``."""
        return {k: v for k, v in private_state.items() if k != "history"}

    # --- language-model seats ----------------------------------------------------------------

    def state_to_prompt(
        self,
        public_state: dict[str, Any],
        private_state: dict[str, Any],
        valid_actions: list[Action],
        turn_history: list[dict[str, Any]],
    ) -> str:
        """The main prompt body for a language-model seat: ``view_prompt`` over the seat's
        ``round_state``, the view a code agent is sent, so a model is never told more."""
        player_id = str(private_state.get("player_id", ""))
        view = self.to_round_state(public_state, private_state, player_id)
        return self.view_prompt(view, valid_actions, turn_history)

    def view_prompt(
        self, view: dict[str, Any], valid_actions: list[Action], turn_history: list[dict[str, Any]]
    ) -> str:
        """The prompt from the seat's ``round_state`` ``view``: by default the state as JSON, the
        legal actions and the recent turns. A game may say it in words instead (chess, poker)."""
        parts = [
            "Current state:",
            json.dumps(view, indent=2, sort_keys=True),
            "",
            "Legal actions:",
            self.format_valid_actions_for_prompt(valid_actions),
        ]
        if turn_history:
            parts += ["", "Recent turns:", self.format_turn_history(turn_history)]
        parts += ["", "Answer with one JSON object matching the output schema."]
        return "\n".join(parts)

    def get_output_schema(self) -> dict[str, Any]:
        """JSON Schema of the expected answer. Games narrow ``type`` to their action names."""
        return {
            "type": "object",
            "properties": {"type": {"type": "string"}},
            "required": ["type"],
        }

    def format_system_prompt(self, role: str, **kwargs: Any) -> str:
        """The system prompt setting the model's persona."""
        return f"You are playing a game as {role}. Reply with a single JSON action."

    def format_valid_actions_for_prompt(self, valid_actions: list[Action]) -> str:
        """One line per legal action or template, in agent form."""
        return "\n".join(f"- {json.dumps(agent_action(a))}" for a in valid_actions)

    def format_turn_history(self, turn_history: list[dict[str, Any]], max_turns: int = 10) -> str:
        """The last ``max_turns`` turns, one JSON line each."""
        return "\n".join(json.dumps(t, sort_keys=True) for t in turn_history[-max_turns:])
