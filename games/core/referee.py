"""The referee: plays one match between agent handles under the rules of docs/architecture.md.

It is the only place that knows the lifecycle, the clock and the illegal-move protocol:

* ``on_match_start`` → per round ``on_round_start``, ``on_turn`` × N, ``on_round_end`` →
  ``on_match_end``;
* timed matches give each call ``turn_timeout_s`` (2 s) plus what is left of the seat's time bank;
  loading and ``on_match_start`` share ``init_timeout_s`` (10 s); untimed matches use a generous
  cap instead. A timeout forfeits the match. What is charged is the agent's own time: the window
  its handle measured around the agent's method (a sandbox's harness, inside the container), never
  the platform's delays around it. The handle also gets a hard backstop, the budget plus
  ``backstop_grace_s`` (which a sandbox extends, boundedly, by the time the host's load kept
  the agent's threads from a CPU: ``sandbox/host_wait.py``): an agent that never answers, or a
  harness that lies about its window, forfeits there. Each call's log entry holds both
  figures: ``elapsed_ms`` (charged) and ``wall_ms`` (the controller's, write to reply);
* an illegal action (or an exception raised in ``on_turn``) is refused and the agent is asked
  again with ``error`` and ``attempt``; the fourth failure in a row forfeits, unless the game
  supplies an action for that case (poker folds the hand);
* a crash forfeits; an exception in another hook is logged for the owner and costs nothing;
* a seat the platform itself plays (a house bot: its handle's ``platform_seat``) never forfeits:
  its timeout, crash, failed start or fourth illegal action is the platform's failure, so the
  match ends with ``platform_error`` and nobody wins by it (the platform plays it again,
  unrated);
* an exception from the game engine other than ``IllegalActionError`` (and ``ActionParseError``
  from its parser) is a bug on the platform's side: the match ends with ``platform_error`` (what
  anyone involved may read) and ``platform_traceback`` (for staff), and nobody forfeits.

Every call becomes one JSON log entry; the match becomes a ``MatchRecord``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from games.core.agent import AgentHandle, CallResult
from games.core.config import ArenaConfig
from games.core.errors import (
    ActionParseError,
    AgentCrash,
    AgentInitError,
    AgentTimeout,
    IllegalActionError,
    PlatformError,
)
from games.core.game import Action, Game
from games.core.judge import Judge, JudgeRequest
from games.core.record import (
    LogEntry,
    MatchRecord,
    Outcome,
    Reason,
    SeatResult,
    public_reason,
    reason_text,
)
from games.core.registry import create_game, get_game_spec
from games.core.state_adapter import agent_action

EventSink = Callable[[LogEntry], None]
#: A judge's answer that fits no schema is logged whole up to this size, summarised beyond.
MAX_LOGGED_MISFIT_CHARS = 2_000
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MatchSettings:
    """The clock and the retry rule of one match."""

    #: Timed (default, ranked) or untimed (a training option).
    timed: bool = True
    #: Wall time per call in a timed match.
    turn_timeout_s: float = 2.0
    #: Budget for loading the agent plus ``on_match_start``.
    init_timeout_s: float = 10.0
    #: Per-seat bank that absorbs overruns before a timeout counts (Kaggle uses 60 s).
    time_bank_s: float = 0.0
    #: The backstop's margin over the budget: the controller stops waiting for a reply after
    #: budget + grace of its own wall time (platform delays included) and forfeits the seat.
    #: Large enough for a busy host's delays between the agent's window and the controller (a
    #: daemon or scheduler stall); small enough that a lying harness gains little.
    backstop_grace_s: float = 1.0
    #: Per-call cap in untimed matches.
    untimed_turn_timeout_s: float = 60.0
    #: Retries after an illegal action; the next failure forfeits (the fourth refusal in a row).
    max_retries: int = 3
    #: Keep each call's captured stdout in the log (training: yes, ranked: no).
    keep_stdout: bool = True
    #: Stop the match once this many turns were played (None: play to the end). The match then
    #: ends as if over at that point (outcomes from the game's state, ``on_match_end`` called);
    #: validation uses it so that its time is bounded whatever the agent does.
    max_turns: int | None = None


class _Forfeit(Exception):
    def __init__(self, seat: int, reason: Reason, detail: str, *, raised: bool = False) -> None:
        super().__init__(detail)
        self.seat = seat
        self.reason = reason
        self.detail = detail
        #: The agent's own exception ended it: the opponent is told so, never the text.
        self.raised = raised


class _Match:
    """The state of one match in progress; ``play_match`` is its only user."""

    def __init__(
        self,
        game_id: str,
        agents: Sequence[AgentHandle],
        seed: int,
        config: Mapping[str, Any] | None,
        settings: MatchSettings,
        on_event: EventSink | None,
        judge: Judge | None = None,
    ) -> None:
        self.spec = get_game_spec(game_id)
        self.agents = list(agents)
        self.settings = settings
        self.on_event = on_event
        self.arena_config = ArenaConfig.for_seats(
            game_id, [a.name for a in agents], seed, dict(config or {})
        )
        self.round = 0
        self.game: Game = create_game(
            self.arena_config, judge=judge, judge_listener=self._judge_answered
        )
        self.adapter = self.spec.state_adapter_class()
        self.parser = self.spec.action_parser_class(fallback_to_random=False)
        self.player_ids = self.game.get_players()
        if len(self.player_ids) != len(self.agents):
            raise ValueError(
                f"{game_id} seats {len(self.player_ids)} players, got {len(self.agents)} agents"
            )
        self.seat_of = {pid: i for i, pid in enumerate(self.player_ids)}
        self.bank_s = [settings.time_bank_s for _ in self.agents]
        # A seat with its own clock (a language-model seat: a per-move budget covering its
        # re-asks, docs/llm-seats.md) says so through ``seat_budget_s``; it also gets the game,
        # read-only, to build its prompt from the game's own adapter.
        self.own_budget_s: list[float | None] = []
        #: Seats the platform plays with its own code (house bots): their failures are its own.
        self.platform_seats = [bool(getattr(a, "platform_seat", False)) for a in self.agents]
        for agent, pid in zip(self.agents, self.player_ids, strict=True):
            bind = getattr(agent, "bind_match", None)
            if callable(bind):
                bind(game=self.game, player_id=pid, timed=settings.timed)
            own = getattr(agent, "seat_budget_s", None)
            self.own_budget_s.append(float(own(settings.timed)) if callable(own) else None)
        self.record = MatchRecord(
            game=game_id,
            game_version=self.spec.version,
            config=self.game.config.model_dump(mode="json"),
            seed=seed,
            timed=settings.timed,
            seats=[
                SeatResult(seat=i, player_id=pid, name=a.name)
                for i, (pid, a) in enumerate(zip(self.player_ids, self.agents, strict=True))
            ],
        )
        self.round = 0
        #: Seat -> whether its forfeit came from an exception it raised (set by ``finish``).
        self.forfeits: dict[int, bool] = {}

    # --- the judge ----------------------------------------------------------------------------

    def _judge_answered(self, request: JudgeRequest, answer: Any, fits: bool, attempt: int) -> None:
        """Log one answer of a judged game's judge: what it was shown (the quoted texts and the
        request's digest) and what it said, so that ``ReplayJudge`` replays the match."""
        if not fits and len(json.dumps(answer, default=str)) > MAX_LOGGED_MISFIT_CHARS:
            # A misfit answer is replayed as a misfit: its bulk need not be kept.
            answer = f"(an answer of {len(json.dumps(answer, default=str))} characters)"
        game = self.game if hasattr(self, "game") else None
        self._log(
            {
                "round": game.get_round() if game is not None else self.round,
                "turn": game.get_public_state().get("turn") if game is not None else None,
                "seat": request.seat,
                "method": "judge",
                "payload": {
                    **request.log_view(),
                    "answer": json.loads(json.dumps(answer, default=str)),
                    "fits": fits,
                    "attempt": attempt,
                },
            }
        )

    # --- calls --------------------------------------------------------------------------------

    def _budget(self, seat: int) -> float:
        own = self.own_budget_s[seat]
        if own is not None:
            return own
        if not self.settings.timed:
            return self.settings.untimed_turn_timeout_s
        return self.settings.turn_timeout_s + self.bank_s[seat]

    def _log(self, entry: LogEntry) -> None:
        entry["seq"] = len(self.record.log)
        self.record.log.append(entry)
        if self.on_event is not None:
            try:
                self.on_event(entry)
            except Exception:
                # A viewer that went away (a closed pipe, a failed progress write) must not
                # decide the match: stop feeding it and play on.
                logger.warning("the match's event sink failed; live events stop", exc_info=True)
                self.on_event = None

    def _call(
        self,
        seat: int,
        method: str,
        payload: Mapping[str, Any],
        budget_s: float | None = None,
        attempt: int | None = None,
        publish: bool = True,
    ) -> tuple[CallResult, LogEntry]:
        """One call with the clock; timeouts and crashes become forfeits.

        Returns the result and its log entry. With ``publish=False`` the caller completes the
        entry (the action applied, why it was refused) and logs it, so that live viewers never
        see a half-written entry.
        """
        budget = self._budget(seat) if budget_s is None else budget_s
        entry: LogEntry = {
            "round": self.round,
            "turn": self.game.get_public_state().get("turn"),
            "seat": seat,
            "method": method,
            "payload": dict(payload),
        }
        if attempt is not None:
            entry["attempt"] = attempt
        backstop = budget + self.settings.backstop_grace_s
        try:
            result = self.agents[seat].call(method, payload, backstop)
        except AgentTimeout as exc:
            entry.update(
                {
                    "elapsed_ms": None,
                    "wall_ms": round(exc.elapsed_s * 1000, 3),
                    "backstop_ms": round(backstop * 1000, 3),
                    "error": f"{method} did not answer within its {budget:.2f} s budget: "
                    + (
                        # A seat with a clock of its own (a model's) ran out before the
                        # referee's backstop.
                        f"its own clock ran out after {exc.elapsed_s:.2f} s"
                        if exc.elapsed_s < backstop - 0.05
                        else f"the referee stopped waiting after {exc.elapsed_s:.2f} s (the "
                        f"budget plus {self.settings.backstop_grace_s:g} s of grace"
                        + (
                            ", and the time the host's other programs held its threads from a CPU)"
                            if exc.elapsed_s > backstop + 0.05
                            else ")"
                        )
                    ),
                }
            )
            if exc.host_wait:
                entry["host_wait"] = exc.host_wait
            self._log(entry)
            raise _Forfeit(seat, Reason.TIMEOUT, self._timeout_detail(seat, method, exc)) from exc
        except AgentCrash as exc:
            entry["error"] = f"the agent crashed: {exc}"
            self._log(entry)
            # The sandbox says which way it ended (out of memory, a signal, an exit code, a
            # protocol violation); say it once, with the call it happened in.
            said = str(exc)
            detail = said if method in said else f"during {method}: {said}"
            raise _Forfeit(seat, Reason.CRASH, detail) from exc
        entry.update(
            {
                "elapsed_ms": round(result.elapsed_ms, 3),
                "wall_ms": None if result.wall_ms is None else round(result.wall_ms, 3),
                "cpu_ms": None if result.cpu_ms is None else round(result.cpu_ms, 3),
                "freeze": result.freeze,
            }
        )
        if result.model_ms:
            # Time the agent's model calls took through its gateway: not charged, but shown.
            entry["model_ms"] = round(result.model_ms, 3)
        if result.elapsed_ms / 1000 > budget:
            # The agent answered, but after its budget by its own clock: the same timeout.
            timeout = AgentTimeout(method, result.elapsed_ms / 1000, budget)
            entry["error"] = str(timeout)
            self._log(entry)
            raise _Forfeit(seat, Reason.TIMEOUT, self._timeout_detail(seat, method, timeout))
        seat_result = self.record.seats[seat]
        seat_result.time_used_ms += result.elapsed_ms
        if self.settings.timed and budget_s is None and self.own_budget_s[seat] is None:
            overrun_s = result.elapsed_ms / 1000 - self.settings.turn_timeout_s
            if overrun_s > 0:
                self.bank_s[seat] = max(0.0, self.bank_s[seat] - overrun_s)
        entry.update(
            {
                "reply": result.result,
                "error": result.error.describe() if result.error else None,
                "stdout": result.stdout if self.settings.keep_stdout else None,
            }
        )
        if publish:
            self._log(entry)
        return result, entry

    def _timeout_detail(self, seat: int, method: str, exc: AgentTimeout) -> str:
        # A platform seat's timeout forfeits nothing (``blame``): its detail says what ran late.
        forfeits = "" if self.platform_seats[seat] else "; a timeout forfeits the match"
        own = self.own_budget_s[seat]
        if own is not None and self.settings.timed:
            return (
                f"{method} did not answer within its {own:g} s move budget (re-asks included)"
                + forfeits
            )
        if not self.settings.timed:
            return f"{method} ran past the untimed cap of {exc.budget_s:.0f} s"
        bank = (
            f" plus {self.settings.time_bank_s:g} s of time bank"
            if self.settings.time_bank_s
            else ""
        )
        return f"{method} did not answer within {self.settings.turn_timeout_s:g} s{bank}" + forfeits

    def _hook(self, seat: int, method: str, payload: Mapping[str, Any]) -> None:
        """An optional lifecycle hook: its exceptions are logged for the owner, not punished."""
        self._call(seat, method, payload)

    # --- phases -------------------------------------------------------------------------------

    def start_agents(self) -> None:
        """Load every agent (in parallel) and call ``on_match_start``; failures are init errors."""
        game_id = self.arena_config.game
        budget = self.settings.init_timeout_s

        def start(seat: int) -> tuple[int, float, float, Exception | None]:
            """Seat, the agent's own loading time (charged), the wall time, the failure."""
            began = time.perf_counter()
            try:
                window = self.agents[seat].start(
                    game_id=game_id, timeout_s=budget + self.settings.backstop_grace_s
                )
            except (AgentInitError, AgentTimeout, AgentCrash, PlatformError) as exc:
                wall = time.perf_counter() - began
                return seat, wall, wall, exc
            wall = time.perf_counter() - began
            charged = wall if window is None else min(window, wall)
            if charged > budget:
                late = AgentInitError(
                    f"loading the agent took {charged:.2f} s, over its {budget:g} s budget "
                    "(heavy work at import or in __init__?)"
                )
                return seat, charged, wall, late
            return seat, charged, wall, None

        with ThreadPoolExecutor(max_workers=len(self.agents)) as pool:
            started = list(pool.map(start, range(len(self.agents))))
        failures: list[_Forfeit] = []
        for seat, elapsed, wall, exc in started:
            if isinstance(exc, PlatformError):
                raise exc
            error = None if exc is None else f"{exc}\n{getattr(exc, 'traceback', '')}".rstrip()
            self._log(
                {
                    "round": 0,
                    "turn": None,
                    "seat": seat,
                    "method": "load",
                    "elapsed_ms": round(elapsed * 1000, 3),
                    "wall_ms": round(wall * 1000, 3),
                    "error": error,
                }
            )
            if exc is not None:
                failures.append(
                    _Forfeit(seat, Reason.INIT_ERROR, f"the agent failed to load: {exc}")
                )
                continue
            info = self._match_info(seat)
            try:
                result, _ = self._call(
                    seat, "on_match_start", info, budget_s=max(0.0, budget - elapsed)
                )
            except _Forfeit as forfeit:
                failures.append(
                    _Forfeit(seat, Reason.INIT_ERROR, f"on_match_start failed: {forfeit.detail}")
                )
                continue
            if not result.ok and result.error is not None:
                failures.append(
                    _Forfeit(
                        seat,
                        Reason.INIT_ERROR,
                        f"on_match_start raised {result.error.type}: {result.error.message}",
                        raised=True,
                    )
                )
        if failures:
            raise _InitFailures(failures)

    def _match_info(self, seat: int) -> dict[str, Any]:
        pid = self.player_ids[seat]
        opponents = [a.name for i, a in enumerate(self.agents) if i != seat]
        return {
            "game": self.arena_config.game,
            "opponent_name": opponents[0] if len(opponents) == 1 else opponents,
            "total_rounds": self.game.total_rounds,
            "seat": seat,
            "rules": self.spec.rules_markdown(),
            "config": self.record.config,
            "timed": self.settings.timed,
            "turn_timeout_s": self.settings.turn_timeout_s if self.settings.timed else None,
            **self.game.get_match_info(pid),
        }

    def play(self) -> None:
        """Run rounds and turns until the game is over."""
        game = self.game
        while not game.is_over():
            cap = self.settings.max_turns
            if cap is not None and self.record.turns >= cap:
                self._log(
                    {
                        "round": self.round,
                        "seat": None,
                        "method": "referee",
                        "note": f"stopped after {cap} turns (the match's turn cap)",
                    }
                )
                return
            if game.get_round() != self.round:
                self.round = game.get_round()
                for seat, pid in enumerate(self.player_ids):
                    self._hook(seat, "on_round_start", game.get_round_info(pid))
            info = self.take_turn(game.get_current_player())
            round_result = info.get("round_result")
            if round_result:
                self.record.rounds.append({"round": self.round, "result": round_result})
                for seat, pid in enumerate(self.player_ids):
                    self._hook(seat, "on_round_end", round_result[pid])

    def take_turn(self, pid: str) -> dict[str, Any]:
        """Ask the current player for an action until one is legal or retries run out."""
        seat = self.seat_of[pid]
        game = self.game
        valid = game.get_available_actions()
        state = self.adapter.to_round_state(
            game.get_public_state(), game.get_private_state(pid), pid, valid
        )
        reasons: list[str] = []  # as sent back to the agent
        summaries: list[str] = []  # one line each, for the log and the forfeit
        raised = False
        for attempt in range(self.settings.max_retries + 1):
            payload = dict(state)
            if attempt:
                payload["error"] = reasons[-1]
                payload["attempt"] = attempt
            result, entry = self._call(seat, "on_turn", payload, attempt=attempt, publish=False)
            raised = not result.ok
            if result.ok:
                # Only these two are the agent's: a reply of the wrong shape, an action the rules
                # refuse. Anything else the engine raises is its own bug, a platform error.
                try:
                    action = self.parser.parse(result.result, valid)
                    info, _ = game.step(action)
                except (ActionParseError, IllegalActionError) as exc:
                    reason = summary = str(exc)
                else:
                    entry["action"] = agent_action(action)
                    self._log(entry)
                    self.record.turns += 1
                    self.record.seats[seat].turns += 1
                    return info
            else:
                assert result.error is not None
                # The agent is sent its traceback; the log and the forfeit keep one line, since
                # the traceback is already in this call's ``error``.
                error = result.error
                reason = f"on_turn raised {error.describe()}"
                summary = f"on_turn raised {error.type}: {error.message}".rstrip(": ")
            entry["illegal"] = summary
            self._log(entry)
            reasons.append(reason)
            summaries.append(summary)
        fallback = game.on_retries_exhausted(pid)
        if fallback is None:
            raise _Forfeit(
                seat,
                Reason.ILLEGAL,
                # The reason already says how many: the detail says what the last one was.
                f"the last of the {len(reasons)}: {summaries[-1]} (the turn log shows each one)",
                raised=raised,
            )
        return self._apply_fallback(seat, fallback, reasons)

    def _apply_fallback(self, seat: int, fallback: Action, reasons: list[str]) -> dict[str, Any]:
        info, _ = self.game.step(fallback)
        self.record.turns += 1
        self._log(
            {
                "round": self.round,
                "turn": self.game.get_public_state().get("turn"),
                "seat": seat,
                "method": "referee",
                "action": agent_action(fallback),
                "error": f"{len(reasons)} illegal actions in a row: the referee played "
                f"{agent_action(fallback)} for this seat",
            }
        )
        return info

    # --- the end ------------------------------------------------------------------------------

    def blame(self, forfeits: Sequence[_Forfeit]) -> Sequence[_Forfeit]:
        """The forfeits that stand; raises ``PlatformError`` when a platform seat failed.

        A house bot is the platform's own code: when it runs out of time (a loaded worker), crashes
        or keeps playing illegally, handing its opponent the win or moving a rating would charge
        the platform's failure to the players.
        """
        for forfeit in forfeits:
            if self.platform_seats[forfeit.seat]:
                name = self.agents[forfeit.seat].name
                raise PlatformError(
                    f"the house bot {name!r} (seat {forfeit.seat}) "
                    f"{reason_text(forfeit.reason)}: {forfeit.detail}. A house bot is the "
                    "platform's own code, so this is the platform's failure: nobody forfeits "
                    "and the match is not rated"
                )
        return forfeits

    def finish(self, forfeits: Sequence[_Forfeit]) -> None:
        """Fill outcomes and scores, tell live agents how it ended."""
        record, game = self.record, self.game
        scores = game.get_scores()
        for seat_result in record.seats:
            seat_result.score = scores.get(seat_result.player_id, 0.0)
        record.rounds_played = len(record.rounds)
        record.stats = game.get_match_stats()
        record.final_state = game.get_public_state()
        forfeited = {f.seat: f for f in forfeits}
        self.forfeits = {f.seat: f.raised for f in forfeits}
        if forfeited:
            for s in record.seats:
                f = forfeited.get(s.seat)
                if f is not None:
                    s.outcome, s.reason, s.detail = Outcome.LOSS, f.reason, f.detail
                else:
                    s.outcome, s.reason = Outcome.WIN, Reason.NORMAL
                    s.detail = "won by forfeit: the opponent " + "; ".join(
                        reason_text(f.reason) for f in forfeits
                    )
            winners = [s.seat for s in record.seats if s.outcome is Outcome.WIN]
            record.winner = winners[0] if len(winners) == 1 else None
        else:
            winner_pid = game.get_winner()
            for s in record.seats:
                s.reason = Reason.NORMAL
                if winner_pid is None:
                    s.outcome = Outcome.DRAW
                else:
                    s.outcome = Outcome.WIN if s.player_id == winner_pid else Outcome.LOSS
            record.winner = None if winner_pid is None else self.seat_of[winner_pid]
        for s in record.seats:
            if s.seat in forfeited and forfeited[s.seat].reason in (Reason.CRASH, Reason.TIMEOUT):
                continue
            if s.seat in forfeited and forfeited[s.seat].reason is Reason.INIT_ERROR:
                continue
            # The result stands whatever on_match_end does; its log entry shows what happened.
            with contextlib.suppress(_Forfeit):
                self._hook(s.seat, "on_match_end", self._match_result(s))

    def _match_result(self, seat_result: SeatResult) -> dict[str, Any]:
        others = [s for s in self.record.seats if s.seat != seat_result.seat]
        if self.record.winner is None:
            winner = None
        else:
            winner = "you" if self.record.winner == seat_result.seat else "opponent"
        forfeit = next(
            (s for s in self.record.seats if s.reason not in (Reason.NORMAL, None)), None
        )
        if forfeit is None:
            reason = "normal"
        elif forfeit.seat == seat_result.seat:
            reason = f"{forfeit.reason}: {forfeit.detail}"
        else:
            # The opponent's exception texts and refusal reasons quote its source: never sent.
            raised = self.forfeits.get(forfeit.seat, False)
            reason = f"{forfeit.reason}: " + public_reason(
                forfeit.reason, who="the opponent's agent", raised=raised
            )
        return {
            "winner": winner,
            "your_total": seat_result.score,
            "opponent_total": others[0].score if others else 0,
            "rounds": self.record.rounds_played,
            "reason": reason,
        }

    def close(self) -> None:
        """Close every handle, whatever happened."""
        for agent in self.agents:
            try:
                agent.close()
            except Exception as exc:  # closing must never lose a result
                self._log({"method": "close", "seat": None, "error": f"close failed: {exc}"})


