"""Code agents that call a model through the sandbox's gateway, on the platform: the operator's
allow-list, the owner's models and budgets, the ledger under the agent and the match, the
calls on the owner's match page and nobody else's (docs/llm-seats.md)."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from devtools.fakemodel import FakeModel

pytestmark = pytest.mark.django_db

#: Asks the model at every turn and says what it got; plays its highest card either way.
MODEL_AGENT = """
import openai
from openai import OpenAI


class Agent:
    GAME = "simple-card"

    def __init__(self):
        self.client = OpenAI()

    def on_turn(self, state):
        try:
            reply = self.client.chat.completions.create(
                model="tiny", messages=[{"role": "user", "content": "round %d" % state["round"]}]
            )
            print("ANSWER", reply.choices[0].message.content)
        except openai.APIStatusError as exc:
            print("REFUSED", exc.status_code, exc.body.get("code"))
        return {"type": "play_card", "card": max(state["hand"])}
"""


def _model(base_url: str, **fields: Any) -> Any:
    from arena.llm.models import LanguageModel

    # 100 + 10 tokens a fake answer at 1000 USD a million: 0.11 USD a call. A call is held at
    # its most before it is made: its prompt's bound (the agent's: 107 tokens) and 10 tokens,
    # 0.117 USD.
    defaults: dict[str, Any] = {
        "name": "tiny",
        "display_name": "Tiny",
        "default_max_tokens": 10,
        "model_id": "fake",
        "agents_may_call": True,
        "price_input_per_mtok_usd": Decimal(1000),
        "price_output_per_mtok_usd": Decimal(1000),
    }
    return LanguageModel.objects.create(base_url=base_url, **(defaults | fields))


def _play(
    owner: Any, source: str, *, game: str, bot: str, kind: str, seed: int, budget: str,
    config: dict[str, Any] | None = None,
) -> tuple[Any, Any]:  # fmt: skip
    """``source``'s version, allowed to call ``tiny`` within ``budget`` USD a match, plays a
    house bot through the worker's path; the version and the finished match."""
    from arena.llm.services import agent_model_policy_set
    from arena.matches.models import Match
    from arena.matches.services import match_create
    from arena.submissions.services import house_submission_ensure, submission_create
    from arena.workflows.matches import match_run

    mine = submission_create(owner=owner, source=source)
    agent_model_policy_set(
        submission=mine, user=owner, model_names=["tiny"], match_budget_usd=budget,
        day_budget_usd="1",
    )  # fmt: skip
    house = house_submission_ensure(game=game, bot=bot)
    match = match_create(kind=kind, submissions=[mine, house], seed=seed)
    if config is not None:
        Match.objects.filter(pk=match.pk).update(config=config)
    assert match_run(match_id=match.pk) == "done"
    match.refresh_from_db()
    return mine, match


def test_only_the_owner_sets_models_and_only_ones_agents_may_call(make_user: Any) -> None:
    from arena.errors import Forbidden, Refused
    from arena.llm.models import LanguageModel
    from arena.llm.services import agent_model_policy_set
    from arena.submissions.services import submission_create

    _model("http://127.0.0.1:9/v1")
    LanguageModel.objects.create(
        name="seats-only", display_name="S", base_url="http://127.0.0.1:9/v1", model_id="s"
    )
    alice, bob = make_user("alice"), make_user("bob")
    submission = submission_create(owner=alice, source=MODEL_AGENT)
    with pytest.raises(Forbidden):
        agent_model_policy_set(
            submission=submission, user=bob, model_names=["tiny"], match_budget_usd=1,
            day_budget_usd=1,
        )  # fmt: skip
    with pytest.raises(Refused, match="agents may not call seats-only"):
        agent_model_policy_set(
            submission=submission, user=alice, model_names=["seats-only"], match_budget_usd=1,
            day_budget_usd=1,
        )  # fmt: skip
    with pytest.raises(Refused, match="over the budget per day"):
        agent_model_policy_set(
            submission=submission, user=alice, model_names=["tiny"], match_budget_usd=2,
            day_budget_usd=1,
        )  # fmt: skip
    policy = agent_model_policy_set(
        submission=submission, user=alice, model_names=["tiny"], match_budget_usd="0.5",
        day_budget_usd="2",
    )  # fmt: skip
    assert [m.name for m in policy.allowed_models.all()] == ["tiny"]


