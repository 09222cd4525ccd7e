"""The rough edges a newcomer met , each checked where a test can tell."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils.html import escape

pytestmark = pytest.mark.django_db


def signed_in(make_user: Any, name: str) -> Client:
    client = Client()
    client.force_login(make_user(name))
    return client


def test_the_size_error_reports_the_real_size(make_user: Any) -> None:
    client = signed_in(make_user, "ann")
    big = SimpleUploadedFile("big.py", b"#" * 5_242_929)
    page = client.post("/submissions/upload/", {"file": big}).content.decode()
    assert "5,242,929 bytes" in page and "4,194,305" not in page


@pytest.fixture
def alice_and_bob(
    make_user: Any, committed: Any, starter_source: str
) -> tuple[Client, Client, Any]:
    """Alice and Bob signed in, and the submission Alice uploaded through the page."""
    from arena.submissions.models import Submission

    alice, bob = signed_in(make_user, "alice"), signed_in(make_user, "bob")
    upload = SimpleUploadedFile("a.py", starter_source.encode())
    committed(lambda: alice.post("/submissions/upload/", {"file": upload}))
    return alice, bob, Submission.objects.get()


def test_403_and_404_are_the_sites_pages_with_the_reason_and_a_way_back(
    alice_and_bob: tuple[Client, Client, Any], committed: Any
) -> None:
    alice, bob, submission = alice_and_bob
    match_url = committed(
        lambda: alice.post(f"/submissions/{submission.pk}/train/", {"opponent": "house:random"})
    ).url
    response = bob.get(match_url)
    assert response.status_code == 403
    page = response.content.decode()
    assert "visible to their owner only" in page
    assert 'id="error-page"' in page and "All games" in page and "Agent Arena" in page

    response = bob.get("/matches/999999/")
    assert response.status_code == 404
    page = response.content.decode()
    assert 'id="error-page"' in page and "no such match" in page.lower() and "All games" in page
    response = Client().get("/no/such/page/")
    assert response.status_code == 404 and "/no/such/page/" in response.content.decode()


def test_another_users_agent_page_links_no_version_they_cannot_open(
    alice_and_bob: tuple[Client, Client, Any],
) -> None:
    alice, bob, submission = alice_and_bob
    page = bob.get(f"/submissions/agents/{submission.agent_id}/").content.decode()
    assert f'href="/submissions/{submission.pk}/"' not in page
    assert (
        f'href="/submissions/{submission.pk}/"'
        in alice.get(f"/submissions/agents/{submission.agent_id}/").content.decode()
    )


def test_sign_up_welcomes_and_says_what_to_do_next(db: None) -> None:
    client = Client()
    page = client.get("/accounts/signup/").content.decode()
    assert "What happens next" in page and 'class="card form"' in page
    response = client.post(
        "/accounts/signup/",
        {"username": "dora", "password1": "a-long-pass-9", "password2": "a-long-pass-9"},
        follow=True,
    )
    page = response.content.decode()
    assert "Welcome to Agent Arena, dora!" in page and "starter agent" in page


def test_my_agents_shows_elo_and_the_agent_page_says_which_seat_was_mine(
    make_user: Any, committed: Any
) -> None:
    from arena.catalog.services import demo_data_load
    from arena.ratings.services import rating_ensure
    from arena.submissions.services import house_submission_ensure, submission_create
    from arena.workflows.dispatch import match_schedule

    from games.core import get_game_spec

    demo_data_load()
    ann = make_user("ann")
    client = Client()
    client.force_login(ann)
    source = get_game_spec("simple-card").starter_source()
    submission = committed(lambda: submission_create(owner=ann, data=source.encode()))
    rating_ensure(submission=submission)
    committed(
        lambda: match_schedule(
            kind="ranked",
            submissions=[house_submission_ensure(game="simple-card", bot="random"), submission],
        )
    )
    mine = client.get("/submissions/mine/").content.decode()
    assert "<th>Elo</th>" in mine and 'class="elo">1' in mine  # a rating near 1200
    agent_page = client.get(f"/submissions/agents/{submission.agent_id}/").content.decode()
    row = agent_page.split('id="agent-matches"')[1]
    assert "<td>1</td>" in row  # my seat
    assert "random v1" in row and "(house)" in row  # against whom


def test_the_home_page_says_what_each_game_is_with_its_top_and_matches(
    db: None, django_assert_max_num_queries: Any
) -> None:
    from arena.catalog.services import demo_data_load

    from games.core import available_game_ids, get_game_spec

    demo_data_load()
    with django_assert_max_num_queries(len(available_game_ids()) + 8):
        page = Client().get("/").content.decode()
    for game in available_game_ids():
        assert escape(get_game_spec(game).blurb)[:40] in page
    assert "Top of the ladder" in page and "Live now" in page and "Recent matches" in page
    assert 'rel="icon"' in page


def test_a_matchs_why_column_explains_a_forfeit_and_scores_read_as_written(
    committed: Any,
) -> None:
    from arena.matches.models import Match, Participant

    match = Match.objects.create(game="simple-card", game_version=1, kind="ranked", seed=1)
    from arena.submissions.services import house_submission_ensure

    for seat, bot in enumerate(["random", "highest"]):
        Participant.objects.create(
            match=match,
            seat=seat,
            submission=house_submission_ensure(game="simple-card", bot=bot),
            outcome=["loss", "win"][seat],
            reason=["timeout", "normal"][seat],
            detail=["on_turn did not answer within 2 s", "won by forfeit: the opponent ran out"][
                seat
            ],
            score=[-19750.0, 250.0][seat],
        )
    match.status = "finished"
    match.save()
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert "ran out of time" in page and "won by forfeit" in page
    assert "250.0" not in page and "-19,750" in page and ">250<" in page
    assert "normal" not in page.split("<tbody>")[1].split("</tbody>")[0]


def test_a_rejected_validation_says_what_happened_and_what_to_do(
    make_user: Any, committed: Any
) -> None:
    from arena.submissions.models import Submission

    from tests.arena.conftest import BAD_AGENT_SOURCE

    client = signed_in(make_user, "ann")
    upload = SimpleUploadedFile("bad.py", BAD_AGENT_SOURCE.encode())
    committed(lambda: client.post("/submissions/upload/", {"file": upload}))
    detail = Submission.objects.get().status_detail
    assert "made four illegal actions in a row" in detail and "my bug on purpose" in detail
    assert "upload a new version" in detail
    assert "ended by" not in detail and "(seat 0)" not in detail and "Traceback" not in detail


def test_the_api_size_error_reports_the_real_size(make_user: Any) -> None:
    from arena.accounts.services import token_get_or_create

    user = make_user("ann")
    token = token_get_or_create(user=user)
    response = Client().post(
        "/api/submissions",
        {"file": SimpleUploadedFile("big.py", b"#" * 5_242_929)},
        HTTP_AUTHORIZATION=f"Token {token.key}",
    )
    body = response.content.decode()
    assert response.status_code in (400, 422), body
    assert "5,242,929 bytes" in body, body


def test_an_auto_paused_version_says_why_on_its_page_and_in_the_api(make_user: Any) -> None:
    from arena.accounts.services import token_get_or_create
    from arena.competitions.models import LadderPause
    from arena.submissions.services import submission_create, submission_set_status

    from games.core import get_game_spec

    ann = make_user("ann")
    source = get_game_spec("simple-card").starter_source()
    submission = submission_set_status(
        submission=submission_create(owner=ann, data=source.encode()), status="accepted"
    )
    reason = (
        f"{submission.label} forfeited its last 3 ranked matches in a row (3 × crashed), so it "
        "was taken off the ladder."
    )
    LadderPause.objects.create(submission=submission, reason=reason, match_ids=[41, 40, 39])
    client = Client()
    client.force_login(ann)
    page = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert 'id="autopause"' in page and escape(reason) in page and "Off the ladder since" in page
    assert 'href="/matches/41/"' in page
    ladder = Client(HTTP_AUTHORIZATION=f"Token {token_get_or_create(user=ann).key}").get(
        f"/api/submissions/{submission.pk}"
    )
    assert ladder.status_code == 200, ladder.content
    wait = ladder.json()["ladder"]
    assert wait["state"] == "paused" and reason in wait["text"] and wait["match"] == 41
    assert "off the ladder since" in wait["text"]
    # Put back on the ladder, the pause is history: neither says it any more.
    from arena.workflows.submissions import submission_activate

    submission_activate(submission=submission, user=ann)
    assert 'id="autopause"' not in client.get(f"/submissions/{submission.pk}/").content.decode()


#: An agent whose on_turn never answers in time.
SLEEPER = """
import time


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        time.sleep(30)
"""


def test_a_timeout_in_self_play_names_the_method_as_written(
    make_user: Any, committed: Any, settings: Any
) -> None:
    from arena.submissions.models import Submission

    settings.ARENA_TURN_TIMEOUT_S = 0.3
    client = signed_in(make_user, "ann")
    upload = SimpleUploadedFile("slow.py", SLEEPER.encode())
    committed(lambda: client.post("/submissions/upload/", {"file": upload}))
    submission = Submission.objects.get()
    assert submission.status == "rejected", submission.status_detail
    detail = submission.status_detail
    assert "on_turn did not answer" in detail and "On_turn" not in detail
    page = client.get(f"/submissions/{submission.pk}/").content.decode()
    assert "on_turn did not answer" in page and "On_turn" not in page
