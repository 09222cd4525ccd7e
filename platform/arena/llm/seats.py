"""A model entrant's seat in the worker: ``LlmSeat`` with the platform's hooks (docs/llm-seats.md).

The hooks wait for the model's Redis slot (never charged), stop a match at its cost cap (a
platform error: re-queued, then unrated) and write every call to the ledger. The key is read
from the worker's environment here and goes nowhere but the request's header.
"""

from __future__ import annotations

import contextlib
import logging
import os

from django.conf import settings
from django.db import close_old_connections

from arena.llm import limits
from arena.llm.models import ModelEntrantConfig
from arena.llm.services import model_call_record
from games.core import PlatformError
from llm_seat import Endpoint, LlmSeat, Sampling, SeatPolicy
from llm_seat.handle import CallRecord

logger = logging.getLogger(__name__)


class PlatformHooks:
    """Slots, the per-match cost cap and the ledger for one seat of one match attempt."""

    def __init__(
        self, *, config: ModelEntrantConfig, match_id: int | None, match_attempt: int, seat: int
    ) -> None:
        self.config = config
        self.model = config.model
        self.match_id = match_id
        self.match_attempt = match_attempt
        self.seat = seat
        self.spent_usd = 0.0

    def slot(self) -> contextlib.AbstractContextManager[None]:
        """The model's concurrency and rate slot."""
        return limits.model_slot(
            model=self.model.name,
            concurrency=self.model.concurrency,
            per_minute=self.model.requests_per_minute,
        )

    def before_call(self) -> None:
        """Stop at the per-match cap."""
        cap = settings.ARENA_LLM_MATCH_CAP_USD
        if self.spent_usd >= cap:
            raise PlatformError(
                f"the match reached its model cost cap ({cap:g} USD, ARENA_LLM_MATCH_CAP_USD)"
            )

    def record(self, call: CallRecord) -> None:
        """Add the call to the ledger; a ledger that cannot be written never stops the match."""
        self.spent_usd += call.cost_usd
        if self.match_id is None:
            return
        try:
            model_call_record(
                match_id=self.match_id,
                match_attempt=self.match_attempt,
                seat=self.seat,
                submission_id=self.config.submission_id,
                model_id=self.model.pk,
                call=call,
            )
        except Exception:
            logger.exception(
                "match %s: a model call could not be written to the ledger", self.match_id
            )
            close_old_connections()


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
    key = os.environ.get(model.api_key_env, "") if model.api_key_env else ""
    if model.api_key_env and not key:
        raise PlatformError(
            f"model {model.name}: the worker has no environment variable {model.api_key_env} "
            "(the operator must set it)"
        )
    return LlmSeat(
        endpoint=Endpoint(
            name=model.name,
            base_url=model.base_url,
            model=model.model_id,
            api_key=key,
            price_input_per_mtok_usd=float(model.price_input_per_mtok_usd),
            price_output_per_mtok_usd=float(model.price_output_per_mtok_usd),
            json_style=model.json_style,
        ),
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
            config=config, match_id=match_id, match_attempt=match_attempt, seat=seat
        ),
        display_name=name,
    )
