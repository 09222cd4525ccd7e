"""Every model call the platform makes goes through here: a model seat's move, a judged game's
role, a code agent's call through the sandbox's gateway (docs/llm-seats.md).

Three things hold for all of them, whoever asks:

* the call waits for the model's concurrency and rate slot (``limits.model_slot``), and that
  wait is never charged to anyone's clock;
* the caller's cap for this match is checked before each call (``CapReached`` when it is spent:
  what that means is the caller's to say: a platform error for a seat or a judge, an error the
  agent receives for the gateway);
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

from django.db import close_old_connections

from arena.llm import limits
from arena.llm.models import LanguageModel, ModelCall
from arena.llm.services import model_call_record
from games.core import PlatformError
from llm_seat import Endpoint
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


class MeteredModel:
    """Slots, one cap and the ledger for one caller of one model in one match attempt.

    ``cap_usd`` bounds what this caller may spend in the match (``None``: no cap of its own);
    ``cap_name`` is what a person reads when it is reached (the setting or form field that sets
    it). Safe to use from several threads (a gateway serves concurrent calls of one agent)."""

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
    ) -> None:
        self.model = model
        self.purpose = purpose
        self.match_id = match_id
        self.match_attempt = match_attempt
        self.seat = seat
        self.submission_id = submission_id
        self.cap_usd = cap_usd
        self.cap_name = cap_name
        self._lock = threading.Lock()
        self.spent_usd = 0.0

    def slot(self) -> contextlib.AbstractContextManager[None]:
        """The model's concurrency and rate slot (never charged to a clock)."""
        return limits.model_slot(
            model=self.model.name,
            concurrency=self.model.concurrency,
            per_minute=self.model.requests_per_minute,
        )

    def before_call(self) -> None:
        """Raise ``CapReached`` when this caller's cap for the match is spent."""
        with self._lock:
            spent = self.spent_usd
        if self.cap_usd is not None and spent >= self.cap_usd:
            raise CapReached(
                f"the match reached its model cost cap ({self.cap_usd:g} USD, {self.cap_name})"
            )

    def record(self, call: CallRecord) -> None:
        """Count the call against the cap and add it to the ledger; a ledger that cannot be
        written is logged and never stops the match."""
        with self._lock:
            self.spent_usd += call.cost_usd
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
