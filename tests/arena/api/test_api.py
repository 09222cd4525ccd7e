"""The JSON API: token auth, the journey, refusals as 4xx JSON, owner-only data."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from tests.arena.conftest import BAD_AGENT_SOURCE, house_match, stored_call

pytestmark = pytest.mark.django_db


def token_client(make_user: Any, name: str = "alice") -> Client:
    make_user(name)
    response = Client().post(
        "/api/token",
        {"username": name, "password": f"pw-{name}-123"},
        content_type="application/json",
    )
    assert response.status_code == 200
    return Client(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")


def post_json(client: Client, url: str, body: dict[str, Any]) -> Any:
    return client.post(url, json.dumps(body), content_type="application/json")


def uploaded(api: Client, committed: Any, source: str) -> int:
    """Upload ``source`` through the API (its validation runs, eager): the submission's id."""
    created = committed(lambda: post_json(api, "/api/submissions", {"source": source}))
    assert created.status_code == 201, created.content
    return int(created.json()["id"])


def test_wrong_password_and_missing_token_are_refused_with_a_reason(make_user: Any) -> None:
    make_user("alice")
    bad = Client().post(
        "/api/token", {"username": "alice", "password": "nope"}, content_type="application/json"
    )
    assert bad.status_code == 401 and "wrong username or password" in bad.json()["error"]
    anonymous = Client().post("/api/submissions", {})
    assert anonymous.status_code == 401 and "Token" in anonymous.json()["error"]
    forged = Client(HTTP_AUTHORIZATION="Token forged").get("/api/submissions/1")
    assert forged.status_code == 401


def test_the_journey_through_the_api(make_user: Any, committed: Any, starter_source: str) -> None:
    api = token_client(make_user)
    assert "simple-card" in [g["id"] for g in api.get("/api/games").json()]
    created = committed(
        lambda: post_json(api, "/api/submissions", {"source": starter_source, "name": "mybot"})
    )
    assert created.status_code == 201
    body = created.json()
    assert (body["agent"], body["version"], body["errors"]) == ("mybot", 1, [])
    sid = body["id"]
    assert api.get(f"/api/submissions/{sid}").json()["status"] == "accepted"
    training = committed(
        lambda: post_json(
            api, "/api/training", {"submission": sid, "opponent": "house:random", "timed": False}
        )
    )
    assert training.status_code == 201
    match = api.get(f"/api/matches/{training.json()['match']}").json()
    assert match["status"] == "finished" and match["participants"][0]["agent"] == "mybot v1"
    log = [
        json.loads(line) for line in api.get(f"/api/matches/{match['id']}/log").content.splitlines()
    ]
    assert any(e.get("stdout") and "-> playing" in e["stdout"] for e in log if e["seat"] == 0)
    assert api.post(f"/api/submissions/{sid}/activate").json()["active"] is True
    page = api.get("/api/leaderboard/simple-card").json()
    assert (page["ranking"], page["total"], page["page"], page["pages"]) == ("elo", 1, 1, 1)
    board = page["rows"]
    assert [row["agent"] for row in board] == ["mybot v1"]
    assert set(board[0]) >= {
        "rank",
        "agent",
        "owner",
        "rating",
        "games",
        "wins",
        "losses",
        "draws",
        "provisional",
    }
    assert api.post(f"/api/submissions/{sid}/deactivate").json()["active"] is False


def test_a_user_lists_their_own_submissions_page_by_page(
    make_user: Any, committed: Any, starter_source: str, django_assert_max_num_queries: Any
) -> None:
    from games.core import get_game_spec

    alice, bob = token_client(make_user, "alice"), token_client(make_user, "bob")
    other_game = get_game_spec("split-or-steal").starter_source()
    mine = [
        uploaded(alice, committed, starter_source),
        uploaded(alice, committed, other_game),
        uploaded(alice, committed, starter_source),
    ]
    uploaded(bob, committed, starter_source)
    with django_assert_max_num_queries(6):  # the token, the page, its self-play matches
        first = alice.get("/api/submissions", {"per_page": 2}).json()
    assert [s["id"] for s in first["submissions"]] == mine[:0:-1]
    assert first["next_before"] == mine[1]
    last = alice.get("/api/submissions", {"per_page": 2, "before": first["next_before"]}).json()
    assert [s["id"] for s in last["submissions"]] == [mine[0]] and last["next_before"] is None
    for row in first["submissions"] + last["submissions"]:
        detail = alice.get(f"/api/submissions/{row['id']}").json()
        assert {k: v for k, v in detail.items() if k != "ladder"} == {
            k: v for k, v in row.items() if k != "ladder"
        }
        assert row["status"] == "accepted" and row["validation_match"] is not None
    games = alice.get("/api/submissions", {"game": "split-or-steal"}).json()["submissions"]
    assert [s["id"] for s in games] == [mine[1]]
    unknown = alice.get("/api/submissions", {"game": "no-such-game"})
    assert unknown.status_code == 404 and "no-such-game" in unknown.json()["error"]
    assert Client().get("/api/submissions").status_code == 401


def test_multipart_upload_with_a_bad_file_says_which_line(make_user: Any) -> None:
    api = token_client(make_user)
    from django.core.files.uploadedfile import SimpleUploadedFile

    bad = SimpleUploadedFile(
        "agent.py", b'class Agent:\n    GAME = "simple-card"\n    def on_turn(self, s)\n'
    )
    response = api.post("/api/submissions", {"file": bad})
    assert response.status_code == 400
    detail = response.json()["details"][0]
    assert (detail["rule"], detail["line"]) == ("syntax", 3)
    assert "line 3" in response.json()["error"]