def test_a_site_whose_agents_may_call_no_model_says_who_can_change_that(make_user: Any) -> None:
    from arena.errors import Refused
    from arena.llm.models import LanguageModel
    from arena.llm.services import agent_model_policy_set
    from arena.submissions.services import submission_create

    LanguageModel.objects.create(
        name="seats-only", display_name="S", base_url="http://127.0.0.1:9/v1", model_id="s"
    )
    submission = submission_create(owner=make_user("alice"), source=MODEL_AGENT)
    with pytest.raises(Refused, match="lets agents call no model yet .*admin.*Agents may call"):
        agent_model_policy_set(
            submission=submission, user=submission.agent.owner, model_names=["seats-only"],
            match_budget_usd=1, day_budget_usd=1,
        )  # fmt: skip


def test_make_runs_local_model_is_callable_by_agents_and_an_operators_no_is_kept() -> None:
    """README.md's example agent calls the local model by name on a fresh ``make run``; an
    operator who withdrew it from agents in the admin keeps that through the next start."""
    from arena.llm.localjudge import LOCAL_MODEL_NAME, local_judge_register
    from arena.llm.models import LanguageModel
    from arena.llm.selectors import models_agents_may_call

    local_judge_register(base_url="http://127.0.0.1:9/v1")
    assert [m.name for m in models_agents_may_call()] == [LOCAL_MODEL_NAME]
    LanguageModel.objects.filter(name=LOCAL_MODEL_NAME).update(agents_may_call=False)
    model = local_judge_register(base_url="http://127.0.0.1:10/v1")
    model.refresh_from_db()
    assert model.base_url == "http://127.0.0.1:10/v1" and model.enabled
    assert not model.agents_may_call and models_agents_may_call() == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", ["training", "ranked"])
def test_a_model_calling_agent_plays_metered_and_its_owner_alone_sees_its_calls(
    kind: str, make_user: Any, committed: Any
) -> None:
    from arena.llm.models import ModelCall
    from arena.matches.models import Match
    from django.test import Client

    alice, bob = make_user("alice"), make_user("bob")
    with FakeModel(default=("answer", "THE-MODELS-ADVICE")) as fake:
        _model(fake.base_url)
        mine, match = _play(
            alice, MODEL_AGENT, game="simple-card", bot="highest", kind=kind, seed=7,
            budget="0.25",
        )  # fmt: skip
    assert match.status == Match.Status.FINISHED
    rows = list(ModelCall.objects.filter(match_id=match.pk).order_by("pk"))
    # 0.11 USD a call against 0.25 a match: after two (0.22) the third's 0.117 does not fit.
    assert len(rows) == 2 == len(fake.requests)
    assert {(r.purpose, r.submission_id, r.seat, r.outcome) for r in rows} == {
        ("agent", mine.pk, 0, "answered")
    }
    assert rows[0].messages == [{"role": "user", "content": "round 1"}]
    assert rows[0].round == 1
    owner, other = Client(), Client()
    owner.force_login(alice)
    other.force_login(bob)
    page = owner.get(f"/llm/matches/{match.pk}/").content.decode()
    assert "THE-MODELS-ADVICE" in page and "round 1" in page
    theirs = other.get(f"/llm/matches/{match.pk}/")
    assert theirs.status_code == 404 or "THE-MODELS-ADVICE" not in theirs.content.decode()


