"""Brinkmanship: brinkmanship (``rules.md`` beside it).

Each crisis (round) draws a hidden war threshold K uniformly from 1..``max_threshold`` and starts
at escalation level L = 0. Each step is a ``negotiate`` phase (one message each, the first speaker
alternating by crisis) and a ``commit`` phase in which both choose ``stand`` or ``yield`` at once:

* yield/yield: both score pot/2 − 10·L and the crisis is over;
* stand/yield: the one standing scores pot − 10·L, the one yielding −10·L, the crisis is over;
* stand/stand: L rises by 1; if L ≥ K it is war (both score −100), otherwise another step.
"""

from __future__ import annotations

from typing import Any

from games.brinkmanship.config import BrinkmanshipConfig
from games.core import Action, IllegalActionError
from games.core.figures import Playthrough
from games.core.game import RoundsGame, your_and_opponent
from games.core.messages import record_message

CHOICES = ("stand", "yield")


class BrinkmanshipGame(RoundsGame):
    """Two players, a hidden threshold, stand or yield until someone backs down or war."""

    game_type = "brinkmanship"
    #: This game's id until the judged game of that name took it: an agent uploaded before then
    #: (its source still says ``GAME = "nuclear-war"``) keeps playing here unchanged.
    former_ids = frozenset({"nuclear-war"})
    #: Short matches where a full one would make a file of megabytes.
    playthroughs = (
        Playthrough(("reputation", "equilibrium"), 1),
        Playthrough(("always-stand", "grudger"), 2),
    )
    order = 50
    title = "Brinkmanship"
    version = 1
    ranking = "mean_payoff"
    config_class = BrinkmanshipConfig
    simultaneous_phases = frozenset({"commit"})
    config: BrinkmanshipConfig

    def _start_round(self) -> None:
        """A new crisis: a threshold drawn from the seeded generator, escalation at 0."""
        self.threshold = self.rng.randint(1, self.config.max_threshold)
        self.level = 0
        self.step_no = 1
        self.turn = 1
        self.messages: list[dict[str, str]] = []
        self.spoken = 0  # messages sent in this step's negotiate phase
        self.commits: dict[str, str] = {}  # this step's hidden choices
        self.choices: dict[str, list[str]] = {p: [] for p in self.players}

    @property
    def phase(self) -> str:
        """``negotiate`` until both have spoken this step, then ``commit``; ``over`` at the end."""
        if self.over:
            return "over"
        return "negotiate" if self.spoken < len(self.players) else "commit"

    # --- the Game contract --------------------------------------------------------------------

    def get_current_player(self) -> str:
        """Speakers in turn, then choosers in the same order; ``""`` when over."""
        if self.over:
            return ""
        order = self._round_order()
        if self.phase == "negotiate":
            return order[self.spoken]
        return next(p for p in order if p not in self.commits)

    def get_public_state(self) -> dict[str, Any]:
        """Crisis, step, escalation level and messages; the threshold and pending choices are
        hidden."""
        return {
            "phase": self.phase,
            "round": self.get_round(),
            "turn": self.turn,
            "pot": self.config.pot,
            "scores": dict(self.scores),
            "messages": [dict(m) for m in self.messages],
            "escalation_level": self.level,
            "step": self.step_no,
            "choices": {p: list(c) for p, c in self.choices.items()},
            "max_threshold": self.config.max_threshold,
        }

    def get_private_state(self, player_id: str) -> dict[str, Any]:
        """Only the history of finished crises: nothing else is secret to one seat."""
        opponent = self.opponent_of(player_id)
        history = [_crisis_view(c, player_id, opponent) for c in self.finished]
        return {"player_id": player_id, "history": history}

    def get_available_actions(self) -> list[Action]:
        """A message template while negotiating; stand and yield while committing."""
        if self.over:
            return []
        if self.phase == "negotiate":
            return [{"action_type": "message", "max_length": self.config.max_message_chars}]
        return [{"action_type": "commit", "choice": c} for c in CHOICES]

    def step(self, action: Action) -> tuple[dict[str, Any], bool]:
        """Apply a message or a commitment for the current player."""
        player, info = self._begin_step(action)
        kind = action.get("action_type")
        if self.phase == "negotiate":
            record_message(
                self.messages,
                player,
                action,
                self.config.max_message_chars,
                f'it is the negotiate phase of step {self.step_no}: send {{"type": "message", '
                f'"text": ...}} (one message each before you commit), not {kind!r}',
            )
            self.spoken += 1
            self.turn += 1
            return info, False
        if kind != "commit":
            raise IllegalActionError(
                f'it is the commit phase: choose {{"type": "commit", "choice": "stand"}} or '
                f'"yield", not {kind!r}'
            )
        choice = action.get("choice")
        if choice not in CHOICES:
            raise IllegalActionError(f'"choice" must be "stand" or "yield", not {choice!r}')
        self.commits[player] = str(choice)
        self.turn += 1
        if len(self.commits) == len(self.players):
            result = self._resolve()
            if result is not None:
                info["round_result"] = result
        return info, self.over

    def _resolve(self) -> dict[str, dict[str, Any]] | None:
        a, b = self.players
        for p in self.players:
            self.choices[p].append(self.commits[p])
        ca, cb = self.commits[a], self.commits[b]
        self.commits = {}
        cfg = self.config
        cost = cfg.escalation_cost * self.level
        if ca == cb == "yield":
            return self._end_crisis({a: cfg.pot // 2 - cost, b: cfg.pot // 2 - cost}, "both_yield")
        if ca != cb:
            stander = a if ca == "stand" else b
            points = {stander: cfg.pot - cost, self.opponent_of(stander): -cost}
            return self._end_crisis(points, f"{stander}_stood")
        self.level += 1
        if self.level >= self.threshold:
            return self._end_crisis({a: -cfg.war_penalty, b: -cfg.war_penalty}, "war")
        self.step_no += 1
        self.spoken = 0
        return None

    def _end_crisis(self, points: dict[str, int], outcome: str) -> dict[str, dict[str, Any]]:
        crisis = {
            "round": self.round,
            "choices": {p: list(c) for p, c in self.choices.items()},
            "outcome": outcome,
            "threshold": self.threshold,
            "level": self.level,
            "points": dict(points),
        }
        return self._finish_round(points, crisis, lambda p, o: _crisis_view(crisis, p, o))


def _crisis_view(crisis: dict[str, Any], viewer: str, opponent: str) -> dict[str, Any]:
    """A finished crisis from ``viewer``'s side (lists copied: the record stays the game's)."""
    choices = {p: list(c) for p, c in crisis["choices"].items()}
    return {
        "round": crisis["round"],
        **your_and_opponent(viewer, opponent, choices=choices),
        "outcome": _outcome_for(crisis["outcome"], viewer),
        "threshold": crisis["threshold"],
        "escalation_level": crisis["level"],
        **your_and_opponent(viewer, opponent, points=crisis["points"]),
    }


def _outcome_for(outcome: str, viewer: str) -> str:
    """``both_yield``, ``war``, ``you_stood`` or ``opponent_stood`` from ``viewer``'s side."""
    if outcome.endswith("_stood"):
        return "you_stood" if outcome == f"{viewer}_stood" else "opponent_stood"
    return outcome
