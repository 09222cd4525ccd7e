"""Admin: the operator's model registry (keys stay in the environment), entrants and spend."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet, Sum
from django.http import HttpRequest

from arena.llm.models import AgentModelPolicy, LanguageModel, ModelCall, ModelEntrantConfig


def _spend_usd(calls: QuerySet[ModelCall]) -> str:
    """What these calls cost, in US dollars to four places."""
    total = calls.aggregate(t=Sum("cost_usd"))["t"] or 0
    return f"{total:.4f}"


@admin.register(LanguageModel)
class LanguageModelAdmin(admin.ModelAdmin[LanguageModel]):
    list_display = (
        "name",
        "display_name",
        "model_id",
        "base_url",
        "api_key_env",
        "concurrency",
        "requests_per_minute",
        "enabled",
        "agents_may_call",
        "spend_usd",
    )
    list_filter = ("enabled", "agents_may_call")

    @admin.display(description="spend (USD)")
    def spend_usd(self, obj: LanguageModel) -> str:
        return _spend_usd(obj.calls.all())


@admin.register(ModelEntrantConfig)
class ModelEntrantConfigAdmin(admin.ModelAdmin[ModelEntrantConfig]):
    list_display = (
        "submission",
        "model",
        "max_tokens",
        "json_output",
        "paused_reason",
        "spend_usd",
    )
    list_filter = ("model",)
    readonly_fields = (
        "submission",
        "model",
        "system_prompt_addition",
        "temperature",
        "top_p",
        "max_tokens",
        "json_output",
    )

    @admin.display(description="spend (USD)")
    def spend_usd(self, obj: ModelEntrantConfig) -> str:
        return _spend_usd(obj.submission.model_calls.all())


@admin.register(ModelCall)
class ModelCallAdmin(admin.ModelAdmin[ModelCall]):
    list_display = (
        "match_id",
        "seat",
        "model",
        "outcome",
        "prompt_tokens",
        "completion_tokens",
        "latency_ms",
        "cost_usd",
        "request_id",
        "created",
    )
    list_filter = ("model", "outcome")

    def get_queryset(self, request: HttpRequest) -> QuerySet[ModelCall]:
        return super().get_queryset(request).select_related("model")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(AgentModelPolicy)
class AgentModelPolicyAdmin(admin.ModelAdmin[AgentModelPolicy]):
    """What each code agent's version may call and spend (its owner sets it)."""

    list_display = ("submission", "match_budget_usd", "day_budget_usd", "updated")
    readonly_fields = ("submission",)
    filter_horizontal = ("allowed_models",)