@pytest.mark.django_db(transaction=True)
def test_over_the_day_budget_and_the_users_cap_calls_are_refused(
    make_user: Any, committed: Any, settings: Any
) -> None:
    from arena.llm.gateways import agent_gateway
    from arena.llm.services import agent_model_policy_set
    from arena.submissions.services import submission_create

    alice = make_user("alice")
    with FakeModel(default=("answer", "ok")) as fake:
        _model(fake.base_url)
        mine = submission_create(owner=alice, source=MODEL_AGENT)
        agent_model_policy_set(
            submission=mine, user=alice, model_names=["tiny"], match_budget_usd="0.25",
            day_budget_usd="0.3",
        )  # fmt: skip
        gateway = agent_gateway(mine, match_id=41)
        assert gateway is not None
        gateway.begin_call("on_turn", {"round": 1})
        message = {
            "token": gateway.token, "method": "POST", "path": "/v1/chat/completions",
            "body": '{"model": "tiny", "messages": [{"role": "user", "content": "hi"}]}',
        }  # fmt: skip
        # 0.112 USD held a call ("hi": 102 tokens at most, and 10), 0.11 spent: two fit the
        # match's 0.25, a third could pass it.
        codes = [gateway.handle(message)[0] for _ in range(3)]
        assert codes == [200, 200, 429]
        status, body = gateway.handle(message)
        assert "budget per match" in body["error"]["message"]
        assert "could cost up to 0.112" in body["error"]["message"]
        # A new match the same day: refused (0.22 of the day's 0.3 in the ledger, 0.112 more
        # could pass it).
        second = agent_gateway(mine, match_id=42)
        assert second is not None
        second.begin_call("on_turn", {"round": 1})
        status, body = second.handle({**message, "token": second.token})
        assert status == 429 and "budget per day" in body["error"]["message"]
        # The site's cap per user per day binds whatever the owner set.
        settings.ARENA_AGENT_MODEL_USER_DAY_CAP_USD = 0.1
        agent_model_policy_set(
            submission=mine, user=alice, model_names=["tiny"], match_budget_usd="1",
            day_budget_usd="5",
        )  # fmt: skip
        third = agent_gateway(mine, match_id=43)
        assert third is not None
        third.begin_call("on_turn", {"round": 1})
        status, body = third.handle({**message, "token": third.token})
        assert status == 429 and "ARENA_AGENT_MODEL_USER_DAY_CAP_USD" in body["error"]["message"]
    assert len(fake.requests) == 2


def test_an_agent_without_models_gets_no_gateway(make_user: Any) -> None:
    from arena.llm.gateways import agent_gateway
    from arena.submissions.services import submission_create

    mine = submission_create(owner=make_user("alice"), source=MODEL_AGENT)
    assert agent_gateway(mine, match_id=1) is None


@pytest.mark.django_db(transaction=True)
def test_the_api_sets_and_reads_a_versions_models(make_user: Any, client: Any) -> None:
    from arena.submissions.services import submission_create

    _model("http://127.0.0.1:9/v1")
    alice, bob = make_user("alice"), make_user("bob")
    mine = submission_create(owner=alice, source=MODEL_AGENT)
    other = client.post(
        "/api/token", {"username": "bob", "password": "pw-bob-123"},
        content_type="application/json",
    ).json()["token"]  # fmt: skip
    token = client.post(
        "/api/token", {"username": "alice", "password": "pw-alice-123"},
        content_type="application/json",
    ).json()["token"]  # fmt: skip
    auth = {"HTTP_AUTHORIZATION": f"Token {token}"}
    url = f"/api/submissions/{mine.pk}/models"
    body = {"models": ["tiny"], "match_budget_usd": "0.5", "day_budget_usd": "2"}
    answer = client.put(url, body, content_type="application/json", **auth)
    assert answer.status_code == 200, answer.content
    assert answer.json()["models"] == ["tiny"] and answer.json()["callable"] == ["tiny"]
    assert client.get(url, **auth).json()["match_budget_usd"] == "0.5000"
    refused = client.put(url, {"models": ["nope"]}, content_type="application/json", **auth)
    assert refused.status_code == 400 and "agents may not call nope" in refused.json()["error"]
    theirs = client.put(
        url, body, content_type="application/json", HTTP_AUTHORIZATION=f"Token {other}"
    )
    assert theirs.status_code == 403
    del bob


def test_the_owners_form_sets_the_models_and_a_new_version_keeps_them(
    make_user: Any, client: Any
) -> None:
    from arena.llm.gateways import agent_gateway
    from arena.submissions.services import submission_create

    _model("http://127.0.0.1:9/v1")
    alice, bob = make_user("alice"), make_user("bob")
    first = submission_create(owner=alice, source=MODEL_AGENT)
    url = f"/llm/submissions/{first.pk}/models/"
    client.force_login(bob)
    assert client.get(url).status_code == 404
    client.force_login(alice)
    assert "Tiny (fake)" in client.get(url).content.decode()
    posted = client.post(
        url, {"models": ["tiny"], "match_budget_usd": "0.5", "day_budget_usd": "2"}
    )
    assert posted.status_code == 200 and 'id="agent-models-saved"' in posted.content.decode()
    page = client.get(f"/submissions/{first.pk}/").content.decode()
    assert 'id="agent-models-link"' in page
    second = submission_create(owner=alice, source=MODEL_AGENT + "\n# v2\n", name=first.agent.name)
    assert second.version == 2
    gateway = agent_gateway(second, match_id=5)
    assert gateway is not None and gateway.backend.model_names() == ["tiny"]


