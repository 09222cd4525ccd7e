"""The judge of a judged game on the platform: the operator's registered model, metered.

A judged game (``games.core.judge``) asks its role (athlete, president, keeper) through a
``Judge``; here that judge is the model the operator names for the game (``ARENA_JUDGE_MODEL``,
``ARENA_JUDGES``). Every call goes through ``arena.llm.metering`` (``MeteredModel`` with
``purpose=JUDGE`` and no submission: the site pays, the monthly budget counts it, the call is a
ledger row under the match), and through the model client with the request's JSON schema as the
response format, temperature 0 and the request's seed. Provider failures are retried with a
back-off; when they persist, or the match's judge cap is spent, the judge raises
``JudgeFailed``: a platform error, the match re-queued, then unrated, never a loss.

``judge_status`` says whether a game can be played ranked at all: a judged game without a
judge, or whose model is missing or disabled, is unavailable, with the reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from arena.llm.metering import CapReached, MeteredModel, endpoint_for
from arena.llm.models import LanguageModel, ModelCall
from games.core import PlatformError
from games.core.judge import Judge, JudgeFailed, JudgeRequest, answer_from_text
from games.core.registry import UnknownGameError, is_judged
from llm_seat import CallTimedOut, ModelClient, ProviderError, ReplyTooLarge, Sampling
from llm_seat.handle import CallRecord


@dataclass(frozen=True)
class JudgeSetting:
    """What the operator named for one judged game."""

    model_name: str
    cap_usd: float


@dataclass(frozen=True)
class JudgeStatus:
    """Whether a game can be played on the platform: ``ok``, or why not (``reason``)."""

    judged: bool
    model: LanguageModel | None = None
    cap_usd: float = 0.0
    reason: str = ""

    @property
    def ok(self) -> bool:
        """Playable: not judged, or judged with a judge."""
        return not self.judged or self.model is not None


def judge_settings() -> dict[str, JudgeSetting]:
    """Per-game judges from ``ARENA_JUDGES`` (``game=model[:cap]`` separated by commas);
    entries that cannot be read are ignored (``arena_setup`` reports them)."""
    named: dict[str, JudgeSetting] = {}
    for part in str(settings.ARENA_JUDGES or "").split(","):
        game, sep, rest = part.strip().partition("=")
        if not sep or not game.strip() or not rest.strip():
            continue
        model, _, cap = rest.strip().partition(":")
        try:
            cap_usd = float(cap) if cap.strip() else settings.ARENA_JUDGE_MATCH_CAP_USD
        except ValueError:
            continue
        named[game.strip()] = JudgeSetting(model.strip(), cap_usd)
    return named


def judge_status(game_id: str) -> JudgeStatus:
    """Whether ``game_id`` needs a judge and has one (a read: one query at most)."""
    try:
        judged = is_judged(game_id)
    except UnknownGameError:
        return JudgeStatus(judged=False)
    if not judged:
        return JudgeStatus(judged=False)
    setting = judge_settings().get(game_id)
    if setting is None and settings.ARENA_JUDGE_MODEL:
        setting = JudgeSetting(settings.ARENA_JUDGE_MODEL, settings.ARENA_JUDGE_MATCH_CAP_USD)
    if setting is None:
        return JudgeStatus(
            judged=True,
            reason=(
                "no judge: this game is decided by a language model and the operator has not "
                "named one (ARENA_JUDGE_MODEL or ARENA_JUDGES)"
            ),
        )
    model = LanguageModel.objects.filter(name=setting.model_name).first()
    if model is None:
        return JudgeStatus(
            judged=True,
            reason=f"no judge: the judge's model {setting.model_name!r} is not registered",
        )
    if not model.enabled:
        return JudgeStatus(
            judged=True, reason=f"no judge: the judge's model {model.name!r} is disabled"
        )
    return JudgeStatus(judged=True, model=model, cap_usd=setting.cap_usd)


class PlatformJudge:
    """A ``Judge`` that asks a registered model, metered under one match (module docstring)."""

    def __init__(
        self,
        *,
        model: LanguageModel,
        match_id: int | None,
        match_attempt: int = 0,
        cap_usd: float | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model
        self.metered = MeteredModel(
            model=model,
            purpose=ModelCall.Purpose.JUDGE,
            match_id=match_id,
            match_attempt=match_attempt,
            seat=0,
            submission_id=None,
            cap_usd=cap_usd,
            cap_name="ARENA_JUDGE_MATCH_CAP_USD or the game's cap in ARENA_JUDGES",
        )
        self.client = ModelClient(
            endpoint_for(model), max_response_bytes=settings.ARENA_LLM_MAX_RESPONSE_BYTES
        )
        self.sleep = sleep
        self.calls = 0

    def close(self) -> None:
        """Close the client's connections."""
        self.client.close()

    def ask(self, request: JudgeRequest) -> Mapping[str, Any]:
        """One answer: the model's reply as JSON (any shape: the game checks it fits)."""
        messages = request.messages()
        sampling = Sampling(
            max_tokens=min(settings.ARENA_JUDGE_MAX_TOKENS, self.model.max_tokens_cap),
            temperature=0.0,
            seed=request.seed,
        )
        self.calls += 1
        attempts = max(1, settings.ARENA_LLM_PROVIDER_ATTEMPTS)
        pause = settings.ARENA_LLM_BACKOFF_S
        last = ""
        for tried in range(attempts):
            if tried:
                self.sleep(pause)
                pause = min(pause * 2, 8.0)
            try:
                self.metered.before_call()
            except CapReached as reached:
                raise JudgeFailed(str(reached)) from None
            seat = request.seat if request.seat is not None else 0
            try:
                with self.metered.slot():
                    completion = self.client.complete(
                        messages,
                        sampling=sampling,
                        timeout_s=settings.ARENA_JUDGE_CALL_TIMEOUT_S,
                        response_schema=dict(request.schema),
                    )
            except (CallTimedOut, ReplyTooLarge, ProviderError) as exc:
                outcome = {
                    CallTimedOut: "timeout",
                    ReplyTooLarge: "too_large",
                }.get(type(exc), "provider_error")
                self.metered.seat = seat
                self.metered.record(
                    CallRecord(
                        turn=None,
                        round=request.round,
                        attempt=tried,
                        messages=messages,
                        outcome=outcome,
                        error=str(exc),
                    )
                )
                last = str(exc)
                if isinstance(exc, ProviderError) and not exc.transient:
                    break
                continue
            except PlatformError as exc:  # no slot in a bounded time
                raise JudgeFailed(f"the judge's model had no free slot: {exc}") from None
            self.metered.seat = seat
            self.metered.record(
                CallRecord(
                    turn=None,
                    round=request.round,
                    attempt=tried,
                    messages=messages,
                    outcome="answered",
                    text=completion.text,
                    reasoning=completion.reasoning,
                    prompt_tokens=completion.prompt_tokens,
                    completion_tokens=completion.completion_tokens,
                    reasoning_tokens=completion.reasoning_tokens,
                    latency_s=completion.latency_s,
                    cost_usd=completion.cost_usd,
                    request_id=completion.request_id,
                )
            )
            answer = answer_from_text(completion.text)
            return answer if isinstance(answer, Mapping) else {"unreadable": completion.text[:200]}
        raise JudgeFailed(f"the judge's model {self.model.name} failed: {last}")


def platform_judge(
    *, game_id: str, match_id: int | None, match_attempt: int = 0
) -> PlatformJudge | None:
    """The judge of a match of ``game_id``: ``None`` for a game without one; ``JudgeFailed``
    when the game needs a judge and has none (the reason in the text)."""
    status = judge_status(game_id)
    if not status.judged:
        return None
    if status.model is None:
        raise JudgeFailed(status.reason)
    return PlatformJudge(
        model=status.model,
        match_id=match_id,
        match_attempt=match_attempt,
        cap_usd=status.cap_usd,
    )


__all__ = ["Judge", "JudgeStatus", "PlatformJudge", "judge_status", "platform_judge"]
