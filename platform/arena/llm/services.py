"""Writes of the model app: entrants (an immutable ``Submission`` with its ``ModelEntrantConfig``),
the ledger, pausing an entrant over its cost cap."""

from __future__ import annotations

import hashlib
import json
import math
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max

from arena.accounts.models import User
from arena.errors import Forbidden, Refused
from arena.llm.models import AgentModelPolicy, LanguageModel, ModelCall, ModelEntrantConfig
from arena.llm.selectors import models_agents_may_call, spend_month_usd, spend_today_usd
from arena.submissions.models import Agent, Submission
from games.core import UnknownGameError, get_game_spec
from llm_seat.handle import CallRecord
from llm_seat.prompt import clean_text

#: What an entrant's name may look like (the same shape as agent names from uploads).
_MAX_NAME = 64


def _float_in(value: Any, low: float, high: float, what: str) -> float | None:
    if value is None or value == "":
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise Refused(f"{what} must be a number between {low:g} and {high:g}") from None
    if not math.isfinite(number) or not low <= number <= high:
        raise Refused(f"{what} must be between {low:g} and {high:g}, got {value}")
    return number


def entrant_config_json(config: ModelEntrantConfig, *, game: str) -> str:
    """The canonical JSON an entrant version stores as its ``source`` (sorted keys, no spaces)."""
    return json.dumps(
        {
            "kind": "language-model",
            "model": config.model.name,
            "model_id": config.model.model_id,
            "game": game,
            "system_prompt_addition": config.system_prompt_addition,
            "temperature": config.temperature,
            "top_p": config.top_p,
            "max_tokens": config.max_tokens,
            "json_output": config.json_output,
        },
        sort_keys=True,
        separators=(",", ":"),
    )


@transaction.atomic
def model_entrant_create(
    *,
    owner: User,
    model_name: str,
    game: str,
    name: str,
    system_prompt_addition: str = "",
    temperature: Any = None,
    top_p: Any = None,
    max_tokens: Any = None,
    json_output: bool = True,
) -> Submission:
    """Store a new, pending model-entrant version (the caller queues its validation).

    Every change makes a new version of the named agent; a name that holds uploaded code is
    refused (an agent is code or a model, not both).
    """
    model = LanguageModel.objects.filter(name=model_name, enabled=True).first()
    if model is None:
        offered = ", ".join(
            LanguageModel.objects.filter(enabled=True).values_list("name", flat=True)
        )
        raise Refused(f"no enabled model named {model_name!r}; offered: {offered or 'none'}")
    try:
        spec = get_game_spec(game)
    except UnknownGameError:
        raise Refused(f"no game {game!r}") from None
    name = (name or "").strip()
    if not name or len(name) > _MAX_NAME or not name.replace("-", "").replace("_", "").isalnum():
        raise Refused("the name must be 1-64 letters, digits, '-' or '_'")
    limit = settings.ARENA_LLM_SYSTEM_PROMPT_MAX_CHARS
    addition = system_prompt_addition or ""
    if len(addition) > limit:
        raise Refused(f"the system-prompt addition has {len(addition)} characters; at most {limit}")
    addition = clean_text(addition, limit).strip()
    temp = _float_in(temperature, 0.0, 2.0, "temperature")
    if temp is None:
        temp = model.default_temperature
    nucleus = _float_in(top_p, 0.0, 1.0, "top_p")
    if nucleus is None:
        nucleus = model.default_top_p
    tokens = _float_in(max_tokens, 1, model.max_tokens_cap, "max_tokens")
    tokens_int = (
        int(tokens) if tokens is not None else min(model.default_max_tokens, model.max_tokens_cap)
    )
    agent, _ = Agent.objects.get_or_create(owner=owner, game=game, name=name)
    agent = Agent.objects.select_for_update().get(pk=agent.pk)
    if agent.submissions.filter(model_entrant__isnull=True).exists():
        raise Refused(
            f"your agent {name!r} runs uploaded code; give the model entrant another name"
        )
    config = ModelEntrantConfig(
        model=model,
        system_prompt_addition=addition,
        temperature=temp,
        top_p=nucleus,
        max_tokens=tokens_int,
        json_output=bool(json_output),
    )
    source = entrant_config_json(config, game=game)
    version = (agent.submissions.aggregate(v=Max("version"))["v"] or 0) + 1
    submission = Submission.objects.create(
        agent=agent,
        version=version,
        source=source,
        sha256=hashlib.sha256(source.encode("utf-8")).hexdigest(),
        game_version=spec.version,
    )
    config.submission = submission
    config.save(force_insert=True)
    return submission