@pytest.mark.parametrize(
    ("data", "rule"),
    [
        (b"", "empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "utf8"),
        (b"#" * (10 * 1024 * 1024), "size"),
        (b"def broken(:\n", "syntax"),
        (b"x = 1\n", "agent_class"),
        (b'class Agent:\n    GAME = "go"\n    def on_turn(self, s):\n        return {}\n', "game"),
        (b'class Agent:\n    GAME = "simple-card"\n', "on_turn"),
    ],
    ids=["empty", "binary", "10MB", "syntax", "no-agent", "unknown-game", "no-on_turn"],
)
def test_each_bad_upload_is_refused_by_its_rule(make_user: Any, data: bytes, rule: str) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    api = token_client(make_user)
    response = api.post("/api/submissions", {"file": SimpleUploadedFile("agent.py", data)})
    assert response.status_code == 400
    assert response.json()["details"][0]["rule"] == rule


def test_another_users_source_logs_prints_and_training_are_refused(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    alice, bob = token_client(make_user, "alice"), token_client(make_user, "bob")
    sid = uploaded(alice, committed, starter_source)
    match_id = committed(
        lambda: post_json(alice, "/api/training", {"submission": sid, "opponent": "house:lowest"})
    ).json()["match"]
    assert bob.get(f"/api/submissions/{sid}").status_code == 403
    assert bob.get(f"/api/matches/{match_id}").status_code == 403
    assert bob.get(f"/api/matches/{match_id}/log").status_code == 403
    refused = post_json(bob, "/api/training", {"submission": sid, "opponent": "house:lowest"})
    assert refused.status_code == 403 and "your own" in refused.json()["error"]
    assert bob.post(f"/api/submissions/{sid}/activate").status_code == 403


def test_ranked_logs_are_public_but_prints_and_errors_only_for_the_owner(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    from arena.submissions.models import Submission
    from arena.submissions.services import house_submission_ensure
    from arena.workflows.dispatch import match_schedule
    from arena.workflows.matches import match_run

    alice, bob = token_client(make_user, "alice"), token_client(make_user, "bob")
    sid = uploaded(alice, committed, BAD_AGENT_SOURCE)
    Submission.objects.filter(pk=sid).update(status="accepted")
    house = house_submission_ensure(game="simple-card", bot="random")
    match = match_schedule(kind="ranked", submissions=[Submission.objects.get(pk=sid), house])
    match_run(match_id=match.pk)
    own = [json.loads(x) for x in alice.get(f"/api/matches/{match.pk}/log").content.splitlines()]
    other = [json.loads(x) for x in bob.get(f"/api/matches/{match.pk}/log").content.splitlines()]
    assert any(e.get("illegal") and "my bug on purpose" in e["illegal"] for e in own)
    assert not any(e.get("illegal") or e.get("error") for e in other if e["seat"] == 0)
    assert not any(e.get("stdout") for e in own)  # ranked matches keep no prints at all


def test_refusals_are_json(make_user: Any) -> None:
    api = token_client(make_user)
    assert api.get("/api/leaderboard/no-such-game").status_code == 404
    assert "error" in post_json(api, "/api/training", {}).json()
    assert api.get("/api/openapi.json").json()["openapi"].startswith("3.")
    unknown = Client().get("/api/no-such-endpoint")
    assert unknown.status_code == 404 and "/api/openapi.json" in unknown.json()["error"]
    wrong_method = api.get("/api/training")
    assert wrong_method.status_code == 405 and wrong_method["Allow"] == "POST"
    assert wrong_method.json()["error"].startswith("GET is not allowed on /api/training")


def test_the_apis_root_says_where_its_endpoints_are_and_how_to_sign_in() -> None:
    root = Client().get("/api/")
    assert root.status_code == 200
    body = root.json()
    assert body["openapi"].endswith("/api/openapi.json") and "Token" in body["auth"]
    assert Client().get(body["openapi"]).json()["openapi"].startswith("3.")


def test_others_see_a_seats_state_in_the_games_public_view_during_and_after(
    make_user: Any,
) -> None:
    bob = token_client(make_user, "bob")
    match = house_match("simple-card", "random", "lowest")
    state = {"phase": "play", "round": 1, "hand": [1, 2], "your_score": 0}
    stored_call(
        match,
        0,
        "on_turn",
        payload=state,
        reply={"type": "play_card", "card": 2},
        action={"type": "play_card", "card": 2},
    )
    live = [json.loads(x) for x in bob.get(f"/api/matches/{match.pk}/log").content.splitlines()]
    assert live[0]["payload"] == {**state, "hand": None}
    assert live[0]["action"] is None and live[0]["reply"] is None  # sealed until the round ends
    stored_call(match, 1, "on_round_end", payload={"round": 1, "your_card": 2, "opponent_card": 5})
    match.status = "finished"
    match.save()
    done = [json.loads(x) for x in bob.get(f"/api/matches/{match.pk}/log").content.splitlines()]
    assert done[0]["payload"]["hand"] is None  # the hand is never shown, even after the end
    assert done[0]["action"] == {"type": "play_card", "card": 2}  # the played card, once revealed