#: The way the hosted platforms' docs write an agent: the SDK, no arguments, one file.
SDK_AGENT = """
from openai import OpenAI

client = OpenAI()


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            reply = client.chat.completions.create(
                model="smollm2",
                messages=[{"role": "user", "content": f"Pick one of {state['hand']}."}],
                max_tokens=8,
            )
            print("SMOLLM2:", reply.choices[0].message.content)
        return {"type": "play_card", "card": max(state["hand"])}
"""


@pytest.mark.slow
@pytest.mark.docker
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("kind", ["training", "ranked"])
def test_an_sdk_agent_plays_in_docker_calling_the_real_model(
    kind: str, make_user: Any, committed: Any, settings: Any
) -> None:
    from arena.llm.models import LanguageModel, ModelCall
    from arena.llm.services import agent_model_policy_set
    from arena.matches import sandboxing
    from arena.matches.services import match_create
    from arena.submissions.services import house_submission_ensure, submission_create
    from arena.workflows.matches import match_run
    from django.test import Client

    from devtools.localmodel import MISSING, local_model_server, server_python
    from tests.conftest import require_part
    from tests.sandbox.conftest import require_docker

    require_docker()
    require_part(server_python() is not None, MISSING)
    settings.ARENA_SANDBOX_BACKEND = "docker"
    sandboxing.sandbox_backend.cache_clear()
    alice = make_user("alice")
    with local_model_server() as url:
        LanguageModel.objects.create(
            name="smollm2", display_name="SmolLM2", base_url=url, model_id="smollm2",
            agents_may_call=True,
        )  # fmt: skip
        mine = submission_create(owner=alice, source=SDK_AGENT)
        agent_model_policy_set(
            submission=mine, user=alice, model_names=["smollm2"], match_budget_usd="1",
            day_budget_usd="1",
        )  # fmt: skip
        house = house_submission_ensure(game="simple-card", bot="highest")
        match = match_create(kind=kind, submissions=[mine, house], seed=3)
        assert match_run(match_id=match.pk) == "done"
    sandboxing.sandbox_backend.cache_clear()
    rows = list(ModelCall.objects.filter(match_id=match.pk, purpose="agent"))
    # One call, or more when a loaded machine's model ran out of its 10 s (a 504 the SDK raises;
    # the refused turn is asked again and calls again): each a row of this agent.
    assert rows and rows[-1].outcome == "answered"
    assert {(r.submission_id, r.seat) for r in rows} == {(mine.pk, 0)}
    owner, other = Client(), Client()
    owner.force_login(alice)
    other.force_login(make_user("bob"))
    page = owner.get(f"/llm/matches/{match.pk}/").content.decode()
    assert "Pick one of" in page and rows[-1].text and rows[-1].text in page
    theirs = other.get(f"/llm/matches/{match.pk}/")
    assert theirs.status_code == 404 or "Pick one of" not in theirs.content.decode()


@pytest.mark.django_db(transaction=True)
def test_the_judged_games_openai_example_agent_argues_with_the_models_words(
    make_user: Any, committed: Any, settings: Any
) -> None:
    from arena.llm.models import ModelCall
    from arena.matches.logstore import match_log_entries
    from arena.matches.models import Match

    from games.core import get_game_spec

    def reply(body: dict[str, Any]) -> str:
        # The judge asks through a schema; the agent asks for free text.
        schema = json.dumps(body.get("response_format") or {})
        if '"commit"' in schema:
            return json.dumps({"commit": "A", "reason": "A was clearer"})
        if '"question"' in schema:
            return json.dumps({"question": "What happens after?"})
        return "THE-MODELS-ARGUMENT: restraint keeps our allies with us."

    source = (get_game_spec("nuclear-war").package_dir / "example_openai_agent.py").read_text()
    alice = make_user("alice")
    with FakeModel(default=("reply", reply)) as fake:
        _model(fake.base_url, price_input_per_mtok_usd=Decimal(1))
        _model(
            fake.base_url, name="judge", agents_may_call=False,
            price_input_per_mtok_usd=Decimal(0), price_output_per_mtok_usd=Decimal(0),
        )  # fmt: skip
        settings.ARENA_JUDGE_MODEL = "judge"
        mine, match = _play(
            alice, source, game="nuclear-war", bot="hawk", kind="ranked", seed=5, budget="1",
            config={"rounds": 2, "persuasion_steps": 1},
        )  # fmt: skip
    assert match.status == Match.Status.FINISHED, match.error
    rows = list(ModelCall.objects.filter(match_id=match.pk))
    agent = [r for r in rows if r.purpose == "agent"]
    # Three arguments a round (introduction, one answer, closing), two rounds.
    assert len(agent) == 6 and {(r.submission_id, r.outcome) for r in agent} == {
        (mine.pk, "answered")
    }
    assert {r.purpose for r in rows} == {"agent", "judge"}
    said = [
        e["action"]["text"]
        for e in match_log_entries(match)
        if e.get("seat") == 0 and isinstance(e.get("action"), dict)
    ]
    assert said and all(t.startswith("THE-MODELS-ARGUMENT") for t in said), said


