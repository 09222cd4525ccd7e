"""The one metering path of every model call (``arena.llm.metering``): the caller's cap, the
ledger row with its purpose and payer, and who may read a call on the match's calls page."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from llm_seat.handle import CallRecord

pytestmark = pytest.mark.django_db


def _model() -> Any:
    from arena.llm.models import LanguageModel

    return LanguageModel.objects.create(
        name="metered", display_name="Metered", base_url="http://127.0.0.1:9/v1", model_id="m"
    )


def _call(cost: float, text: str = "an answer") -> CallRecord:
    return CallRecord(
        turn=1, round=1, attempt=0, messages=[{"role": "user", "content": "q"}],
        outcome="answered", text=text, cost_usd=cost,
    )  # fmt: skip


def test_a_cap_stops_the_next_call_and_names_its_setting() -> None:
    from arena.llm.metering import CapReached, MeteredModel
    from arena.llm.models import ModelCall

    metered = MeteredModel(
        model=_model(), purpose=ModelCall.Purpose.AGENT, match_id=None, cap_usd=0.01,
        cap_name="the agent's budget per match",
    )  # fmt: skip
    metered.before_call()
    metered.record(_call(0.006))
    metered.before_call()
    metered.record(_call(0.006))
    with pytest.raises(CapReached, match="the agent's budget per match"):
        metered.before_call()


def test_every_purpose_is_a_ledger_row_with_its_payer() -> None:
    from arena.llm.metering import MeteredModel
    from arena.llm.models import ModelCall

    model = _model()
    MeteredModel(model=model, purpose=ModelCall.Purpose.JUDGE, match_id=7).record(_call(0.5))
    row = ModelCall.objects.get(match_id=7)
    assert row.purpose == "judge" and row.submission_id is None
    assert row.cost_usd == Decimal("0.5")


def test_a_seat_over_its_match_cap_is_the_platforms_failure(settings: Any) -> None:
    from arena.llm.models import ModelCall
    from arena.llm.seats import PlatformHooks

    from games.core import PlatformError

    hooks = PlatformHooks(
        model=_model(), purpose=ModelCall.Purpose.SEAT, match_id=None, cap_usd=0.0,
        cap_name="ARENA_LLM_MATCH_CAP_USD",
    )  # fmt: skip
    with pytest.raises(PlatformError, match="ARENA_LLM_MATCH_CAP_USD"):
        hooks.before_call()


@pytest.mark.django_db(transaction=True)
def test_an_agents_and_a_judges_calls_are_never_shown_to_another_user(
    make_user: Any, committed: Any
) -> None:
    """A ranked chess match is public and chess hides nothing, so a model seat's answer is
    shown to anyone; a code agent's own calls (the gateway's) only to its owner, and a judge's
    calls to nobody on this page."""
    from pathlib import Path

    from arena.llm.models import ModelCall
    from arena.matches.services import match_create
    from arena.submissions.services import house_submission_ensure, submission_create
    from django.test import Client

    alice, bob = make_user("alice"), make_user("bob")
    source = Path("games/chess/starter_agent.py").read_text()
    mine = submission_create(owner=alice, source=source)
    house = house_submission_ensure(game="chess", bot="random")
    match = match_create(kind="ranked", submissions=[mine, house], seed=7)
    model = _model()
    submission = mine
    for purpose, text in [("agent", "AGENT-SECRET"), ("judge", "JUDGE-PROMPT")]:
        ModelCall.objects.create(
            match_id=match.pk, seat=0, purpose=purpose, model=model, outcome="answered",
            text=text, submission=submission if purpose == "agent" else None,
        )  # fmt: skip
    owner, other = Client(), Client()
    owner.force_login(alice)
    other.force_login(bob)
    mine = owner.get(f"/llm/matches/{match.pk}/").content
    theirs = other.get(f"/llm/matches/{match.pk}/").content
    assert b"AGENT-SECRET" in mine and b"AGENT-SECRET" not in theirs
    assert b"JUDGE-PROMPT" not in mine and b"JUDGE-PROMPT" not in theirs
