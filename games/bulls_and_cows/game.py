"""Bulls and Cows: a bulls-and-cows race (``rules.md`` beside it).

Each round has one secret code of 4 distinct digits, the same for both players. A round has up to
``cycle_limit`` cycles; each cycle is a ``question`` phase (both ask a private probe at once and
get a private ``{bulls, cows}`` answer) and a ``guess`` phase (both guess the code or pass, at
once). The first correct guess scores the pot; two correct guesses in the same cycle split it; a
wrong guess locks that player out of the round. Nobody correct after the last cycle, or both
locked out, scores 0/0. A locked-out player sits out the rest of the round.
"""

from __future__ import annotations

from typing import Any

from games.bulls_and_cows.config import BullsAndCowsConfig
from games.bulls_and_cows.solver import is_code, score
from games.core import Action, IllegalActionError
from games.core.figures import Playthrough
from games.core.game import RoundsGame


def code_error(value: Any, what: str) -> str | None:
    """Why ``value`` is not a code of 4 distinct digits, or ``None`` when it is one."""
    if is_code(value):
        return None
    if not isinstance(value, str):
        return (
            f'the {what} must be a string of 4 distinct digits like "0123", '
            f"got {type(value).__name__} {value!r}"
        )
    if len(value) != 4 or any(c not in "0123456789" for c in value):
        return f'the {what} {value!r} must be exactly 4 digits, like "0123"'
    return f"the {what} {value!r} repeats a digit: codes have 4 distinct digits"


