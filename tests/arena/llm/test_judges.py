"""A judged game's judge on the platform: the operator's model through the metering module
(ledger rows under the match, paid by the site), failures re-queued and never rated, a game
without a judge unavailable, validation with the game's scripted judge, the replay with the
verdicts, and a stand-in's old agents still playing after the ids moved."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from devtools.fakemodel import FakeModel

pytestmark = pytest.mark.django_db(transaction=True)

#: One answer that fits every judge schema: a question, a verdict and a keeper's answer.
EVERY_SCHEMA = json.dumps(
    {"question": "Why you?", "commit": "B", "reason": "B answered me", "answer": "no"}
)


@pytest.fixture
def fake() -> Any:
    with FakeModel(default=("answer", EVERY_SCHEMA)) as server:
        yield server


def register(base_url: str, name: str = "judge-model", **kw: Any) -> Any:
    from arena.llm.models import LanguageModel

    return LanguageModel.objects.create(
        name=name,
        display_name="Judge model",
        base_url=base_url,
        model_id="fake-judge",
        price_input_per_mtok_usd=Decimal("2"),
        price_output_per_mtok_usd=Decimal("10"),
        requests_per_minute=100_000,
        **kw,
    )


def ranked_house_match(game: str, bots: tuple[str, str], config: dict[str, Any]) -> Any:
    from arena.matches.models import Match
    from arena.matches.services import match_create
    from arena.submissions.services import house_submission_ensure

    seats = [house_submission_ensure(game=game, bot=b) for b in bots]
    match = match_create(kind=Match.Kind.RANKED, submissions=seats)
    Match.objects.filter(pk=match.pk).update(config=config)
    match.refresh_from_db()
    return match


def test_matchmaking_sends_judged_matches_to_the_model_pool(monkeypatch: Any) -> None:
    """A judged match waits minutes on its model: the ladder's batch sends it to the llm pool,
    as ``match_queue`` does, never to the ranked pool every other game's matches need."""
    from arena.celery_app import app
    from arena.matches.models import Match
    from arena.matches.queues import LLM, RANKED, match_queue, queue_name
    from arena.workflows.dispatch import MATCH_RUN_TASK, matches_enqueue_on_commit
    from django.db import transaction

    judged = ranked_house_match("nuclear-war", ("hawk", "terse"), {})
    plain = ranked_house_match("simple-card", ("highest", "lowest"), {})
    sent: dict[int, str] = {}
    task = app.tasks[MATCH_RUN_TASK]
    monkeypatch.setattr(
        task, "apply_async", lambda args, queue, **_: sent.__setitem__(args[0], queue)
    )
    with transaction.atomic():
        matches_enqueue_on_commit(list(Match.objects.filter(pk__in=[judged.pk, plain.pk])))
    assert sent == {judged.pk: queue_name(LLM), plain.pk: queue_name(RANKED)}
    assert sent[judged.pk] == match_queue(judged) and sent[plain.pk] == match_queue(plain)


