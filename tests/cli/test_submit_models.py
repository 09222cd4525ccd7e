"""``arena submit --agent-model``: the models go with the upload (one request), so the first
version's self-play, which starts at the upload's commit, already may call them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena_cli.main import main
from devtools.fakemodel import FakeModel
from tests.arena.llm.test_agent_gateway import MODEL_AGENT, _model, _validation_calls

pytestmark = pytest.mark.django_db(transaction=True)


def test_submit_sends_the_models_with_the_upload(
    live_server: Any,
    make_user: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from arena.accounts.services import token_get_or_create
    from arena.llm.selectors import agent_model_policy_of

    monkeypatch.setenv("ARENA_CONFIG_DIR", str(tmp_path / "config"))
    key = token_get_or_create(user=make_user("cli")).key
    agent = tmp_path / "caller.py"
    agent.write_text(MODEL_AGENT)
    with FakeModel(default=("answer", "THE-ADVICE")) as fake:
        _model(fake.base_url)
        code = main(
            [
                "submit", str(agent), "--server", live_server.url, "--token", key,
                "--agent-model", "tiny", "--match-budget-usd", "5", "--day-budget-usd", "10",
                "--timeout", "60",
            ]
        )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "it may call tiny (budget 5 USD a match, 10 USD a day" in out
    submission, rows = _validation_calls("caller")
    assert submission.status == "accepted"
    policy = agent_model_policy_of(submission)
    assert policy is not None and policy.submission_id == submission.pk
    assert rows and {r.outcome for r in rows} == {"answered"} and len(fake.requests) == len(rows)
