"""The result of a match: outcome per seat and a per-call log, all plain JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, TypedDict


class Outcome(StrEnum):
    """How a match ended for one seat."""

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"


class Reason(StrEnum):
    """Why it ended that way (the forfeits of docs/architecture.md, "The referee")."""

    #: The game reached its end by the rules.
    NORMAL = "normal"
    #: A call overran its time budget (and any time bank).
    TIMEOUT = "timeout"
    #: The fourth illegal action in a row (an exception in ``on_turn`` counts as one).
    ILLEGAL = "illegal"
    #: The agent's process died, ran out of memory or broke the protocol.
    CRASH = "crash"
    #: The agent never became ready (load, ``__init__``, ``GAME``, ``on_match_start``).
    INIT_ERROR = "init_error"


#: What everyone but a seat's owner is told about its forfeit: never the agent's own text
#: (exception messages and tracebacks quote its source; refusal reasons echo its replies).
PUBLIC_REASONS: dict[Reason, str] = {
    Reason.TIMEOUT: "{who} did not answer within its time budget",
    Reason.ILLEGAL: "{who} made illegal actions until its retries ran out",
    Reason.CRASH: "{who} crashed",
    Reason.INIT_ERROR: "{who} failed to start",
}
#: The public reason when the agent's last failure was an exception it raised.
PUBLIC_EXCEPTION_REASON = "{who} raised an exception"


def public_reason(
    reason: Reason | str | None, *, who: str = "the agent", raised: bool = False
) -> str:
    """A neutral sentence for a forfeit, safe to show anyone (``who`` names the seat)."""
    if raised:
        return PUBLIC_EXCEPTION_REASON.format(who=who)
    try:
        template = PUBLIC_REASONS.get(Reason(reason), "") if reason else ""
    except ValueError:
        template = ""
    return template.format(who=who)


#: What each forfeit reason means, as the end of a sentence about the seat ("X timed out: ...").
REASON_TEXT: dict[Reason, str] = {
    Reason.NORMAL: "played to the end",
    Reason.TIMEOUT: "ran out of time (a call took longer than its budget)",
    Reason.ILLEGAL: "made four illegal actions in a row",
    # Which of these it was (out of memory, killed by a signal, an exit code, a protocol
    # violation) is the seat's ``detail``, from the sandbox: the owner reads the precise one.
    Reason.CRASH: "crashed",
    Reason.INIT_ERROR: "failed to start (loading agent.py, Agent() or on_match_start failed)",
}


def reason_text(reason: str | None) -> str:
    """An outcome reason in words (``init_error`` → "failed to start (...)")."""
    try:
        return REASON_TEXT[Reason(reason or "")]
    except ValueError:
        return str(reason or "")


def score_text(value: float) -> str:
    """A score as a person reads it: ``250``, ``-19,750``, ``1.5``."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


class LogEntry(TypedDict, total=False):
    """One call the referee made (or an action it took), as the match log stores it.

    Written by the referee, stored by the platform's log store, read by the presenters and, for
    everyone but the seat's owner, passed through the game's public view (``visibility``).
    Every key is optional: an entry holds those that apply to it.
    """

    #: Position in the match's log, from 0.
    seq: int
    #: The round (0 before the first one) and the game's turn counter when it has one.
    round: int
    turn: int | None
    #: The seat called, ``None`` for an entry about no seat (a failed ``close``).
    seat: int | None
    #: The agent's method (``on_turn``, ``on_round_end``, …), ``load``, ``referee`` (an action the
    #: referee played for a seat), ``close``, or ``judge``: an answer of a judged game's judge
    #: (its ``payload`` holds the quoted texts, the request's digest, the answer, whether it fit
    #: the schema and the attempt; ``seat`` is the seat it was about, ``None`` for both).
    method: str
    #: What the agent was sent, and what it answered.
    payload: dict[str, Any] | None
    reply: Any
    #: The action applied to the game, in the agent's vocabulary.
    action: Any
    #: 0 for the first ask of a turn, then 1, 2, … after refusals.
    attempt: int
    #: Time charged to the agent (its own window), the controller's wall time, the backstop.
    elapsed_ms: float | None
    wall_ms: float | None
    backstop_ms: float
    #: On a timeout, what the backstop's host-wait extension saw of the agent's threads
    #: (``sandbox/host_wait.py``'s ``summary``: threads seen, CPU they ran, longest wait).
    host_wait: dict[str, float]
    #: CPU the agent's process used in its window, and how it was frozen afterwards.
    cpu_ms: float | None
    freeze: str | None
    #: Time the agent's model calls took through its sandbox's gateway (not charged; absent
    #: when it made none).
    model_ms: float
    #: What went wrong in the call (an exception, a timeout, a crash), for the owner.
    error: str | None
    #: Why the action was refused, for the owner.
    illegal: str
    #: What the agent printed during the call (training; ranked keeps none by default).
    stdout: str | None
    #: Set by the log store on an entry it had to cut to store it.
    truncated: bool
    note: str
    preview: str
    #: Set by the read path for display: the call failed (its reason may be hidden).
    failed: bool


