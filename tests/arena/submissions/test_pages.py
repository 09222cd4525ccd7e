"""Pages render for a user and refuse what is someone else's."""

from __future__ import annotations

from typing import Any

import pytest
from arena.catalog.services import demo_data_load
from arena.submissions.models import Submission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

pytestmark = pytest.mark.django_db


def signed_in(make_user: Any, name: str) -> Client:
    user = make_user(name)
    client = Client()
    client.force_login(user)
    return client


def test_sign_up_upload_train_and_read_prints(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    demo_data_load()
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"username": "carol", "password1": "a-long-pass-9", "password2": "a-long-pass-9"},
    )
    assert response.status_code == 302
    upload = SimpleUploadedFile("my_bot.py", starter_source.encode())
    response = committed(lambda: client.post("/submissions/upload/", {"file": upload, "name": ""}))
    submission = Submission.objects.get(agent__owner__username="carol")
    assert response.url == f"/submissions/{submission.pk}/"
    page = client.get(response.url).content.decode()
    assert "accepted" in page and "my_bot v1" in page
    response = committed(
        lambda: client.post(
            f"/submissions/{submission.pk}/train/", {"opponent": "house:random", "timed": "on"}
        )
    )
    match_page = client.get(response.url).content.decode()
    assert "finished" in match_page
    calls = client.get(response.url + "calls/").content.decode()
    assert "-&gt; playing" in calls  # the starter's prints, on the turn log
    client.post(f"/submissions/{submission.pk}/ladder/", {"action": "activate"})
    game_page = client.get("/games/simple-card/").content.decode()
    assert "my_bot v1" in game_page and "Download the starter agent" in game_page
    agent_page = client.get(f"/submissions/agents/{submission.agent_id}/").content.decode()
    assert "Versions" in agent_page


def test_a_bad_upload_shows_the_line(make_user: Any) -> None:
    client = signed_in(make_user, "alice")
    upload = SimpleUploadedFile("agent.py", b'class Agent:\n    GAME = "chess-960"\n')
    page = client.post("/submissions/upload/", {"file": upload}).content.decode()
    assert "line 2" in page and "chess-960" in page


def test_someone_elses_submission_and_training_are_refused(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    alice, bob = signed_in(make_user, "alice"), signed_in(make_user, "bob")
    committed(
        lambda: alice.post(
            "/submissions/upload/", {"file": SimpleUploadedFile("a.py", starter_source.encode())}
        )
    )
    submission = Submission.objects.get()
    match_url = committed(
        lambda: alice.post(f"/submissions/{submission.pk}/train/", {"opponent": "house:random"})
    ).url
    assert bob.get(f"/submissions/{submission.pk}/").status_code == 403
    assert bob.get(match_url).status_code == 403
    assert (
        bob.post(f"/submissions/{submission.pk}/train/", {"opponent": "house:random"}).status_code
        == 403
    )
    assert Client().get(f"/submissions/{submission.pk}/").status_code == 302  # to sign in


def test_home_lists_every_registered_game(db: None) -> None:
    from games.core import available_game_ids

    page = Client().get("/").content.decode()
    for game in available_game_ids():
        assert game in page


def test_a_game_page_shows_its_house_bots_strength_table(db: None) -> None:
    from games.core import get_game_spec

    table = get_game_spec("simple-card").strength_table()
    assert table is not None, "run `arena strength --game simple-card --write`"
    page = Client().get("/games/simple-card/").content.decode()
    assert "House bots: strength" in page
    assert table["command"] in page
    for row in table["standings"]:
        assert f"<td>{row['bot']}</td>" in page
