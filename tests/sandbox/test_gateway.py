"""The model gateway: an agent written with the ``openai`` SDK and no arguments calls a model
from inside its sandbox (both backends), is charged only its own time, and hears every refusal
as an OpenAI-shaped error it can handle.

The model is the loopback fake (``devtools/fakemodel.py``) behind ``llm_seat.gateway``'s
``ClientBackend``: the same path the worker and ``arena play`` take, without Django.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from devtools.fakemodel import FakeModel
from games.core import MatchSettings, play_match
from llm_seat import Endpoint
from llm_seat.gateway import ClientBackend, GatewayModel
from sandbox import ModelAllowance, ModelGateway, create_handle
from sandbox.gateway import parse_chat_request
from tests.sandbox.conftest import TEST_LIMITS, CountingHooks, agent_source

HAND = {"round": 1, "hand": [1, 2, 3]}


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with FakeModel(default=("answer", "hello from the model")) as model:
        yield model


def gateway(fake: FakeModel, hooks: CountingHooks | None = None, **allowance: Any) -> ModelGateway:
    endpoint = Endpoint(name="tiny", base_url=fake.base_url, model="fake")
    backend = ClientBackend(
        [GatewayModel(name="tiny", endpoint=endpoint, hooks=hooks or CountingHooks())],
        attempts=2,
        backoff_s=0.05,
    )
    return ModelGateway(backend, allowance=ModelAllowance(**allowance))


def run_turn(backend: str, body: str, gw: ModelGateway, timeout_s: float = 30.0) -> Any:
    """Start the agent, call its on_turn once, close it; the ``CallResult``."""
    header = "import openai\nfrom openai import OpenAI\n"
    handle = create_handle(
        agent_source(body, header=header),
        name="a",
        backend=backend,
        limits=TEST_LIMITS,
        gateway=gw,
    )
    try:
        handle.start(game_id="simple-card", timeout_s=30)
        return handle.call("on_turn", HAND, timeout_s=timeout_s)
    finally:
        handle.close()


def test_an_openai_agent_plays_and_the_model_time_is_not_charged(
    backend: str, fake: FakeModel
) -> None:
    # Two calls of 1.2 s each in one turn: 2.4 s of model time against a 2 s budget.
    fake.default = ("slow", 1.2, "hello from the model")
    body = """
    def on_turn(self, state):
        if state["round"] == 1:
            client = OpenAI()
            for _ in range(2):
                answer = client.chat.completions.create(
                    model="tiny", messages=[{"role": "user", "content": "pick a card"}]
                )
                print("MODEL SAID", answer.choices[0].message.content, answer.usage.total_tokens)
        return {"type": "play_card", "card": max(state["hand"])}
    """
    hooks = CountingHooks()
    handles = [
        create_handle(
            agent_source(body, header="from openai import OpenAI\n"),
            name="caller",
            backend=backend,
            limits=TEST_LIMITS,
            gateway=gateway(fake, hooks),
        ),
        create_handle(
            agent_source(
                'def on_turn(self, state):\n    return {"type": "play_card", '
                '"card": min(state["hand"])}\n'
            ),
            name="other",
            backend=backend,
            limits=TEST_LIMITS,
        ),
    ]
    record = play_match("simple-card", handles, seed=3, settings=MatchSettings())
    assert record.platform_error is None
    assert str(record.seats[0].reason) == "normal", record.seats[0].detail
    first = next(e for e in record.log if e.get("seat") == 0 and e["method"] == "on_turn")
    assert first["stdout"].count("MODEL SAID hello from the model 110") == 2
    assert first["elapsed_ms"] < 2000 <= first["wall_ms"]
    assert [r.outcome for r in hooks.records] == ["answered", "answered"]
    assert fake.requests[0]["headers"]["authorization"] == "Bearer no-key"  # never the token


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        (
            'client.chat.completions.create(model="big", messages=MESSAGES)',
            "PermissionDeniedError 403 model_not_allowed",
        ),
        (
            'OpenAI(api_key="stolen").chat.completions.create(model="tiny", messages=MESSAGES)',
            "AuthenticationError 401 invalid_api_key",
        ),
        (
            'client.chat.completions.create(model="tiny", messages=[])',
            "BadRequestError 400 invalid_value",
        ),
        (
            'client.chat.completions.create(model="tiny", messages=MESSAGES, stream=True)',
            "BadRequestError 400 stream",
        ),
        ('client.get("/embeddings", cast_to=object)', "NotFoundError 404 unknown_path"),
    ],
)
def test_refusals_are_openai_errors_the_agent_can_handle(
    backend: str, fake: FakeModel, code: str, expected: str
) -> None:
    body = f"""
    def on_turn(self, state):
        MESSAGES = [{{"role": "user", "content": "hi"}}]
        client = OpenAI()
        try:
            {code}
            print("NO ERROR")
        except openai.APIStatusError as exc:
            print("REFUSED", type(exc).__name__, exc.status_code, exc.body.get("code"))
        return {{"type": "play_card", "card": 1}}
    """
    result = run_turn(backend, body, gateway(fake))
    assert result.ok, result.error
    assert f"REFUSED {expected}" in result.stdout
    assert fake.requests == []  # nothing refused reached the model


def test_a_call_over_budget_is_a_429_and_the_ledger_is_exact(backend: str, fake: FakeModel) -> None:
    hooks = CountingHooks(cap_calls=2)
    body = """
    def on_turn(self, state):
        client = OpenAI()
        for i in range(4):
            try:
                client.chat.completions.create(
                    model="tiny", messages=[{"role": "user", "content": str(i)}]
                )
                print("CALL", i, "answered")
            except openai.RateLimitError as exc:
                print("CALL", i, "refused", exc.status_code, exc.body.get("code"))
        return {"type": "play_card", "card": 1}
    """
    result = run_turn(backend, body, gateway(fake, hooks))
    assert "CALL 1 answered" in result.stdout
    assert "CALL 2 refused 429 insufficient_quota" in result.stdout
    assert "CALL 3 refused 429 insufficient_quota" in result.stdout
    assert len(hooks.records) == 2 == len(fake.requests)


def test_a_model_past_its_allowance_is_cut_and_the_agent_still_answers(
    backend: str, fake: FakeModel
) -> None:
    fake.default = ("slow", 5.0, "too late")
    body = """
    def on_turn(self, state):
        try:
            OpenAI().chat.completions.create(
                model="tiny", messages=[{"role": "user", "content": "think hard"}]
            )
        except openai.APIStatusError as exc:
            print("CUT", exc.status_code, exc.body.get("code"))
        return {"type": "play_card", "card": 2}
    """
    result = run_turn(backend, body, gateway(fake, per_turn_s=1.0), timeout_s=2.5)
    assert result.ok and result.result == {"type": "play_card", "card": 2}
    assert "CUT 504 model_timeout" in result.stdout
    assert 900 <= result.model_ms < 3000
    assert result.elapsed_ms < 2000


def test_a_provider_failure_is_a_503_after_the_retries(backend: str, fake: FakeModel) -> None:
    fake.default = ("status", 500)
    hooks = CountingHooks()
    body = """
    def on_turn(self, state):
        try:
            OpenAI().chat.completions.create(
                model="tiny", messages=[{"role": "user", "content": "hi"}]
            )
        except openai.APIStatusError as exc:
            print("FAILED", exc.status_code, exc.body.get("code"))
        return {"type": "play_card", "card": 2}
    """
    result = run_turn(backend, body, gateway(fake, hooks))
    assert result.ok
    assert "FAILED 503 provider_unavailable" in result.stdout
    assert [r.outcome for r in hooks.records] == ["provider_error", "provider_error"]


def test_calls_past_the_per_turn_count_get_429(backend: str, fake: FakeModel) -> None:
    body = """
    def on_turn(self, state):
        client = OpenAI()
        codes = []
        for _ in range(5):
            try:
                client.chat.completions.create(
                    model="tiny", messages=[{"role": "user", "content": "hi"}]
                )
                codes.append(200)
            except openai.APIStatusError as exc:
                codes.append(exc.status_code)
        print("CODES", codes)
        return {"type": "play_card", "card": 2}
    """
    result = run_turn(backend, body, gateway(fake, calls_per_turn=3))
    assert "CODES [200, 200, 200, 429, 429]" in result.stdout


def test_the_model_list_names_the_allowed_models(backend: str, fake: FakeModel) -> None:
    body = """
    def on_turn(self, state):
        print("MODELS", [m.id for m in OpenAI().models.list()])
        return {"type": "play_card", "card": 2}
    """
    result = run_turn(backend, body, gateway(fake))
    assert "MODELS ['tiny']" in result.stdout


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        ("not json", 400),
        ('{"model": "tiny", "messages": [{"role": "robot", "content": "x"}]}', 400),
        ('{"model": "tiny", "messages": [{"role": "user", "content": 5}]}', 400),
        ('{"model": "tiny", "messages": [{"role": "user", "content": "x"}], "n": 3}', 400),
        (
            '{"model": "tiny", "messages": [{"role": "user", "content": "x"}], "temperature": 9}',
            400,
        ),
        ('{"model": "other", "messages": [{"role": "user", "content": "x"}]}', 403),
        ("[" * 50 + "]" * 50, 400),
    ],
)
def test_malformed_chat_requests_are_refused(raw: str, status: int) -> None:
    from sandbox.gateway import GatewayError

    with pytest.raises(GatewayError) as refused:
        parse_chat_request(raw, ["tiny"])
    assert refused.value.status == status


def test_a_request_without_a_model_takes_the_first_allowed() -> None:
    request = parse_chat_request('{"messages": [{"role": "user", "content": "x"}]}', ["a", "b"])
    assert request.model == "a"


def test_the_openai_import_is_not_charged_to_the_agents_load(backend: str, fake: FakeModel) -> None:
    # The harness imports the client before the agent's window (about a second, several on a
    # busy host); the agent's own import then finds it loaded.
    source = agent_source(PLAY, header="import openai\nfrom openai import OpenAI\n")
    handle = create_handle(
        source, name="a", backend=backend, limits=TEST_LIMITS, gateway=gateway(fake)
    )
    try:
        load_s = handle.start(game_id="simple-card", timeout_s=30)
    finally:
        handle.close()
    assert load_s is not None and load_s < 0.5


PLAY = """
def on_turn(self, state):
    return {"type": "play_card", "card": 1}
"""
