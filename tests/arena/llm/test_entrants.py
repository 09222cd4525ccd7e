"""Model entrants on the platform, against a loopback OpenAI-compatible server (eager Celery):
created → validated by a short self-play (a wrong key or a dead endpoint rejects with the
reason) → trains against a house bot → ranked matches against code on the same ladder; provider
failures re-queue and never rate; the ledger and the caps."""

from __future__ import annotations

import socket
from decimal import Decimal
from typing import Any

import pytest

from devtools.fakemodel import FakeModel

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
        requests_per_minute=100_000,
    )


def enter(committed: Any, user: Any, game: str = "chess", name: str = "bot", **kw: Any) -> Any:
    from arena.workflows.llm import model_entrant_submit

    kw.setdefault("model_name", "fake")
    submission = committed(lambda: model_entrant_submit(owner=user, game=game, name=name, **kw))
    submission.refresh_from_db()
    return submission


def short_training(user: Any, entrant: Any) -> Any:
    """A training match against chess's random bot, cut to one short game (set before the
    commit enqueues it)."""
    from arena.matches.models import Match
    from arena.workflows.matches import training_request

    match = training_request(user=user, submission_id=entrant.pk, opponent="house:random")
    Match.objects.filter(pk=match.pk).update(config={"games": 1, "max_plies": 12})
    return match


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


@pytest.mark.django_db(transaction=False)
def test_every_game_accepts_its_entrants_short_self_play_config() -> None:
    from arena.workflows.llm import validation_config

    from games.core import get_game_spec
    from games.core.registry import available_game_ids

    for game in available_game_ids():
        config_class = get_game_spec(game).config_class
        config = validation_config(game)
        config_class(**config)  # a config the game refuses never plays (it was rounds=1)
        assert set(config_class.validation_overrides) <= set(config), game
    # Judged persuasion games play each scenario twice: one round is refused, two stay.
    assert validation_config("nuclear-war") == {"rounds": 2, "persuasion_steps": 1}
    assert validation_config("passcode") == {"rounds": 1, "cycle_limit": 3}


@pytest.mark.parametrize("game", ["nil-recruitment", "nuclear-war", "passcode"])
def test_an_entrant_of_a_judged_game_is_validated_with_the_scripted_judge(
    game: str, fake: Any, make_user: Any, committed: Any
) -> None:
    from arena.llm.models import ModelCall

    register(fake.base_url)
    submission = enter(committed, make_user("alice"), game=game)
    assert submission.status == "accepted", submission.status_detail
    # The self-play's calls are the entrant's; its judge is the game's script, never a model.
    purposes = set(ModelCall.objects.values_list("purpose", flat=True))
    assert purposes == {"seat"}


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
    assert_the_operators_failure_is_told(submission.status_detail)


def assert_the_operators_failure_is_told(detail: str) -> None:
    """A provider's refusal or absence is the operator's: the entrant's owner is not told that
    their agent crashed or that they should fix it."""
    assert "operator's endpoint refused" in detail and "nothing for you to fix" in detail
    assert "crashed" not in detail and "upload a new version" not in detail


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
    assert_the_operators_failure_is_told(submission.status_detail)


def test_trains_against_a_house_bot_then_plays_ranked_against_code_on_the_same_ladder(
    fake: Any, make_user: Any, committed: Any, starter_source: str
) -> None:
    # simple-card: a ranked chess game against the process sandbox takes minutes.
    from arena.matches.models import Match
    from arena.matches.queues import LLM, match_queue, queue_name
    from arena.ratings.models import Rating
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
    assert match_queue(training) == queue_name(LLM)
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


