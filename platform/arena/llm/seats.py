"""A model entrant's seat in the worker: ``LlmSeat`` with the platform's hooks (docs/llm-seats.md).

The hooks are the platform's metering (``arena.llm.metering``: the model's slot, never charged;
the per-match cost cap, here a platform error: re-queued, then unrated; every call in the
ledger).
"""

from __future__ import annotations

from django.conf import settings

from arena.llm.metering import CapReached, MeteredModel, endpoint_for
from arena.llm.models import ModelCall, ModelEntrantConfig
from games.core import PlatformError
from llm_seat import LlmSeat, Sampling, SeatPolicy


class PlatformHooks(MeteredModel):
    """A model seat's metering: its match cap reached is the platform's failure (re-queued,
    then unrated), never the entrant's forfeit."""

    def before_call(self) -> None:
        """Stop at the per-match cap."""
        try:
            super().before_call()
        except CapReached as reached:
            raise PlatformError(str(reached)) from None


def model_seat(
    *,
    config: ModelEntrantConfig,
    name: str,
    match_id: int | None,
    match_attempt: int = 0,
    seat: int = 0,
    validation: bool = False,
    move_budget_s: float | None = None,
) -> LlmSeat:
    """A fresh, unstarted seat for one model entrant; ``move_budget_s`` is its match's budget
    per move when timed (empty: ``ARENA_LLM_MOVE_BUDGET_S``)."""
    model = config.model
    return LlmSeat(
        endpoint=endpoint_for(model),
        sampling=Sampling(
            max_tokens=min(config.max_tokens, model.max_tokens_cap),
            temperature=config.temperature,
            top_p=config.top_p,
        ),
        policy=SeatPolicy(
            move_budget_s=(
                settings.ARENA_LLM_MOVE_BUDGET_S if move_budget_s is None else move_budget_s
            ),
            untimed_call_cap_s=settings.ARENA_LLM_UNTIMED_CALL_CAP_S,
            json_output=config.json_output,
            system_prompt_addition=config.system_prompt_addition,
            provider_attempts=settings.ARENA_LLM_PROVIDER_ATTEMPTS,
            backoff_s=settings.ARENA_LLM_BACKOFF_S,
            validation=validation,
            max_response_bytes=settings.ARENA_LLM_MAX_RESPONSE_BYTES,
        ),
        hooks=PlatformHooks(
            model=model,
            purpose=ModelCall.Purpose.SEAT,
            match_id=match_id,
            match_attempt=match_attempt,
            seat=seat,
            submission_id=config.submission_id,
            cap_usd=settings.ARENA_LLM_MATCH_CAP_USD,
            cap_name="ARENA_LLM_MATCH_CAP_USD",
        ),
        display_name=name,
    )
