"""A code agent's model budgets stay exact under concurrency: matches of one owner calling at the
same moment (threads, each its own gateway and database connection, as workers are) never
spend past the owner's budget per day or the site's caps per user, nor one match's concurrent
calls past its budget per match (``arena.llm.metering.AgentMeter``, docs/llm-seats.md). Again
on PostgreSQL, whose row locks are what the workers share."""

from __future__ import annotations

import os
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from devtools.fakemodel import FakeModel
from tests.arena.llm.test_agent_gateway import MODEL_AGENT, _model
from tests.conftest import rerun_on_postgres

#: One chat request of the agent: its most is 102 prompt tokens and 10 answered, 0.112 USD at
#: the test model's prices; the fake answers 100 + 10 tokens, 0.11 USD.
MESSAGE = {
    "method": "POST",
    "path": "/v1/chat/completions",
    "body": '{"model": "tiny", "messages": [{"role": "user", "content": "hi"}]}',
}


def _call_at_once(gateways: list[Any], calls_each: int) -> list[int]:
    """Every gateway's ``calls_each`` calls, all gateways at the same moment, each in a thread
    of its own with its own database connection; the statuses."""
    from django.db import connection

    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        # Its shared cache refuses a second writer at once ("database table is locked")
        # where a database file waits for the lock (the settings' 30 s timeout).
        pytest.skip(
            "the in-memory SQLite test database has no locks to wait on across threads; "
            "test_the_budgets_on_postgres runs this test on PostgreSQL"
        )

    statuses: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(len(gateways))

    def run(gateway: Any) -> None:
        try:
            start.wait(timeout=30)
            for _ in range(calls_each):
                status, _body = gateway.handle({**MESSAGE, "token": gateway.token})
                with lock:
                    statuses.append(status)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(g,)) for g in gateways]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    return statuses


def _ledger_usd() -> Decimal:
    from arena.llm.models import ModelCall
    from django.db.models import Sum

    return Decimal(ModelCall.objects.filter(purpose="agent").aggregate(t=Sum("cost_usd"))["t"] or 0)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("cap", ["version_day", "user_day", "user_month"])
def test_matches_calling_at_once_never_spend_past_a_cap(
    cap: str, make_user: Any, settings: Any
) -> None:
    from arena.llm.gateways import agent_gateway
    from arena.llm.models import AgentModelHold, ModelCall
    from arena.llm.services import agent_model_policy_set
    from arena.submissions.services import submission_create

    settings.ARENA_AGENT_MODEL_USER_DAY_CAP_USD = 0.5 if cap == "user_day" else 100
    settings.ARENA_AGENT_MODEL_USER_MONTH_CAP_USD = 0.5 if cap == "user_month" else 100
    budget = "0.5" if cap == "version_day" else "100"
    alice = make_user("alice")
    # Each call takes 50 ms: the six matches' calls overlap.
    with FakeModel(default=("slow", 0.05, "ok")) as fake:
        _model(fake.base_url)
        versions = [submission_create(owner=alice, source=MODEL_AGENT)]
        if cap != "version_day":  # the site's caps count every agent of the user
            versions.append(submission_create(owner=alice, source=MODEL_AGENT, name="second"))
        for version in versions:
            agent_model_policy_set(
                submission=version, user=alice, model_names=["tiny"], match_budget_usd=budget,
                day_budget_usd=budget,
            )  # fmt: skip
        gateways = []
        for match_id in range(100, 106):
            gateway = agent_gateway(versions[match_id % len(versions)], match_id=match_id)
            assert gateway is not None
            gateway.begin_call("on_turn", {"round": 1})
            gateways.append(gateway)
        statuses = _call_at_once(gateways, calls_each=4)
    assert set(statuses) <= {200, 429}
    # 0.11 a call, 0.112 held while in flight: a call is refused only when the calls made or in
    # flight leave less than 0.112 of the 0.5, so after exactly four (0.44).
    assert statuses.count(200) == 4 == ModelCall.objects.filter(purpose="agent").count()
    assert len(fake.requests) == 4
    assert _ledger_usd() == Decimal("0.44") <= Decimal("0.5")
    assert not AgentModelHold.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_matchs_calls_at_once_never_pass_its_budget(make_user: Any) -> None:
    from arena.llm.gateways import agent_gateway
    from arena.llm.models import AgentModelHold
    from arena.llm.services import agent_model_policy_set
    from arena.submissions.services import submission_create

    alice = make_user("alice")
    with FakeModel(default=("slow", 0.05, "ok")) as fake:
        _model(fake.base_url)
        mine = submission_create(owner=alice, source=MODEL_AGENT)
        agent_model_policy_set(
            submission=mine, user=alice, model_names=["tiny"], match_budget_usd="0.25",
            day_budget_usd="5",
        )  # fmt: skip
        gateway = agent_gateway(mine, match_id=200)
        assert gateway is not None
        gateway.begin_call("on_turn", {"round": 1})
        # Six threads of the agent calling its one gateway at once.
        statuses = _call_at_once([gateway] * 6, calls_each=3)
    assert statuses.count(200) == 2 == len(fake.requests)
    assert statuses.count(429) == 16
    assert _ledger_usd() == Decimal("0.22")
    assert not AgentModelHold.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_call_that_never_reaches_the_model_gives_its_hold_back(
    make_user: Any, settings: Any
) -> None:
    from arena.llm.gateways import agent_gateway
    from arena.llm.models import AgentModelHold, ModelCall
    from arena.llm.services import agent_model_policy_set
    from arena.submissions.services import submission_create

    settings.ARENA_LLM_SLOT_WAIT_MAX_S = 0.2
    alice = make_user("alice")
    with FakeModel(default=("answer", "ok")) as fake:
        # A model of its own: the in-process slots of a model outlive a test.
        _model(fake.base_url, name="busy", concurrency=1)
        mine = submission_create(owner=alice, source=MODEL_AGENT)
        agent_model_policy_set(
            submission=mine, user=alice, model_names=["busy"], match_budget_usd="0.2",
            day_budget_usd="0.2",
        )  # fmt: skip
        gateway = agent_gateway(mine, match_id=300)
        assert gateway is not None
        gateway.begin_call("on_turn", {"round": 1})
        from arena.llm import limits

        message = {
            **MESSAGE,
            "token": gateway.token,
            "body": MESSAGE["body"].replace("tiny", "busy"),
        }
        # Someone else holds the model's one slot: the call is a 503 and holds nothing after.
        with limits.model_slot(model="busy", concurrency=1, per_minute=60):
            status, body = gateway.handle(message)
        assert status == 503 and body["error"]["code"] == "model_busy"
        assert not AgentModelHold.objects.exists()
        # The whole budget is still there: the next call is made.
        status, _body = gateway.handle(message)
    assert status == 200 and ModelCall.objects.count() == 1 == len(fake.requests)


@pytest.mark.slow
@pytest.mark.postgres
def test_the_budgets_on_postgres(tmp_path: Path) -> None:
    """This file's tests again on PostgreSQL (pytest-django's database is per session)."""
    if os.environ.get("ARENA_TEST_DB_VENDOR"):
        pytest.skip("already the PostgreSQL run")
    out = rerun_on_postgres(tmp_path, __file__, "-k", "not on_postgres", timeout_s=300)
    assert "5 passed" in out, out[-1000:]
