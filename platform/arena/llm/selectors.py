"""Reads of the model app: entrants, spend, the ledger of a match."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db.models import Sum
from django.utils import timezone

from arena.llm.models import (
    AgentModelHold,
    AgentModelPolicy,
    LanguageModel,
    ModelCall,
    ModelEntrantConfig,
)
from arena.submissions.models import Submission


def model_entrant_of(submission: Submission) -> ModelEntrantConfig | None:
    """The model config of a submission, or ``None`` for uploaded code and house bots."""
    return ModelEntrantConfig.objects.select_related("model").filter(submission=submission).first()


def model_entrant_ids(submission_ids: Iterable[int]) -> set[int]:
    """Which of these submissions are model entrants (one query)."""
    return set(
        ModelEntrantConfig.objects.filter(submission_id__in=list(submission_ids)).values_list(
            "submission_id", flat=True
        )
    )


def model_names_of_versions(versions: Iterable[Submission]) -> dict[int, str]:
    """Version -> the display name of its model, for those of an agent's ``versions`` that are
    model entrants (what anyone may read about them: never the owner's settings or spend).
    ``versions`` read with ``select_related("model_entrant__model")``: no query here."""
    names = {}
    for submission in versions:
        try:
            names[submission.version] = submission.model_entrant.model.display_name
        except ModelEntrantConfig.DoesNotExist:
            continue
    return dict(sorted(names.items()))


def models_enabled() -> list[LanguageModel]:
    """The models users may enter."""
    return list(LanguageModel.objects.filter(enabled=True))


def _sum(qs: object) -> Decimal:
    total = qs.aggregate(total=Sum("cost_usd"))["total"]  # type: ignore[attr-defined]
    return Decimal(total or 0)


def _day_start() -> datetime:
    return timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)


def spend_today_usd(*, agent_id: int) -> Decimal:
    """What an entrant (every version of the agent) spent since midnight UTC."""
    return _sum(ModelCall.objects.filter(submission__agent_id=agent_id, created__gte=_day_start()))


def spend_total_usd(*, agent_id: int) -> Decimal:
    """What an entrant spent, ever."""
    return _sum(ModelCall.objects.filter(submission__agent_id=agent_id))


def spend_month_usd() -> Decimal:
    """What the whole site spent on models this calendar month (UTC)."""
    start = _day_start().replace(day=1)
    return _sum(ModelCall.objects.filter(created__gte=start))


def match_model_calls(*, match_id: int) -> list[ModelCall]:
    """The ledger of one match, in call order."""
    return list(ModelCall.objects.filter(match_id=match_id).order_by("pk"))


def match_uses_models(*, match_id: int, submission_ids: Iterable[int]) -> bool:
    """Whether a match has anything to show of models: a model entrant among its seats, or a
    model call in its ledger (a code agent's or a judge's)."""
    return bool(model_entrant_ids(submission_ids)) or (
        ModelCall.objects.filter(match_id=match_id).exists()
    )


def models_agents_may_call() -> list[LanguageModel]:
    """The models the operator lets code agents call (enabled ones)."""
    return list(LanguageModel.objects.filter(enabled=True, agents_may_call=True))


def agent_model_policy_of(submission: Submission) -> AgentModelPolicy | None:
    """What a code agent's version may call and spend: its own choice, else that of the latest
    earlier version of the same agent that has one (a new version keeps its models and budgets
    until its owner changes them); ``None`` when its owner never set any."""
    return (
        AgentModelPolicy.objects.filter(
            submission__agent_id=submission.agent_id,
            submission__version__lte=submission.version,
        )
        .order_by("-submission__version")
        .prefetch_related("allowed_models")
        .first()
    )


def agent_callable_models(policy: AgentModelPolicy) -> list[LanguageModel]:
    """The policy's models the operator still lets agents call, by name (the first is the
    default)."""
    return sorted(
        (m for m in policy.allowed_models.all() if m.enabled and m.agents_may_call),
        key=lambda m: m.name,
    )


def agent_spend_today_usd(*, submission_id: int) -> Decimal:
    """What one version's gateway calls cost since midnight UTC (every match)."""
    return _sum(
        ModelCall.objects.filter(
            purpose=ModelCall.Purpose.AGENT, submission_id=submission_id, created__gte=_day_start()
        )
    )


def owner_agent_spend_usd(*, owner_id: int, month: bool = False) -> Decimal:
    """What one user's agents' gateway calls cost since midnight UTC (or since the first of
    the month with ``month``)."""
    start = _day_start().replace(day=1) if month else _day_start()
    return _sum(
        ModelCall.objects.filter(
            purpose=ModelCall.Purpose.AGENT,
            submission__agent__owner_id=owner_id,
            created__gte=start,
        )
    )


@dataclass(frozen=True)
class AgentSpendTaken:
    """What the budgets of one agent's version and its owner have spent or hold (USD)."""

    version_day: Decimal
    owner_day: Decimal
    owner_month: Decimal


def agent_spend_taken_usd(*, submission_id: int, owner_id: int) -> AgentSpendTaken:
    """The ledger's agent calls of today and this month, plus the unexpired holds of calls in
    flight (``AgentModelHold``), of one version and of all its owner's agents. Read under the
    owner's row lock (``arena.llm.metering.AgentMeter``) for the sums to stay true until the
    caller's own hold is in."""
    holds = AgentModelHold.objects.filter(
        submission__agent__owner_id=owner_id, expires__gte=timezone.now()
    )
    owner_held = Decimal(holds.aggregate(total=Sum("amount_usd"))["total"] or 0)
    version_held = Decimal(
        holds.filter(submission_id=submission_id).aggregate(total=Sum("amount_usd"))["total"] or 0
    )
    return AgentSpendTaken(
        version_day=agent_spend_today_usd(submission_id=submission_id) + version_held,
        owner_day=owner_agent_spend_usd(owner_id=owner_id) + owner_held,
        owner_month=owner_agent_spend_usd(owner_id=owner_id, month=True) + owner_held,
    )