class BullsAndCowsGame(RoundsGame):
    """Two players race to crack one code per round with private bulls-and-cows probes."""

    game_type = "bulls-and-cows"
    #: This game's id until the judged game of that name took it: an agent uploaded before then
    #: (its source still says ``GAME = "passcode"``) keeps playing here unchanged.
    former_ids = frozenset({"passcode"})
    #: Short matches where a full one would make a file of megabytes.
    playthroughs = (
        Playthrough(("strong", "solver"), 1),
        Playthrough(("random", "strong"), 2),
    )
    order = 60
    title = "Bulls and Cows"
    version = 1
    config_class = BullsAndCowsConfig
    simultaneous_phases = frozenset({"question", "guess"})
    #: Probes, their answers and guesses are private while the round runs; a spectator sees
    #: them once it has ended (the code is known by then, so they give nothing away).
    sealed_fields = frozenset({"your_qa_history"})
    config: BullsAndCowsConfig

    def _start_round(self) -> None:
        self.code = "".join(self.rng.sample("0123456789", 4))
        self.cycle = 1
        self.phase = "question"
        self.turn = 1
        self.locked = dict.fromkeys(self.players, False)
        self.qa: dict[str, list[dict[str, Any]]] = {p: [] for p in self.players}
        self.acted: dict[str, str | None] = {}  # this phase: who acted (the guess, None = pass)
        self.guesses: dict[str, dict[str, Any]] = {}  # each player's guess this round, if any

    def _active(self) -> list[str]:
        return [p for p in self.players if not self.locked[p]]

    # --- the Game contract --------------------------------------------------------------------

    def get_current_player(self) -> str:
        """The next player in seat order who has not acted in this phase; ``""`` when over."""
        if self.over:
            return ""
        return next(p for p in self._active() if p not in self.acted)

    def get_public_state(self) -> dict[str, Any]:
        """Round, cycle, lock-outs and who has guessed; codes, probes and answers stay private."""
        return {
            "phase": "over" if self.over else self.phase,
            "round": self.get_round(),
            "turn": self.turn,
            "pot": self.config.pot,
            "scores": dict(self.scores),
            "messages": [],
            "cycle": self.cycle,
            "cycle_limit": self.config.cycle_limit,
            "locked_out": dict(self.locked),
            "guessed": {p: p in self.guesses for p in self.players},
        }

    def get_private_state(self, player_id: str) -> dict[str, Any]:
        """The player's own probes and answers this round, and their history."""
        opponent = self.opponent_of(player_id)
        history = [
            {
                "round": r["round"],
                "code": r["code"],
                "your_points": r["points"][player_id],
                "opponent_points": r["points"][opponent],
                "your_guess": r["guesses"].get(player_id, {}).get("code"),
                "opponent_guess": r["guesses"].get(opponent, {}).get("code"),
                "your_guess_cycle": r["guesses"].get(player_id, {}).get("cycle"),
                "opponent_guess_cycle": r["guesses"].get(opponent, {}).get("cycle"),
                "cycles": r["cycles"],
            }
            for r in self.finished
        ]
        return {
            "player_id": player_id,
            "qa_history": [dict(q, answer=dict(q["answer"])) for q in self.qa[player_id]],
            "history": history,
        }

    def get_available_actions(self) -> list[Action]:
        """A question template, or a guess template and ``pass``."""
        if self.over:
            return []
        if self.phase == "question":
            return [{"action_type": "question", "code_length": 4}]
        return [{"action_type": "guess", "code_length": 4}, {"action_type": "pass"}]

    def step(self, action: Action) -> tuple[dict[str, Any], bool]:
        """Apply a question, a guess or a pass for the current player."""
        player, info = self._begin_step(action)
        kind = action.get("action_type")
        if self.phase == "question":
            if kind != "question":
                raise IllegalActionError(
                    f'it is the question phase of cycle {self.cycle}: ask {{"type": "question", '
                    f'"code": "0123"}} (you guess after the answer), not {kind!r}'
                )
            probe = action.get("code")
            problem = code_error(probe, "question")
            if problem:
                raise IllegalActionError(problem)
            assert isinstance(probe, str)
            bulls, cows = score(probe, self.code)
            self.qa[player].append({"question": probe, "answer": {"bulls": bulls, "cows": cows}})
            self.acted[player] = probe
            self.turn += 1
            if len(self.acted) == len(self._active()):
                self.phase, self.acted = "guess", {}
            return info, False
        if kind == "guess":
            guess = action.get("code")
            problem = code_error(guess, "guess")
            if problem:
                raise IllegalActionError(problem)
            assert isinstance(guess, str)
            self.acted[player] = guess
        elif kind == "pass":
            self.acted[player] = None
        else:
            raise IllegalActionError(
                f'it is the guess phase: {{"type": "guess", "code": "0123"}} or {{"type": "pass"}}'
                f", not {kind!r}"
            )
        self.turn += 1
        if len(self.acted) == len(self._active()):
            result = self._resolve()
            if result is not None:
                info["round_result"] = result
        return info, self.over

    def _resolve(self) -> dict[str, dict[str, Any]] | None:
        correct = []
        for p, guess in self.acted.items():
            if guess is None:
                continue
            self.guesses[p] = {"code": guess, "cycle": self.cycle, "correct": guess == self.code}
            if guess == self.code:
                correct.append(p)
            else:
                self.locked[p] = True
        self.acted = {}
        points = dict.fromkeys(self.players, 0)
        if correct:
            for p in correct:
                points[p] = self.config.pot if len(correct) == 1 else self.config.pot // 2
            return self._end_round(points, "cracked")
        if all(self.locked.values()):
            return self._end_round(points, "all_locked_out")
        if self.cycle >= self.config.cycle_limit:
            return self._end_round(points, "cycle_limit")
        self.cycle += 1
        self.phase = "question"
        return None

    def _end_round(self, points: dict[str, int], outcome: str) -> dict[str, dict[str, Any]]:
        entry = {
            "round": self.round,
            "code": self.code,
            "points": dict(points),
            "guesses": {p: dict(g) for p, g in self.guesses.items()},
            "cycles": self.cycle,
            "outcome": outcome,
        }

        def view(p: str, o: str) -> dict[str, Any]:
            mine, theirs = self.guesses.get(p, {}), self.guesses.get(o, {})
            return {
                "round": self.round,
                "your_points": points[p],
                "opponent_points": points[o],
                "code": self.code,
                "outcome": outcome,
                "cycles": self.cycle,
                "your_guess": mine.get("code"),
                "opponent_guess": theirs.get("code"),
                "your_guess_cycle": mine.get("cycle"),
                "opponent_guess_cycle": theirs.get("cycle"),
                "your_questions": len(self.qa[p]),
            }

        return self._finish_round(points, entry, view)