def test_the_web_form_and_the_api_create_entrants(
    fake: Any, make_user: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from arena.accounts.services import token_get_or_create
    from django.test import Client

    register(fake.base_url)
    user = make_user("alice")
    client = Client()
    client.force_login(user)
    page = client.get("/llm/new/")
    assert page.status_code == 200 and b"Fake model (fake-1)" in page.content
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/llm/new/",
            {
                "model": "fake",
                "game": "chess",
                "name": "webbot",
                "json_output": "on",
                "system_prompt_addition": "<script>alert(1)</script>",
            },
        )
    assert response.status_code == 302, response.content[:500]
    detail = client.get(response["Location"])
    assert b"Spend:" in detail.content and b"accepted" in detail.content
    assert b"<script>alert(1)</script>" not in detail.content
    refused = client.post(
        "/llm/new/", {"model": "fake", "game": "chess", "name": "x", "max_tokens": "999999"}
    )
    assert refused.status_code == 400 and b"max_tokens" in refused.content
    token = token_get_or_create(user=user)
    api = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.get("/api/models").json()[0]["name"] == "fake"
    with django_capture_on_commit_callbacks(execute=True):
        created = api.post(
            "/api/model-entrants",
            {"model": "fake", "game": "poker", "name": "apibot", "temperature": 0.5},
            content_type="application/json",
        )
    assert created.status_code == 201, created.content
    assert created.json()["game"] == "poker"
    bad = api.post(
        "/api/model-entrants",
        {"model": "nope", "game": "poker", "name": "b"},
        content_type="application/json",
    )
    assert bad.status_code == 400 and "no enabled model" in bad.json()["error"]


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_model_answers_are_public_in_chess_and_the_ledger_is_the_owners(
    fake: Any, make_user: Any, committed: Any
) -> None:
    from arena.llm.models import ModelCall
    from arena.workflows.ladder import matchmaking_run  # noqa: F401 - the ranked path elsewhere
    from django.test import Client

    register(fake.base_url)
    alice = make_user("alice")
    entrant = enter(committed, alice)
    match = committed(lambda: short_training(alice, entrant))
    match.refresh_from_db()
    assert match.config == {"games": 1, "max_plies": 12} and match.status == "finished"
    owner = Client()
    owner.force_login(alice)
    page = owner.get(f"/llm/matches/{match.pk}/")
    assert page.status_code == 200
    assert (
        page.content.count(b'class="model-answer"')
        == ModelCall.objects.filter(match_id=match.pk).count()
    )
    assert b"model-ledger" in page.content and b"Current position (FEN)" in page.content
    # A training match is its owner's: others get a 404.
    other = Client()
    other.force_login(make_user("mallory"))
    assert other.get(f"/llm/matches/{match.pk}/").status_code == 404


