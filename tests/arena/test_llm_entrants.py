"""Model entrants on the platform, against a loopback OpenAI-compatible server (eager Celery):
created → validated by a short self-play (a wrong key or a dead endpoint rejects with the
reason) → trains against a house bot → ranked matches against code on the same ladder; provider
failures re-queue and never rate; the ledger and the caps."""

from __future__ import annotations

import socket
from decimal import Decimal
from typing import Any

import pytest

from tests.llm.fakemodel import FakeModel

pytestmark = pytest.mark.django_db(transaction=True)

KEY_ENV = "ARENA_TEST_FAKE_MODEL_KEY"
KEY = "sk-fake-LEAKCHECK-7b3c9e1f0a"


@pytest.fixture
def fake(monkeypatch: Any) -> Any:
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeModel() as server:
        yield server


def register(base_url: str, name: str = "fake") -> Any:
    from arena.llm.models import LanguageModel

    return LanguageModel.objects.create(
        name=name,
        display_name="Fake model",
        base_url=base_url,
        model_id="fake-1",
        api_key_env=KEY_ENV,
        price_input_per_mtok_usd=Decimal("2"),
        price_output_per_mtok_usd=Decimal("10"),
    )


def enter(committed: Any, user: Any, game: str = "chess", name: str = "bot", **kw: Any) -> Any:
    from arena.workflows.llm import model_entrant_submit

    kw.setdefault("model_name", "fake")
    submission = committed(lambda: model_entrant_submit(owner=user, game=game, name=name, **kw))
    submission.refresh_from_db()
    return submission


def test_an_entrant_is_validated_by_a_short_self_play_and_its_calls_are_in_the_ledger(
    fake: Any, make_user: Any, committed: Any, settings: Any
) -> None:
    from arena.llm.models import ModelCall, ModelEntrantConfig
    from arena.matches.models import Match

    settings.ARENA_LLM_BACKOFF_S = 0.01
    register(fake.base_url)
    submission = enter(committed, make_user("alice"), temperature="0.3")
    assert submission.status == "accepted", submission.status_detail
    config = ModelEntrantConfig.objects.get(submission=submission)
    assert config.temperature == 0.3 and config.json_output
    assert '"model":"fake"' in submission.source and len(submission.sha256) == 64
    match = Match.objects.get(
        kind="validation", participants__submission=submission, participants__seat=0
    )
    assert match.config == {"games": 1, "max_plies": 8}
    calls = ModelCall.objects.filter(match_id=match.pk)
    assert calls.count() == 8
    call = calls.first()
    assert call is not None and call.outcome == "answered"
    # 100 prompt tokens at 2 USD and 10 completion tokens at 10 USD per million.
    assert call.cost_usd == Decimal("0.00030000")
    assert call.request_id.startswith("fake-")
    assert fake.requests[0]["headers"]["authorization"] == f"Bearer {KEY}"


def test_every_change_is_a_new_version_and_limits_are_checked(
    fake: Any, make_user: Any, committed: Any
) -> None:
    from arena.errors import Refused

    register(fake.base_url)
    user = make_user("alice")
    first = enter(committed, user)
    second = enter(committed, user, system_prompt_addition="Play the Sicilian.")
    assert (first.version, second.version) == (1, 2) and first.sha256 != second.sha256
    with pytest.raises(Refused, match="between 0 and 2"):
        enter(committed, user, temperature="7")
    with pytest.raises(Refused, match="at most 2000"):
        enter(committed, user, system_prompt_addition="x" * 2001)
    with pytest.raises(Refused, match="max_tokens"):
        enter(committed, user, max_tokens=100_000)
    with pytest.raises(Refused, match="no enabled model"):
        enter(committed, user, model_name="nope")


def test_a_wrong_key_rejects_the_entrant_with_the_reason(
    fake: Any, make_user: Any, committed: Any
) -> None:
    fake.default = ("status", 401)
    register(fake.base_url)
    submission = enter(committed, make_user("alice"))
    assert submission.status == "rejected"
    assert "refused the key (HTTP 401)" in submission.status_detail
    assert KEY not in submission.status_detail


def test_a_dead_endpoint_rejects_the_entrant_with_the_reason(
    make_user: Any, committed: Any, settings: Any, monkeypatch: Any
) -> None:
    settings.ARENA_LLM_BACKOFF_S = 0.01
    settings.ARENA_LLM_PROVIDER_ATTEMPTS = 2
    monkeypatch.setenv(KEY_ENV, KEY)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    register(f"http://127.0.0.1:{port}/v1")
    submission = enter(committed, make_user("alice"))
    assert submission.status == "rejected"
    assert "could not reach the model" in submission.status_detail