def test_a_judged_ranked_match_puts_the_judge_in_the_ledger_and_the_replay(
    fake: Any, settings: Any
) -> None:
    from arena.llm.models import ModelCall
    from arena.matches.queues import LLM, match_queue, queue_name
    from arena.matches.replays import match_replay
    from arena.workflows.matches import match_run
    from django.contrib.auth.models import AnonymousUser

    register(fake.base_url)
    settings.ARENA_JUDGE_MODEL = "judge-model"
    match = ranked_house_match(
        "nil-recruitment", ("tailored", "brief"), {"rounds": 2, "persuasion_steps": 1}
    )
    assert match_queue(match) == queue_name(LLM)
    match_run(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == "finished", match.error
    calls = ModelCall.objects.filter(match_id=match.pk)
    # Two rounds: a question and a verdict each.
    assert calls.count() == 4
    assert {c.purpose for c in calls} == {ModelCall.Purpose.JUDGE}
    assert all(c.submission_id is None for c in calls)
    # Each call is kept under the round it was asked in (a question and a verdict each).
    assert sorted(c.round for c in calls) == [1, 1, 2, 2]
    sent = fake.requests[0]["body"]
    assert sent["temperature"] == 0.0 and "seed" in sent
    assert sent["response_format"]["json_schema"]["schema"]["required"] == ["question"]
    # The players' text is in the user message, quoted; the system message is the game's.
    system, user = sent["messages"]
    assert "```text" in user["content"] and "```" not in system["content"].split("schema")[0]
    # The judge said B both times: whoever was B (drawn from the seed) won each round.
    assert sum(p.score for p in match.participants.all()) == 200.0
    for r in match.rounds:
        for view in r["result"].values():
            assert (view["winner"] == "you") == (view["your_label"] == "B")
    replay = match_replay(match, AnonymousUser())
    text = json.dumps(replay)
    assert "B answered me" in text and "Why you?" in text and "decides" in text


def test_a_game_without_a_judge_is_unavailable_and_schedules_nothing(
    settings: Any, make_user: Any, committed: Any, starter_source: str
) -> None:
    from arena.errors import Refused
    from arena.llm.judging import judge_status
    from arena.matches.models import Match
    from arena.submissions.services import house_submission_ensure
    from arena.workflows.ladder import matchmaking_run
    from arena.workflows.submissions import submission_activate
    from django.test import Client

    settings.ARENA_JUDGE_MODEL = ""
    settings.ARENA_JUDGES = ""
    status = judge_status("passcode")
    assert not status.ok and "no judge" in status.reason
    assert judge_status("chess").ok and judge_status("bulls-and-cows").ok
    for bot in ("halver", "asker"):
        house_submission_ensure(game="passcode", bot=bot, active=True)
    matchmaking_run()
    assert not Match.objects.filter(game="passcode").exists()
    home = Client().get("/").content.decode()
    assert "Unavailable: no judge" in home
    page = Client().get("/games/passcode/").content.decode()
    assert "Unavailable for ranked play" in page
    settings.ARENA_JUDGES = "passcode=missing-model"
    assert "not registered" in judge_status("passcode").reason
    house = house_submission_ensure(game="passcode", bot="blurter")
    user = make_user("carol")
    from arena.submissions.models import Submission

    Submission.objects.filter(pk=house.pk).update(status="accepted")
    house.agent.owner = user
    house.agent.save()
    house.refresh_from_db()
    with pytest.raises(Refused, match="cannot be played ranked"):
        submission_activate(submission=house, user=user)


def test_a_provider_outage_re_queues_and_never_rates(fake: Any, settings: Any) -> None:
    from arena.workflows.matches import match_run

    settings.ARENA_LLM_BACKOFF_S = 0.01
    settings.ARENA_LLM_PROVIDER_ATTEMPTS = 2
    register(fake.base_url)
    settings.ARENA_JUDGE_MODEL = "judge-model"
    fake.default = ("status", 500)
    match = ranked_house_match("nuclear-war", ("measured", "hawk"), {"rounds": 2})
    assert match_run(match_id=match.pk) == "retry"
    match.refresh_from_db()
    assert match.status == "queued" and "HTTP 500" in match.error
    while match_run(match_id=match.pk) == "retry":
        pass
    match.refresh_from_db()
    assert match.status == "error" and not match.rated
    assert all(p.outcome == "" for p in match.participants.all())


def test_answers_that_fit_no_schema_are_a_platform_error(fake: Any, settings: Any) -> None:
    from arena.llm.models import ModelCall
    from arena.workflows.matches import match_run

    register(fake.base_url)
    settings.ARENA_JUDGE_MODEL = "judge-model"
    fake.default = ("answer", '{"commit": "C"}')
    match = ranked_house_match("nuclear-war", ("measured", "hawk"), {"rounds": 2})
    assert match_run(match_id=match.pk) == "retry"
    match.refresh_from_db()
    assert "fit no schema" in match.error
    assert ModelCall.objects.filter(match_id=match.pk).count() == 3


def test_the_judges_cap_stops_the_match_as_a_platform_error(fake: Any, settings: Any) -> None:
    from arena.workflows.matches import match_run

    register(fake.base_url)
    settings.ARENA_JUDGES = "passcode=judge-model:0.0"
    match = ranked_house_match("passcode", ("halver", "asker"), {"rounds": 1})
    assert match_run(match_id=match.pk) == "retry"
    match.refresh_from_db()
    assert "cost cap" in match.error


def test_the_keepers_answers_stay_private_until_the_word_is_over(fake: Any, settings: Any) -> None:
    from arena.matches.logstore import match_log_entries
    from arena.matches.visibility import public_log
    from arena.workflows.matches import match_run

    register(fake.base_url)
    settings.ARENA_JUDGE_MODEL = "judge-model"
    match = ranked_house_match("passcode", ("halver", "asker"), {"rounds": 2, "cycle_limit": 2})
    match_run(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == "finished", match.error
    log = list(match_log_entries(match.pk))
    judged = [e for e in log if e.get("method") == "judge"]
    assert judged and all(isinstance(e.get("seat"), int) for e in judged)
    first_end = next(i for i, e in enumerate(log) if e.get("method") == "on_round_end")
    running = public_log("passcode", log[:first_end], owned=set())
    assert all("items" not in (e.get("payload") or {}) for e in running if e["method"] == "judge")
    done = public_log("passcode", log, owned=set())
    round_one = [e for e in done if e["method"] == "judge" and e.get("round") == 1]
    assert round_one and all("items" in (e.get("payload") or {}) for e in round_one)


def test_validation_of_a_judged_game_uses_the_scripted_judge(
    settings: Any, make_user: Any, committed: Any
) -> None:
    from arena.llm.models import ModelCall
    from arena.submissions.models import Submission
    from arena.workflows.submissions import submission_upload

    from games.core import get_game_spec

    settings.ARENA_JUDGE_MODEL = ""
    user = make_user("dora")
    source = get_game_spec("nil-recruitment").starter_source()
    submission = committed(lambda: submission_upload(owner=user, source=source, name="s"))
    submission = Submission.objects.get(pk=getattr(submission, "pk", submission))
    assert submission.status == "accepted", submission.status_detail
    assert not ModelCall.objects.exists()


def test_a_stand_ins_old_agent_still_declares_its_former_id() -> None:
    from arena.matches import sandboxing
    from arena.submissions.models import Agent, Submission
    from django.contrib.auth import get_user_model

    from games.core.agent import DeclaredGameHandle

    user = get_user_model().objects.create_user(username="erin", password="pw-erin-123")
    agent = Agent.objects.create(owner=user, game="sealed-bid-recruitment", name="old")
    source = 'class Agent:\n    GAME = "nil-recruitment"\n    def on_turn(self, s):\n        pass\n'
    submission = Submission.objects.create(
        agent=agent, version=1, source=source, sha256="x", game_version=1
    )
    handle = sandboxing.make_handle(submission)
    try:
        assert isinstance(handle, DeclaredGameHandle)
        assert handle.declared_game == "nil-recruitment"
    finally:
        handle.close()
    # A new agent of the judged game is not wrapped.
    agent2 = Agent.objects.create(owner=user, game="nil-recruitment", name="new")
    fresh = Submission.objects.create(
        agent=agent2, version=1, source=source, sha256="y", game_version=1
    )
    plain = sandboxing.make_handle(fresh)
    try:
        assert not isinstance(plain, DeclaredGameHandle)
    finally:
        plain.close()


def test_make_run_names_the_local_model_where_installed_and_says_no_judge_where_not(
    settings: Any, monkeypatch: Any
) -> None:
    from io import StringIO

    from arena.llm import localjudge
    from arena.llm.judging import judge_status
    from arena.ops.management.commands import arena_run

    settings.ARENA_JUDGE_MODEL = ""
    settings.ARENA_JUDGES = ""
    command = arena_run.Command(stdout=StringIO())
    monkeypatch.setattr(arena_run, "local_model_argv", lambda port: None)
    env: dict[str, str] = {}
    assert command._local_judge(env) == [] and "ARENA_JUDGE_MODEL" not in env
    assert "no judge" in command.stdout.getvalue()  # type: ignore[attr-defined]
    monkeypatch.setattr(arena_run, "local_model_argv", lambda port: ["serve", str(port)])
    (child,) = command._local_judge(env)
    assert child.argv[0] == "serve" and env["ARENA_JUDGE_MODEL"] == localjudge.LOCAL_MODEL_NAME
    settings.ARENA_JUDGE_MODEL = env["ARENA_JUDGE_MODEL"]
    status = judge_status("nil-recruitment")
    assert status.ok and status.model is not None
    assert status.model.json_style == "json_object"