def model_call_record(
    *,
    match_id: int,
    match_attempt: int,
    seat: int,
    submission_id: int | None,
    model_id: int,
    call: CallRecord,
    purpose: str = ModelCall.Purpose.SEAT,
) -> ModelCall:
    """Store one call in the ledger (``submission_id`` empty for the site's own calls)."""
    turn = call.turn if isinstance(call.turn, int) and not isinstance(call.turn, bool) else None
    return ModelCall.objects.create(
        match_id=match_id,
        match_attempt=match_attempt,
        purpose=purpose,
        seat=seat,
        submission_id=submission_id,
        model_id=model_id,
        round=call.round if isinstance(call.round, int) else 0,
        turn=turn,
        attempt=call.attempt,
        outcome=call.outcome,
        messages=call.messages,
        text=call.text.replace("\x00", ""),
        reasoning=call.reasoning.replace("\x00", ""),
        prompt_tokens=call.prompt_tokens,
        completion_tokens=call.completion_tokens,
        reasoning_tokens=call.reasoning_tokens,
        latency_ms=round(call.latency_s * 1000, 3),
        cost_usd=Decimal(str(round(call.cost_usd, 8))),
        request_id=call.request_id.replace("\x00", ""),
        error=call.error,
    )


def model_entrant_pause(*, config: ModelEntrantConfig, reason: str) -> None:
    """Take an entrant off its ladder with the reason shown on its page (activating it again
    clears the reason)."""
    Submission.objects.filter(pk=config.submission_id).update(active=False)
    config.paused_reason = reason
    config.save(update_fields=["paused_reason"])


def model_budget_refusal(*, config: ModelEntrantConfig) -> str:
    """Why a match of this entrant may not be scheduled now ("" when it may): the site's
    monthly budget must still hold a whole match's cap, and the entrant be under its daily cap."""
    monthly = Decimal(str(settings.ARENA_LLM_MONTHLY_BUDGET_USD))
    match_cap = Decimal(str(settings.ARENA_LLM_MATCH_CAP_USD))
    if spend_month_usd() + match_cap > monthly:
        return (
            f"the site's monthly model budget ({monthly} USD) has no room for another match; "
            "it renews on the 1st (UTC)"
        )
    daily = Decimal(str(settings.ARENA_LLM_ENTRANT_DAILY_CAP_USD))
    today = spend_today_usd(agent_id=config.submission.agent_id)
    if today >= daily:
        return (
            f"this entrant spent {today:.4f} USD today, its daily cap is {daily} USD; "
            "activate it again tomorrow (UTC)"
        )
    return ""


def model_entrants_pause_over_budget() -> int:
    """Pause every active model entrant that has no budget for another match; how many."""
    paused = 0
    active = ModelEntrantConfig.objects.select_related("submission").filter(submission__active=True)
    for config in active:
        reason = model_budget_refusal(config=config)
        if reason:
            model_entrant_pause(config=config, reason=reason)
            paused += 1
    return paused


def _budget(value: Any, what: str) -> Decimal:
    number = _float_in(value, 0.0, 1000.0, what)
    return Decimal(str(number or 0)).quantize(Decimal("0.0001"))


@transaction.atomic
def agent_model_policy_set(
    *,
    submission: Submission,
    user: User,
    model_names: list[str],
    match_budget_usd: Any,
    day_budget_usd: Any,
) -> AgentModelPolicy:
    """Let a code agent's version call ``model_names`` through its sandbox's gateway, within a
    budget per match and per UTC day (USD; 0 with no model: no calls). Only the owner may, only
    for uploaded code, only models the operator lets agents call."""
    if submission.agent.owner_id != user.pk:
        raise Forbidden("only the agent's owner chooses the models it may call")
    if submission.house_bot or hasattr(submission, "model_entrant"):
        raise Refused("only uploaded code calls models through the gateway")
    names = sorted({str(n).strip() for n in model_names if str(n).strip()})
    models = list(LanguageModel.objects.filter(name__in=names, enabled=True, agents_may_call=True))
    unknown = sorted(set(names) - {m.name for m in models})
    if unknown:
        callable_names = ", ".join(m.name for m in models_agents_may_call())
        raise Refused(
            f"agents may not call {', '.join(unknown)}: "
            + (
                f"the models agents may call are {callable_names}"
                if callable_names
                else "this site lets agents call no model yet (its operator allows one in the "
                "admin: Language models, 'Agents may call')"
            )
        )
    match_budget = _budget(match_budget_usd, "the budget per match (USD)")
    day_budget = _budget(day_budget_usd, "the budget per day (USD)")
    if models and match_budget > day_budget:
        raise Refused(
            "the budget per match is over the budget per day: raise the day's or lower the match's"
        )
    policy, _ = AgentModelPolicy.objects.select_for_update().get_or_create(submission=submission)
    policy.match_budget_usd = match_budget
    policy.day_budget_usd = day_budget
    policy.save()
    policy.allowed_models.set(models)
    return policy
