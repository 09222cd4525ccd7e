"""Every model call the platform makes goes through here: a model seat's move, a judged game's
role, a code agent's call through the sandbox's gateway (docs/llm-seats.md).

Three things hold for all of them, whoever asks:

* the call waits for the model's concurrency and rate slot (``limits.model_slot``), and that
  wait is never charged to anyone's clock;
* the caller's cap for this match is checked before each call (``CapReached`` when it is spent:
  what that means is the caller's to say: a platform error for a seat or a judge, an error the
  agent receives for the gateway: ``AgentMeter``, which also checks the owner's budget per day
  and the operator's caps per user per day and month);
* each call becomes one ledger row (``ModelCall``) under the match, with its purpose and the
  submission that pays (none for the site's own calls); a ledger that cannot be written never
  stops a match.

``endpoint_for`` is the one place that turns a registered model into the client's ``Endpoint``:
the key is read from the worker's environment here and goes nowhere but the request's header.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from arena.llm import limits
from arena.llm.models import LanguageModel, ModelCall
from arena.llm.services import model_call_record
from games.core import PlatformError
from llm_seat import Endpoint
from llm_seat.gateway import BudgetSpent
from llm_seat.handle import CallRecord

logger = logging.getLogger(__name__)


class CapReached(Exception):
    """The caller's cap for this match is spent; the text says which cap and its setting."""


def endpoint_for(model: LanguageModel) -> Endpoint:
    """The client's view of a registered model, with its key from the worker's environment.

    Raises ``PlatformError`` when the operator named a key variable the worker does not have:
    that is the operator's to fix, never a player's fault."""
    key = os.environ.get(model.api_key_env, "") if model.api_key_env else ""
    if model.api_key_env and not key:
        raise PlatformError(
            f"model {model.name}: the worker has no environment variable {model.api_key_env} "
            "(the operator must set it)"
        )
    return Endpoint(
        name=model.name,
        base_url=model.base_url,
        model=model.model_id,
        api_key=key,
        price_input_per_mtok_usd=float(model.price_input_per_mtok_usd),
        price_output_per_mtok_usd=float(model.price_output_per_mtok_usd),
        json_style=model.json_style,
    )


class Spend:
    """What one caller spent in one match (USD), shared by its meters of several models (a code
    agent allowed two models has one budget per match)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.usd = 0.0


class MeteredModel:
    """Slots, one cap and the ledger for one caller of one model in one match attempt.

    ``cap_usd`` bounds what this caller may spend in the match (``None``: no cap of its own);
    ``cap_name`` is what a person reads when it is reached (the setting or form field that sets
    it); ``spend`` is shared by the meters of one caller's several models. Safe to use from
    several threads (a gateway serves concurrent calls of one agent)."""

    def __init__(
        self,
        *,
        model: LanguageModel,
        purpose: ModelCall.Purpose,
        match_id: int | None,
        match_attempt: int = 0,
        seat: int = 0,
        submission_id: int | None = None,
        cap_usd: float | None = None,
        cap_name: str = "",
        spend: Spend | None = None,
    ) -> None:
        self.model = model
        self.purpose = purpose
        self.match_id = match_id
        self.match_attempt = match_attempt
        self.seat = seat
        self.submission_id = submission_id
        self.cap_usd = cap_usd
        self.cap_name = cap_name
        self.spend = spend or Spend()

    @property
    def spent_usd(self) -> float:
        """What this caller spent in the match so far (USD)."""
        return self.spend.usd

    def slot(self) -> contextlib.AbstractContextManager[None]:
        """The model's concurrency and rate slot (never charged to a clock)."""
        return limits.model_slot(
            model=self.model.name,
            concurrency=self.model.concurrency,
            per_minute=self.model.requests_per_minute,
        )

    def before_call(self) -> None:
        """Raise ``CapReached`` when this caller's cap for the match is spent."""
        with self.spend.lock:
            spent = self.spend.usd
        if self.cap_usd is not None and spent >= self.cap_usd:
            raise CapReached(
                f"the match reached its model cost cap ({self.cap_usd:g} USD, {self.cap_name})"
            )

    def record(self, call: CallRecord) -> None:
        """Count the call against the cap and add it to the ledger; a ledger that cannot be
        written is logged and never stops the match."""
        with self.spend.lock:
            self.spend.usd += call.cost_usd
        if self.match_id is None:
            return
        try:
            model_call_record(
                match_id=self.match_id,
                match_attempt=self.match_attempt,
                purpose=self.purpose,
                seat=self.seat,
                submission_id=self.submission_id,
                model_id=self.model.pk,
                call=call,
            )
        except Exception:
            logger.exception(
                "match %s: a model call could not be written to the ledger", self.match_id
            )
            close_old_connections()


class AgentMeter(MeteredModel):
    """A code agent's gateway calls to one model (purpose ``agent``): over its owner's budget
    per match, per day, or the operator's cap per user per day or month, a call is refused with
    ``BudgetSpent`` (HTTP 429 to the agent: its problem, never the platform's)."""

    def __init__(
        self,
        *,
        owner_id: int,
        day_budget_usd: float,
        **kwargs: Any,
    ) -> None:
        super().__init__(purpose=ModelCall.Purpose.AGENT, **kwargs)
        self.owner_id = owner_id
        self.day_budget_usd = day_budget_usd

    def before_call(self) -> None:
        """Refuse the call when any budget that covers it is spent."""
        try:
            super().before_call()
        except CapReached as reached:
            raise BudgetSpent(str(reached)) from None
        assert self.submission_id is not None
        from arena.llm.selectors import agent_spend_today_usd, owner_agent_spend_usd

        try:
            today = float(agent_spend_today_usd(submission_id=self.submission_id))
            user_day = float(owner_agent_spend_usd(owner_id=self.owner_id))
            user_month = float(owner_agent_spend_usd(owner_id=self.owner_id, month=True))
        except Exception:  # the database is gone: refuse rather than spend without a ledger
            logger.exception("the agent's model spend could not be read")
            close_old_connections()
            raise BudgetSpent("the model budget could not be checked; try again later") from None
        for spent, cap, what in (
            (today, self.day_budget_usd, "its budget per day (the owner's, on the agent's page)"),
            (
                user_day,
                settings.ARENA_AGENT_MODEL_USER_DAY_CAP_USD,
                "the site's cap per user per day (ARENA_AGENT_MODEL_USER_DAY_CAP_USD)",
            ),
            (
                user_month,
                settings.ARENA_AGENT_MODEL_USER_MONTH_CAP_USD,
                "the site's cap per user per month (ARENA_AGENT_MODEL_USER_MONTH_CAP_USD)",
            ),
        ):
            if spent >= cap:
                raise BudgetSpent(
                    f"this agent's model calls reached {what}: {cap:g} USD; answer without "
                    "the model"
                )