@dataclass
class SeatResult:
    """One seat's result. ``detail`` explains a forfeit in words for the agent's owner."""

    seat: int
    player_id: str
    name: str
    outcome: Outcome | None = None
    reason: Reason | None = None
    score: float = 0.0
    detail: str = ""
    time_used_ms: float = 0.0
    turns: int = 0


@dataclass
class MatchRecord:
    """Everything a match produced. ``to_dict()`` is plain JSON.

    ``platform_error`` is set (and outcomes left empty) when the match could not be played for a
    reason that is not an agent's fault; the platform never rates such matches, and plays them
    again while ``platform_error_retryable`` says another attempt may end otherwise.
    It is written for the agents' owners; ``platform_traceback`` (the exception with its
    traceback, which may quote the game's hidden state) is for staff only.
    """

    game: str
    game_version: int
    config: dict[str, Any]
    seed: int
    timed: bool
    seats: list[SeatResult]
    winner: int | None = None
    #: How many rounds were played to their end.
    rounds_played: int = 0
    turns: int = 0
    duration_s: float = 0.0
    #: Each finished round: ``{"round": n, "result": {player id: that player's view}}``, as
    #: ``Match.rounds`` stores it.
    rounds: list[dict[str, Any]] = field(default_factory=list)
    log: list[LogEntry] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    final_state: dict[str, Any] = field(default_factory=dict)
    platform_error: str | None = None
    platform_traceback: str | None = None
    #: Whether playing the match again may end otherwise: true for a failure of the sandbox or
    #: the host (``PlatformError``: an engine gone, a timeout of our own), false for a bug in a
    #: game engine or the referee, which fails the same way on the same seed.
    platform_error_retryable: bool = True

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready dicts and lists (enums become their string values)."""
        data = asdict(self)
        for seat in data["seats"]:
            seat["outcome"] = str(seat["outcome"]) if seat["outcome"] is not None else None
            seat["reason"] = str(seat["reason"]) if seat["reason"] is not None else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchRecord:
        """Rebuild a record from ``to_dict()`` output."""
        values = dict(data)
        values["seats"] = [
            SeatResult(
                **{
                    **s,
                    "outcome": Outcome(s["outcome"]) if s.get("outcome") else None,
                    "reason": Reason(s["reason"]) if s.get("reason") else None,
                }
            )
            for s in data["seats"]
        ]
        return cls(**values)

    def summary(self) -> str:
        """One line for a person: who won, how, and the score."""
        if self.platform_error:
            return f"platform error: {self.platform_error}"
        names = [s.name for s in self.seats]
        # An agent against itself (a self-play check): say which seat is which.
        name = {
            s.seat: f"{s.name} (seat {s.seat + 1})" if names.count(s.name) > 1 else s.name
            for s in self.seats
        }
        scores = " · ".join(f"{name[s.seat]} {score_text(s.score)}" for s in self.seats)
        forfeits = [s for s in self.seats if s.reason not in (Reason.NORMAL, None)]
        winners = [s for s in self.seats if s.outcome is Outcome.WIN]
        if forfeits:
            who = " and ".join(f"{name[s.seat]} {reason_text(s.reason)}" for s in forfeits)
            head = f"{name[winners[0].seat]} won by forfeit" if len(winners) == 1 else "No winner"
            return f"{head}: {who}. Score when it stopped: {scores}."
        if len(winners) == 1:
            return f"{name[winners[0].seat]} won: {scores}."
        return f"Draw: {scores}."