class _InitFailures(Exception):
    def __init__(self, failures: list[_Forfeit]) -> None:
        super().__init__("; ".join(f.detail for f in failures))
        self.failures = failures


def play_match(
    game_id: str,
    agents: Sequence[AgentHandle],
    *,
    seed: int = 0,
    config: Mapping[str, Any] | None = None,
    settings: MatchSettings | None = None,
    on_event: EventSink | None = None,
    judge: Judge | None = None,
) -> MatchRecord:
    """Play one full match of ``game_id`` between ``agents`` (seat order) and return its record.

    Never raises for anything an agent does. A failure of the platform (the sandbox backend, a
    bug in a game engine, a judged game's judge that cannot answer) is returned as
    ``record.platform_error`` with no outcomes. ``judge`` answers a judged game's requests
    (``games.core.judge``); every answer is logged as a ``judge`` entry.
    """
    began = time.perf_counter()
    match = _Match(game_id, agents, seed, config, settings or MatchSettings(), on_event, judge)
    try:
        try:
            match.start_agents()
            match.play()
        except _InitFailures as exc:
            match.finish(match.blame(exc.failures))
        except _Forfeit as forfeit:
            match.finish(match.blame([forfeit]))
        else:
            match.finish([])
    except PlatformError as exc:
        match.record.platform_error = str(exc)
        match.record.platform_traceback = traceback.format_exc()
    except Exception as exc:  # a bug on our side (an engine's, the referee's): nobody forfeits
        # The message may quote the game's hidden state: it goes to staff with the traceback.
        match.record.platform_error = (
            f"the {game_id} engine or the referee failed ({type(exc).__name__}): a bug on the "
            "platform's side, not an agent's; the match is not rated"
        )
        match.record.platform_traceback = traceback.format_exc()
        match.record.platform_error_retryable = False
    finally:
        match.close()
    match.record.duration_s = round(time.perf_counter() - began, 3)
    return match.record
