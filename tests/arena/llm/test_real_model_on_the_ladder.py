"""A real model as an entrant, end to end on the platform: SmolLM2-135M-Instruct on
llama-cpp-python (``make llm-server``), entered on chess and on poker through the web form,
validated by its self-play, training against a house bot, then a rated match against an
uploaded code agent on the same ladder."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from devtools.localmodel import MISSING, local_model_server, server_python
from tests.conftest import require_part

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SHORT = {"chess": {"games": 1, "max_plies": 8}, "poker": {"hands": 2}}


@pytest.fixture(scope="module")
def model_url() -> Iterator[str]:
    require_part(server_python() is not None, MISSING)
    with local_model_server() as url:
        yield url


def play(match_id: int, config: dict[str, Any]) -> Any:
    from arena.matches.models import Match
    from arena.workflows.matches import match_run

    Match.objects.filter(pk=match_id).update(config=config)
    match_run(match_id=match_id)
    return Match.objects.get(pk=match_id)


@pytest.mark.parametrize("game", ["chess", "poker"])
def test_a_real_model_entered_through_the_form_trains_and_plays_ranked_against_code(
    game: str,
    model_url: str,
    make_user: Any,
    committed: Any,
    django_capture_on_commit_callbacks: Any,
    settings: Any,
) -> None:
    from arena.llm.models import LanguageModel, ModelCall
    from arena.matches import services as match_services
    from arena.matches.models import Match
    from arena.submissions.models import Submission
    from arena.workflows.submissions import submission_activate, submission_upload
    from django.db import transaction
    from django.test import Client

    from games.core import get_game_spec

    # A loaded machine (CI, two cores shared) must not turn a slow answer into a timeout here:
    # the move budget is tested against the loopback server (tests/llm/test_seat.py).
    settings.ARENA_LLM_MOVE_BUDGET_S = 120.0
    LanguageModel.objects.create(
        name="smollm2",
        display_name="SmolLM2 135M",
        base_url=model_url,
        model_id="smollm2",
        json_style="json_object",
        default_max_tokens=48,
        requests_per_minute=100_000,
    )
    alice, bob = make_user("alice"), make_user("bob")
    client = Client()
    client.force_login(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/llm/new/",
            {"model": "smollm2", "game": game, "name": "smol", "json_output": "on",
             "temperature": "0"},
        )  # fmt: skip
    assert response.status_code == 302, response.content[:800]
    entrant = Submission.objects.get(agent__name="smol")
    assert entrant.status == "accepted", entrant.status_detail
    page = client.get(f"/submissions/{entrant.pk}/").content.decode()
    assert "SmolLM2 135M" in page and "Spend:" in page

    with transaction.atomic():
        training = match_services.training_create(
            user=alice,
            submission_id=entrant.pk,
            opponent=f"house:{sorted(get_game_spec(game).bots)[0]}",
        )
    training = play(training.pk, SHORT[game])
    assert training.status == "finished", training.error
    assert ModelCall.objects.filter(match_id=training.pk, outcome="answered").exists()

    code = committed(
        lambda: submission_upload(owner=bob, source=get_game_spec(game).starter_source())
    )
    code.refresh_from_db()
    assert code.status == "accepted", code.status_detail
    committed(lambda: submission_activate(submission=entrant, user=alice))
    committed(lambda: submission_activate(submission=code, user=bob))
    ranked = match_services.match_create(kind=Match.Kind.RANKED, submissions=[entrant, code])
    ranked = play(ranked.pk, SHORT[game])
    assert ranked.status == "finished" and ranked.rated, ranked.error
    calls = client.get(f"/llm/matches/{ranked.pk}/").content.decode()
    assert 'class="model-answer"' in calls
