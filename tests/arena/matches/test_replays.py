"""Every game's match page carries a replay built by the game's own presenter, for one shared
player; long matches stay light; the turn log is paginated, with a "my seat only" filter."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from arena.submissions.services import house_submission_ensure
from arena.workflows.dispatch import match_schedule
from arena.workflows.matches import match_run
from django.db import transaction
from django.test import Client

from games.core import available_game_ids, get_game_spec
from games.core.presenter import generic_present

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("scripted_judges")]


def play(
    game: str,
    bots: list[str] | None = None,
    config: dict[str, Any] | None = None,
    kind: str = "ranked",
    seed: int | None = None,
) -> int:
    names = bots or sorted(get_game_spec(game).bots)[:2]
    with transaction.atomic():  # the config is set before the match is enqueued on commit
        match = match_schedule(
            kind=kind,
            submissions=[house_submission_ensure(game=game, bot=b) for b in names],
            seed=seed,
        )
        match.config = config or {}
        match.save(update_fields=["config"])
    match_run(match_id=match.pk)
    return int(match.pk)


def replay_of(page: str) -> dict[str, Any]:
    found = re.search(
        r'<script id="replay-data" type="application/json">(.*?)</script>', page, re.S
    )
    assert found, "the page carries the replay's frames"
    return dict(json.loads(found.group(1)))


@pytest.mark.parametrize("game", available_game_ids())
def test_every_game_has_its_own_presenter_and_frames(game: str) -> None:
    assert get_game_spec(game).presenter is not generic_present
    match_id = play(game, config={"hands": 10} if game == "poker" else None)
    page = Client().get(f"/matches/{match_id}/").content.decode()
    replay = replay_of(page)
    assert replay["total"] == len(replay["frames"]) > 0
    kinds = {replay["widgets"][i]["kind"] for f in replay["frames"] for i in f[3]}
    assert kinds, "every frame has something to draw"
    assert "data-player" in page and "player.js" in page


def test_chess_frames_are_boards_with_the_last_move_and_a_pgn() -> None:
    match_id = play("chess")
    replay = replay_of(Client().get(f"/matches/{match_id}/").content.decode())
    boards = [w for w in replay["widgets"] if w["kind"] == "board"]
    assert boards[0]["fen"] == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    assert any(w["lastmove"] for w in boards)
    (pgn,) = replay["downloads"]
    assert pgn["filename"].endswith(".pgn") and "[White " in pgn["text"] and "1." in pgn["text"]
    labels = [f[1] for f in replay["frames"]]
    assert labels[1].startswith("1. ") and labels[2].startswith("1... ")  # moves in SAN


def test_poker_frames_show_cards_streets_and_bb_per_100() -> None:
    match_id = play("poker", config={"hands": 6})
    replay = replay_of(Client().get(f"/matches/{match_id}/").content.decode())
    labels = [f[1] for f in replay["frames"]]
    assert "hand 1 · preflop" in labels
    assert any("BB/100" in label for label, _ in replay["summary"])
    seats = [w for w in replay["widgets"] if w["kind"] == "seats"]
    assert all(len(s["seats"]) == 2 for s in seats)


def weight(client: Client, match_id: int) -> int:
    """Bytes of the page, its first page of the turn log, and the local assets it loads."""
    from django.contrib.staticfiles import finders

    page = client.get(f"/matches/{match_id}/")
    assert page.status_code == 200
    calls = client.get(f"/matches/{match_id}/calls/")
    print(f"page {len(page.content)} bytes, first page of calls {len(calls.content)} bytes")
    total = len(page.content) + len(calls.content)
    assets = re.findall(r'(?:src|href)="/static/([^"]+)"', page.content.decode())
    assert any(a.endswith("player.js") for a in assets)
    for asset in assets:
        found = finders.find(asset)
        assert found, f"{asset} is served locally"
        total += Path(found).stat().st_size
    return total


@pytest.mark.slow
def test_a_100_hand_poker_match_page_weighs_under_300_kb() -> None:
    match_id = play("poker", ["always-call", "hand-strength"], seed=1)
    bytes_ = weight(Client(), match_id)
    print(f"100-hand poker match page: {bytes_} bytes")
    assert bytes_ < 300 * 1024


@pytest.mark.slow
def test_a_300_ply_chess_match_page_weighs_under_300_kb(make_user: Any) -> None:
    # Two games between random movers run long (a 1000-ply cap each); check the plies played.
    match_id = play("chess", ["random", "random"], kind="training", seed=1)
    staff = make_user("staff")  # a training match (random against itself): staff may watch it
    staff.is_staff = True
    staff.save()
    client = Client()
    client.force_login(staff)
    replay = replay_of(client.get(f"/matches/{match_id}/").content.decode())
    plies = sum(1 for f in replay["frames"] if not f[1].endswith("start"))
    assert plies >= 300, f"the match had {plies} plies; pick a longer seed"
    bytes_ = weight(client, match_id)
    print(f"{plies}-ply chess match page: {bytes_} bytes")
    assert bytes_ < 300 * 1024


@pytest.fixture
def ann_training(make_user: Any, committed: Any, starter_source: str) -> tuple[Client, int]:
    """Ann, signed in through the pages, uploads the starter and trains it against a house bot:
    her client and the training match's id."""
    from arena.matches.models import Match
    from arena.submissions.models import Submission
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = Client()
    client.force_login(make_user("ann"))
    upload = SimpleUploadedFile("a.py", starter_source.encode())
    committed(lambda: client.post("/submissions/upload/", {"file": upload}))
    submission = Submission.objects.get(agent__owner__username="ann")
    committed(
        lambda: client.post(f"/submissions/{submission.pk}/train/", {"opponent": "house:random"})
    )
    return client, Match.objects.filter(kind="training").get().pk


def test_the_turn_log_is_paginated_and_filters_my_seat(ann_training: tuple[Client, int]) -> None:
    client, match_id = ann_training
    page = client.get(f"/matches/{match_id}/calls/").content.decode()
    assert "my seat only" in page and 'pre class="stdout"' in page
    mine = client.get(f"/matches/{match_id}/calls/?mine=1").content.decode()
    assert mine.count("<tr class") < page.count("<tr class")
    who = '<td class="log-who">random v1</td>'
    assert who in page and who not in mine


def test_the_owner_follows_their_own_agent_in_the_player(ann_training: tuple[Client, int]) -> None:
    client, match_id = ann_training
    replay = replay_of(client.get(f"/matches/{match_id}/").content.decode())
    own = [w for w in replay["widgets"] if w.get("title") == "your agent"]
    assert own, "the owner's frames carry their agent's calls"
    lines = [line for w in own for line in w["lines"]]
    assert any(line.startswith("| ") for line in lines)  # the starter prints every turn
    assert all(line.startswith(("seat 0 ", "| ", "! ")) for line in lines)  # never seat 1


def test_a_presenter_that_fails_leaves_the_page_up_with_a_transcript(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import dataclasses

    import arena.matches.replays as replays

    match_id = play("simple-card")
    spec = get_game_spec("simple-card")

    def broken(match: Any) -> Any:
        raise KeyError("a log the presenter did not expect")

    failing = dataclasses.replace(spec, presenter=broken)
    monkeypatch.setattr(replays, "get_game_spec", lambda game: failing)
    response = Client().get(f"/matches/{match_id}/")
    assert response.status_code == 200
    assert replay_of(response.content.decode())["frames"]  # the generic transcript
