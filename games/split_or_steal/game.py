"""Split or Steal (Golden Balls): talk, then choose at once to split or steal the pot.

Each round: a ``negotiate`` phase of ``messages_per_round`` alternating messages (seat 0 speaks
first in round 1, then the first speaker alternates), then a ``commit`` phase in which both choose
``split`` or ``steal`` at once (the first speaker commits first; the other never sees that choice).
split/split share the pot, steal/split gives it all to the stealer, steal/steal gives nothing.
"""

from __future__ import annotations

from typing import Any

from games.core import Action, IllegalActionError
from games.core.figures import Playthrough
from games.core.game import RoundsGame, your_and_opponent
from games.core.messages import record_message
from games.split_or_steal.config import SplitOrStealConfig

CHOICES = ("split", "steal")


class SplitOrStealGame(RoundsGame):
    """Five rounds of cheap talk and a simultaneous split/steal choice."""

    game_type = "split-or-steal"
    #: Short matches where a full one would make a file of megabytes.
    playthroughs = (
        Playthrough(("message-reader", "tit-for-tat"), 1),
        Playthrough(("grudger", "always-steal"), 2),
    )
    order = 20
    title = "Split or Steal"
    version = 1
    ranking = "mean_payoff"
    config_class = SplitOrStealConfig
    simultaneous_phases = frozenset({"commit"})
    sealed_fields = frozenset({"your_pending_choice"})
    config: SplitOrStealConfig

    # No randomness in the rules: ``reset`` seeds the generator only for the record.

    def _start_round(self) -> None:
        self.messages: list[dict[str, str]] = []
        self.commits: dict[str, str] = {}

    def _end_match(self) -> None:
        """No message or choice is pending once the match is over."""
        self._start_round()

    @property
    def phase(self) -> str:
        """``negotiate``, ``commit`` or ``over``."""
        if self.over:
            return "over"
        return "negotiate" if len(self.messages) < self.config.messages_per_round else "commit"

    def get_current_player(self) -> str:
        """Speakers alternate in ``negotiate``; in ``commit`` the first speaker chooses first."""
        phase = self.phase
        if phase == "over":
            return ""
        speakers = self._round_order()
        if phase == "negotiate":
            return speakers[len(self.messages) % 2]
        return next(p for p in speakers if p not in self.commits)

    def get_public_state(self) -> dict[str, Any]:
        """Phase, round, turn, pot, scores, this round's messages, finished rounds."""
        return {
            "phase": self.phase,
            "round": self.get_round(),
            "turn": len(self.messages) + len(self.commits) + 1,
            "pot": self.config.pot,
            "scores": dict(self.scores),
            "messages": [dict(m) for m in self.messages],
            "first_speaker": self._round_order()[0] if self.phase != "over" else None,
            "rounds": [dict(r) for r in self.finished],
        }

    def get_private_state(self, player_id: str) -> dict[str, Any]:
        """The round history from ``player_id``'s side (and their own choice while pending)."""
        opponent = self.opponent_of(player_id)
        history = [_round_view(r, player_id, opponent) for r in self.finished]
        private: dict[str, Any] = {"player_id": player_id, "history": history}
        if player_id in self.commits:
            private["your_pending_choice"] = self.commits[player_id]
        return private

    def get_available_actions(self) -> list[Action]:
        """A message template while negotiating, the two choices while committing."""
        phase = self.phase
        if phase == "negotiate":
            return [{"action_type": "message", "max_length": self.config.max_message_chars}]
        if phase == "commit":
            return [{"action_type": "commit", "choice": c} for c in CHOICES]
        return []

    def step(self, action: Action) -> tuple[dict[str, Any], bool]:
        """Apply a message or a commitment."""
        player, info = self._begin_step(action)
        phase = self.phase
        kind = action.get("action_type")
        if phase == "negotiate":
            record_message(
                self.messages,
                player,
                action,
                self.config.max_message_chars,
                f'it is the negotiate phase: send {{"type": "message", "text": ...}} '
                f"({len(self.messages)} of {self.config.messages_per_round} messages sent)",
            )
            return info, False
        if kind != "commit":
            raise IllegalActionError(
                'it is the commit phase: send {"type": "commit", "choice": "split" or "steal"}'
            )
        choice = action.get("choice")
        if choice not in CHOICES:
            raise IllegalActionError(f"choice must be 'split' or 'steal', not {choice!r}")
        self.commits[player] = choice
        if len(self.commits) == len(self.players):
            info["round_result"] = self._settle()
        return info, self.is_over()

    def _settle(self) -> dict[str, dict[str, Any]]:
        a, b = self.players
        pot = self.config.pot
        ca, cb = self.commits[a], self.commits[b]
        if ca == cb == "split":
            points = {a: pot // 2, b: pot - pot // 2}
        elif ca == cb == "steal":
            points = {a: 0, b: 0}
        else:
            stealer = a if ca == "steal" else b
            points = {stealer: pot, self.opponent_of(stealer): 0}
        entry = {"round": self.round, "choices": dict(self.commits), "points": dict(points)}
        return self._finish_round(points, entry, lambda p, o: _round_view(entry, p, o))


def _round_view(entry: dict[str, Any], viewer: str, opponent: str) -> dict[str, Any]:
    """A finished round from ``viewer``'s side: both choices and both points."""
    return {
        "round": entry["round"],
        **your_and_opponent(viewer, opponent, choice=entry["choices"], points=entry["points"]),
    }