def test_trains_against_a_house_bot_then_plays_ranked_against_code_on_the_same_ladder(
    fake: Any, make_user: Any, committed: Any, starter_source: str
) -> None:
    # simple-card: a ranked chess game against the process sandbox takes minutes.
    from arena.matches.models import Match
    from arena.ratings.models import Rating
    from arena.workflows.dispatch import match_queue
    from arena.workflows.ladder import matchmaking_run
    from arena.workflows.matches import training_request
    from arena.workflows.submissions import submission_activate, submission_upload

    from games.core import get_game_spec

    register(fake.base_url)
    alice, bob = make_user("alice"), make_user("bob")
    entrant = enter(committed, alice, game="simple-card")
    bot = sorted(get_game_spec("simple-card").bots)[0]
    assert entrant.status == "accepted", entrant.status_detail
    training = committed(
        lambda: training_request(user=alice, submission_id=entrant.pk, opponent=f"house:{bot}")
    )
    training.refresh_from_db()
    assert training.status == "finished", training.error
    assert match_queue(training) == "llm"
    code = committed(lambda: submission_upload(owner=bob, source=starter_source))
    code.refresh_from_db()
    assert code.status == "accepted", code.status_detail
    committed(lambda: submission_activate(submission=entrant, user=alice))
    committed(lambda: submission_activate(submission=code, user=bob))
    ranked = committed(matchmaking_run)
    assert ranked, "matchmaking paired nobody"
    match = Match.objects.get(pk=ranked[0].pk)
    assert match.status == "finished" and match.rated, match.error
    assert {p.submission_id for p in match.participants.all()} == {entrant.pk, code.pk}
    assert Rating.objects.get(submission=entrant).games == 1


def test_a_provider_outage_re_queues_and_never_rates(
    fake: Any, make_user: Any, committed: Any, settings: Any
) -> None:
    from arena.matches import services as match_services
    from arena.matches.models import Match
    from arena.workflows.matches import match_run

    settings.ARENA_LLM_BACKOFF_S = 0.01
    settings.ARENA_LLM_PROVIDER_ATTEMPTS = 2
    register(fake.base_url)
    alice = make_user("alice")
    entrant = enter(committed, alice)
    fake.default = ("status", 500)
    from django.db import transaction

    with transaction.atomic():
        created = match_services.training_create(
            user=alice, submission_id=entrant.pk, opponent="house:random"
        )
    assert match_run(match_id=created.pk) == "retry"
    created.refresh_from_db()
    assert created.status == "queued" and "HTTP 500" in created.error
    while match_run(match_id=created.pk) == "retry":
        pass
    created.refresh_from_db()
    assert created.status == "error" and not created.rated
    assert all(p.outcome == "" for p in created.participants.all())
    assert Match.objects.filter(pk=created.pk, summary__contains="unrated").exists()


def test_an_entrant_over_its_daily_cap_is_paused_with_the_reason(
    fake: Any, make_user: Any, committed: Any, settings: Any
) -> None:
    from arena.errors import Refused
    from arena.llm.models import ModelEntrantConfig
    from arena.workflows.ladder import matchmaking_run
    from arena.workflows.matches import training_request
    from arena.workflows.submissions import submission_activate

    register(fake.base_url)
    alice = make_user("alice")
    entrant = enter(committed, alice)  # the self-play cost 8 calls x 0.0003 USD
    committed(lambda: submission_activate(submission=entrant, user=alice))
    settings.ARENA_LLM_ENTRANT_DAILY_CAP_USD = 0.001
    committed(matchmaking_run)
    entrant.refresh_from_db()
    config = ModelEntrantConfig.objects.get(submission=entrant)
    assert not entrant.active and "daily cap" in config.paused_reason
    with pytest.raises(Refused, match="daily cap"):
        training_request(user=alice, submission_id=entrant.pk, opponent="house:random")
    settings.ARENA_LLM_ENTRANT_DAILY_CAP_USD = 5
    settings.ARENA_LLM_MONTHLY_BUDGET_USD = 0.5
    with pytest.raises(Refused, match="monthly model budget"):
        submission_activate(submission=entrant, user=alice)