def test_poker_answers_stay_hidden_from_the_public_until_a_showdown(
    fake: Any, make_user: Any, committed: Any, starter_source: str
) -> None:
    from arena.matches.models import Match
    from arena.matches.services import match_create
    from arena.workflows.matches import match_run
    from django.test import Client

    register(fake.base_url)
    alice = make_user("alice")
    entrant = enter(committed, alice, game="poker")
    house = __import__("arena.submissions.services", fromlist=["x"]).house_submission_ensure(
        game="poker", bot="always-call"
    )
    match = match_create(kind=Match.Kind.RANKED, submissions=[entrant, house])
    Match.objects.filter(pk=match.pk).update(config={"hands": 3})
    match_run(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == "finished", match.error
    page = Client().get(f"/llm/matches/{match.pk}/").content.decode()
    owner = Client()
    owner.force_login(alice)
    mine = owner.get(f"/llm/matches/{match.pk}/").content.decode()
    # The model checks or calls every hand against always-call: every hand goes to a
    # showdown, so every answer is public once its hand is over; the prompts stay the owner's.
    assert page.count('class="model-answer"') == mine.count('class="model-answer"') > 0
    assert "model-ledger" not in page and "model-ledger" in mine
    assert "Your cards" not in page and "Your cards" in mine


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_the_key_never_leaves_the_environment(
    fake: Any, make_user: Any, committed: Any, caplog: Any, settings: Any
) -> None:
    import json as _json
    import logging

    from arena.accounts.services import token_get_or_create
    from arena.llm.models import ModelCall
    from arena.matches.logstore import match_log_entries
    from arena.matches.models import Match
    from django.test import Client

    caplog.set_level(logging.DEBUG)
    register(fake.base_url)
    alice = make_user("alice")
    entrant = enter(committed, alice)
    match = committed(lambda: short_training(alice, entrant))
    assert any(r["headers"].get("authorization") == f"Bearer {KEY}" for r in fake.requests)
    staff = make_user("root")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    texts: list[str] = []
    for who in (alice, staff):
        client = Client()
        client.force_login(who)
        for url in (
            f"/submissions/{entrant.pk}/",
            f"/matches/{match.pk}/",
            f"/llm/matches/{match.pk}/",
            "/llm/new/",
            "/admin/llm/languagemodel/",
            "/admin/llm/languagemodel/1/change/",
            "/admin/llm/modelcall/",
        ):
            texts.append(client.get(url).content.decode())
    token = token_get_or_create(user=alice)
    api = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    for url in (
        f"/api/submissions/{entrant.pk}",
        f"/api/matches/{match.pk}",
        f"/api/matches/{match.pk}/log",
        "/api/models",
    ):
        texts.append(api.get(url).content.decode())
    for m in Match.objects.all():
        texts.append(_json.dumps([m.error, m.summary, m.final_state, m.rounds, m.stats]))
        texts.append(_json.dumps(match_log_entries(m)))
    texts += [_json.dumps(list(ModelCall.objects.values()), default=str), caplog.text]
    texts.append(entrant.source)
    assert all(KEY not in t for t in texts)


def test_the_leaderboard_marks_models_and_filters_code_or_model(
    fake: Any, make_user: Any, committed: Any, starter_source: str
) -> None:
    from arena.workflows.submissions import submission_activate, submission_upload
    from django.test import Client

    register(fake.base_url)
    alice, bob = make_user("alice"), make_user("bob")
    entrant = enter(committed, alice, game="simple-card", name="modelbot")
    code = committed(lambda: submission_upload(owner=bob, source=starter_source, name="codebot"))
    committed(lambda: submission_activate(submission=entrant, user=alice))
    committed(lambda: submission_activate(submission=code, user=bob))
    api = Client()
    rows = api.get("/api/leaderboard/simple-card").json()["rows"]
    by_agent = {r["agent"]: r for r in rows}
    assert by_agent["modelbot v1"]["kind"] == "model" and by_agent["modelbot v1"]["model"] == "fake"
    assert by_agent["codebot v1"]["kind"] == "code" and by_agent["codebot v1"]["model"] is None
    models = api.get("/api/leaderboard/simple-card?kind=model").json()["rows"]
    assert [r["agent"] for r in models] == ["modelbot v1"]
    code_rows = api.get("/api/leaderboard/simple-card?kind=code").json()["rows"]
    assert "modelbot v1" not in [r["agent"] for r in code_rows]
    page = api.get("/games/simple-card/?kind=model").content.decode()
    assert "model: fake" in page and "codebot" not in page


def test_the_public_agent_page_names_the_model_and_keeps_the_owners_settings(
    fake: Any, make_user: Any, committed: Any, starter_source: str
) -> None:
    from arena.llm.models import ModelCall
    from arena.workflows.submissions import submission_upload
    from django.test import Client

    register(fake.base_url)
    alice, bob = make_user("alice"), make_user("bob")
    entrant = enter(
        committed,
        alice,
        game="simple-card",
        name="modelbot",
        temperature="0.35",
        max_tokens=77,
        system_prompt_addition="secret-plan-hedgehog",
    )
    assert entrant.status == "accepted", entrant.status_detail
    assert ModelCall.objects.filter(submission=entrant, cost_usd__gt=0).exists()
    code = committed(lambda: submission_upload(owner=bob, source=starter_source, name="codebot"))
    as_bob = Client()
    as_bob.force_login(bob)
    for client in (Client(), as_bob):
        page = client.get(f"/submissions/agents/{entrant.agent_id}/").content.decode()
        model = page.split('id="agent-model">', 1)[1].split("</p>", 1)[0]
        assert model == "A language model plays this agent: Fake model."
        private = ("secret-plan-hedgehog", "0.35", "max_tokens", "Spend", "USD", "temperature")
        assert [p for p in private if p in page] == []
        code_page = client.get(f"/submissions/agents/{code.agent_id}/").content.decode()
        assert "codebot" in code_page and 'id="agent-model"' not in code_page