def _validation_calls(name: str) -> tuple[Any, list[Any]]:
    """The version uploaded as ``name`` and its self-play's ledger rows."""
    from arena.llm.models import ModelCall
    from arena.matches.models import Match
    from arena.submissions.models import Submission

    submission = Submission.objects.get(agent__name=name)
    match = Match.objects.get(
        kind="validation", participants__submission=submission, participants__seat=0
    )
    return submission, list(ModelCall.objects.filter(match_id=match.pk).order_by("pk"))


@pytest.mark.parametrize("how", ["json", "multipart", "form"])
def test_a_first_upload_chooses_its_models_and_its_self_play_calls_them(
    how: str, make_user: Any, client: Any, committed: Any
) -> None:
    """The models come with the upload, in its transaction: the self-play, queued at its commit,
    already may call them (set after the upload, the first version's self-play ran without)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    alice = make_user("alice")
    choice = {"models": ["tiny"], "match_budget_usd": "5", "day_budget_usd": "10"}
    with FakeModel(default=("answer", "THE-ADVICE")) as fake:
        _model(fake.base_url)
        if how == "form":
            client.force_login(alice)
            file = SimpleUploadedFile("first.py", MODEL_AGENT.encode())
            answer = committed(
                lambda: client.post("/submissions/upload/", {"file": file, **choice})
            )
            assert answer.status_code == 302, answer.content.decode()[-2000:]
        else:
            token = client.post(
                "/api/token", {"username": "alice", "password": "pw-alice-123"},
                content_type="application/json",
            ).json()["token"]  # fmt: skip
            auth = {"HTTP_AUTHORIZATION": f"Token {token}"}
            if how == "json":
                body = {"source": MODEL_AGENT, "name": "first", **choice}
                answer = committed(
                    lambda: client.post(
                        "/api/submissions", body, content_type="application/json", **auth
                    )
                )
            else:
                file = SimpleUploadedFile("first.py", MODEL_AGENT.encode())
                answer = committed(
                    lambda: client.post("/api/submissions", {"file": file, **choice}, **auth)
                )
            assert answer.status_code == 201, answer.content
    submission, rows = _validation_calls("first")
    assert submission.status == "accepted", submission.status_detail
    assert rows and {(r.purpose, r.submission_id, r.outcome) for r in rows} == {
        ("agent", submission.pk, "answered")
    }
    assert len(rows) == len(fake.requests)


def test_an_upload_whose_models_are_refused_is_not_stored(make_user: Any, client: Any) -> None:
    from arena.submissions.models import Submission

    _model("http://127.0.0.1:9/v1")
    make_user("alice")
    token = client.post(
        "/api/token", {"username": "alice", "password": "pw-alice-123"},
        content_type="application/json",
    ).json()["token"]  # fmt: skip
    auth = {"HTTP_AUTHORIZATION": f"Token {token}"}
    for choice, said in (
        ({"models": ["nope"]}, "agents may not call nope"),
        ({"models": ["tiny"], "match_budget_usd": "3", "day_budget_usd": "1"}, "over the budget"),
        ({"match_budget_usd": "3"}, "give `models` with the budgets"),
        ({"models": ["no such name!"]}, "models"),
    ):
        body = {"source": MODEL_AGENT, "name": "first", **choice}
        answer = client.post("/api/submissions", body, content_type="application/json", **auth)
        assert answer.status_code in (400, 422), answer.content
        assert said in answer.content.decode(), answer.content
    assert not Submission.objects.exists()
