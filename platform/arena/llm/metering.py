"""Every model call the platform makes goes through here: a model seat's move, a judged game's
role, a code agent's call through the sandbox's gateway (docs/llm-seats.md).

Three things hold for all of them, whoever asks:

* the call waits for the model's concurrency and rate slot (``limits.model_slot``), and that
  wait is never charged to anyone's clock;
* the caller's cap for this match is checked before each call (``CapReached`` when it is spent:
  what that means is the caller's to say: a platform error for a seat or a judge, an error the
  agent receives for the gateway: ``AgentMeter``, which holds each call's most before it is made
  against the owner's budgets per match and per day and the operator's caps per user per day
  and month, so they are exact however many calls are in flight);
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
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import close_old_connections, transaction
from django.utils import timezone

from arena.llm import limits
from arena.llm.models import AgentModelHold, LanguageModel, ModelCall
from arena.llm.services import model_call_record
from arena.throttles import user_lock_id
from games.core import PlatformError
from llm_seat import Endpoint
from llm_seat.gateway import BudgetSpent, Settle
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
        #: What calls in flight may still cost (``AgentMeter.reserve``).
        self.held_usd = 0.0


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
            self._ledger_row(call)
        except Exception:
            logger.exception(
                "match %s: a model call could not be written to the ledger", self.match_id
            )
            close_old_connections()

    def _ledger_row(self, call: CallRecord) -> None:
        """Write ``call`` as this caller's ledger row under its match."""
        assert self.match_id is not None
        model_call_record(
            match_id=self.match_id,
            match_attempt=self.match_attempt,
            purpose=self.purpose,
            seat=self.seat,
            submission_id=self.submission_id,
            model_id=self.model.pk,
            call=call,
        )


#: A hold not settled within this long is a worker that died holding it: the budgets stop counting
#: it (a call's model time is far shorter; ``ARENA_AGENT_MODEL_TURN_S``).
HOLD_LEASE_S = 3600


class AgentMeter(MeteredModel):
    """A code agent's gateway calls to one model (purpose ``agent``), exact under concurrency.

    Before a call, ``reserve`` holds the most it may cost against every budget that covers it:
    the owner's budget per match (in this process: one match's calls all go through its
    gateway) and, in the database under the owner's row lock, its budget per day and the
    operator's caps per user per day and month (the ledger plus the holds of calls in flight,
    whichever match or worker made them). A call the budgets cannot hold is refused with
    ``BudgetSpent`` (HTTP 429 to the agent: its problem, never the platform's). After the call
    its ledger row is written and its hold deleted in one transaction, so a budget never counts
    a call twice nor misses one in flight."""

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

    @contextlib.contextmanager
    def reserve(self, max_cost_usd: float) -> Iterator[Settle]:
        """Hold ``max_cost_usd`` for one call (``llm_seat.gateway.GatewayHooks``)."""
        held = Decimal(str(round(max(0.0, max_cost_usd), 8)))
        self._hold_in_match(float(held))
        try:
            hold_id = self._hold_in_ledger(held)
        except BaseException:
            self._settle_in_match(float(held), 0.0)
            raise
        settled = False

        def settle(call: CallRecord) -> None:
            nonlocal settled
            settled = True
            self._settle_in_match(float(held), call.cost_usd)
            self._record_and_release(call, hold_id)

        try:
            yield settle
        finally:
            if not settled:
                self._settle_in_match(float(held), 0.0)
                self._release(hold_id)

    def _hold_in_match(self, held: float) -> None:
        with self.spend.lock:
            taken = self.spend.usd + self.spend.held_usd
            if self.cap_usd is not None and (taken >= self.cap_usd or taken + held > self.cap_usd):
                raise BudgetSpent(_refusal(taken, held, self.cap_usd, f"{self.cap_name}"))
            self.spend.held_usd += held

    def _settle_in_match(self, held: float, cost: float) -> None:
        with self.spend.lock:
            self.spend.held_usd = max(0.0, self.spend.held_usd - held)
            self.spend.usd += cost

    def _hold_in_ledger(self, held: Decimal) -> int:
        """Hold ``held`` against the budgets the ledger keeps; the hold's id."""
        assert self.submission_id is not None
        from arena.llm.selectors import agent_spend_taken_usd

        try:
            with transaction.atomic():
                user_lock_id(self.owner_id)
                now = timezone.now()
                AgentModelHold.objects.filter(
                    submission__agent__owner_id=self.owner_id, expires__lt=now
                ).delete()
                taken = agent_spend_taken_usd(
                    submission_id=self.submission_id, owner_id=self.owner_id
                )
                for spent, cap, what in (
                    (taken.version_day, self.day_budget_usd, _DAY),
                    (taken.owner_day, settings.ARENA_AGENT_MODEL_USER_DAY_CAP_USD, _USER_DAY),
                    (taken.owner_month, settings.ARENA_AGENT_MODEL_USER_MONTH_CAP_USD, _USER_MONTH),
                ):
                    cap_d = Decimal(str(cap))
                    if spent >= cap_d or spent + held > cap_d:
                        raise BudgetSpent(_refusal(float(spent), float(held), float(cap), what))
                hold = AgentModelHold.objects.create(
                    submission_id=self.submission_id,
                    amount_usd=held,
                    expires=now + timedelta(seconds=HOLD_LEASE_S),
                )
        except BudgetSpent:
            raise
        except Exception:  # the database is gone: refuse rather than spend without a ledger
            logger.exception("the agent's model spend could not be checked")
            close_old_connections()
            raise BudgetSpent("the model budget could not be checked; try again later") from None
        return hold.pk

    def _record_and_release(self, call: CallRecord, hold_id: int) -> None:
        """The call's ledger row in, its hold out, at once (under the owner's lock, so a check
        reading the ledger and then the holds sees the call in one or the other). A ledger that
        cannot be written is logged, never stops the match, and leaves the hold to its lease."""
        if self.match_id is None:
            self._release(hold_id)
            return
        try:
            with transaction.atomic():
                user_lock_id(self.owner_id)
                self._ledger_row(call)
                AgentModelHold.objects.filter(pk=hold_id).delete()
        except Exception:
            logger.exception(
                "match %s: an agent's model call could not be written to the ledger", self.match_id
            )
            close_old_connections()

    def _release(self, hold_id: int) -> None:
        """Give back a hold whose call was never made (a release only lowers what the budgets
        count, so it needs no lock; one that fails is left to its lease)."""
        try:
            AgentModelHold.objects.filter(pk=hold_id).delete()
        except Exception:
            logger.exception("an agent's model hold could not be released")
            close_old_connections()


_DAY = "its budget per day (the owner's, on the agent's page)"
_USER_DAY = "the site's cap per user per day (ARENA_AGENT_MODEL_USER_DAY_CAP_USD)"
_USER_MONTH = "the site's cap per user per month (ARENA_AGENT_MODEL_USER_MONTH_CAP_USD)"


def _refusal(taken: float, held: float, cap: float, what: str) -> str:
    """Why a call is refused: the budget, what it has left, what the call could cost."""
    left = max(0.0, cap - taken)
    if left <= 0:
        return f"this agent's model calls reached {what}: {cap:g} USD; answer without the model"
    return (
        f"this call could cost up to {held:.6f} USD (its prompt and max_tokens at the model's "
        f"prices) and {what} has {left:.6f} of {cap:g} USD left: ask for fewer max_tokens or a "
        "shorter prompt, or answer without the model"
    )
