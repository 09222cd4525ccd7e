"""The real local model (SmolLM2-135M on llama-cpp-python, ``make llm-server``) as the judge of
one full untimed match of each judged game, through the platform: the worker's match run, the
ledger, the replay. The model is tiny: what is checked is that every match ends with its
verdicts in the replay and its calls in the ledger, never what it decides."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from devtools.localmodel import MISSING, local_model_server, server_python
from tests.conftest import require_part

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: As short as each game allows, and each kind of request once at least: a scenario's two legs
#: (a persuasion game's rounds come in pairs) with one question step in nil-recruitment and
#: none in nuclear-war (verdicts only), one word of one cycle in passcode (a keeper's answer or
#: two). The model is slow on a loaded host: every call counts.
GAMES = {
    "nil-recruitment": (("tailored", "boastful"), {"rounds": 2, "persuasion_steps": 1}),
    "nuclear-war": (("measured", "hawk"), {"rounds": 2, "persuasion_steps": 0}),
    "passcode": (("halver", "asker"), {"rounds": 1, "cycle_limit": 1}),
}
#: Enough for a verdict's short reason; a reply cut inside its reason is closed and read
#: (``games.core.judge.answer_from_text``).
MAX_TOKENS = 64


@pytest.fixture(scope="module")
def model_url() -> Iterator[str]:
    require_part(server_python() is not None, MISSING)
    with local_model_server() as url:
        yield url


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_local_model_judges_a_whole_match_through_the_platform(
    model_url: str, game: str, settings: Any
) -> None:
    from arena.llm.localjudge import LOCAL_MODEL_NAME, local_judge_register
    from arena.llm.models import ModelCall
    from arena.matches.models import Match
    from arena.matches.replays import match_replay
    from arena.matches.services import match_create
    from arena.submissions.services import house_submission_ensure
    from arena.workflows.matches import match_run
    from django.contrib.auth.models import AnonymousUser

    local_judge_register(base_url=model_url)
    settings.ARENA_JUDGE_MODEL = LOCAL_MODEL_NAME
    settings.ARENA_JUDGE_MAX_TOKENS = MAX_TOKENS
    # Untimed: a call that a loaded host slows past the judge's own timeout (120 s) would be
    # a timeout row and a retry, not the model's answer this test is about.
    settings.ARENA_JUDGE_CALL_TIMEOUT_S = 900
    bots, config = GAMES[game]
    seats = [house_submission_ensure(game=game, bot=b) for b in bots]
    match = match_create(kind=Match.Kind.TRAINING, submissions=seats, timed=False)
    Match.objects.filter(pk=match.pk).update(config=config)
    for _ in range(3):  # a platform error re-queues: at most the platform's attempts
        if match_run(match_id=match.pk) != "retry":
            break
    match.refresh_from_db()
    assert match.status == "finished", match.error
    calls = ModelCall.objects.filter(match_id=match.pk)
    assert calls.exists() and {c.purpose for c in calls} == {"judge"}
    assert all(c.submission_id is None and c.outcome == "answered" for c in calls), [
        (c.outcome, c.error[:200]) for c in calls
    ]
    assert {c.round for c in calls} == set(range(1, config["rounds"] + 1))
    replay = json.dumps(match_replay(match, AnonymousUser()))
    if game == "passcode":
        assert "keeper" in replay
    else:
        assert "decides" in replay
        assert ("asks" in replay) == bool(config["persuasion_steps"])
