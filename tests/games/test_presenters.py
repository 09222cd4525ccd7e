"""Each game's presenter turns a log into frames for the shared player: from the full log, from
the log a spectator gets while the match runs (states hidden), and never showing a sealed choice
before the rules reveal it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.core import InProcessAgentHandle, available_game_ids, get_game_spec, play_match
from games.core.presenter import ReplayInput, generic_present
from games.core.registry import offline_judge

#: Short configs keep the matches quick.
CONFIGS: dict[str, dict[str, Any]] = {"poker": {"hands": 6}}


def record_of(game: str, bots: list[str] | None = None, seed: int = 3) -> dict[str, Any]:
    spec = get_game_spec(game)
    names = bots or sorted(spec.bots)[:2]
    handles = [InProcessAgentHandle(spec.bots[b], b) for b in names]
    return play_match(
        game, handles, seed=seed, config=CONFIGS.get(game), judge=offline_judge(game)
    ).to_dict()


def present(game: str, record: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    spec = get_game_spec(game)
    replay = spec.presenter(
        ReplayInput(
            entries=record["log"],
            names=[s["name"] for s in record["seats"]],
            config=record["config"],
            **kwargs,
        )
    )
    return replay.to_dict()


@pytest.mark.parametrize("game", available_game_ids())
def test_every_game_presents_its_whole_match(game: str) -> None:
    assert get_game_spec(game).presenter is not generic_present
    record = record_of(game)
    replay = present(game, record)
    assert replay["frames"], "a finished match has frames"
    json.dumps(replay)  # plain JSON
    rounds = {f["round"] for f in replay["frames"]}
    assert rounds == {r["round"] for r in record["rounds"]}, "every round is shown"


@pytest.mark.parametrize("game", available_game_ids())
def test_a_spectators_live_log_still_presents(game: str) -> None:
    record = record_of(game)
    hidden = [{**e, "payload": None, "reply": None} for e in record["log"]]
    hidden = [e for e in hidden if e.get("method") != "on_match_end"]
    replay = present(game, {**record, "log": hidden}, finished=False)
    assert replay["frames"]


@pytest.mark.parametrize("game", ["split-or-steal", "brinkmanship", "sealed-bid-recruitment"])
def test_a_sealed_choice_is_shown_only_once_revealed(game: str) -> None:
    if game not in available_game_ids():
        pytest.skip(f"{game} is not in this tree")
    record = record_of(game)
    replay = present(game, record)
    sealed = ("says", "pitches", "chooses", "offers")
    for frame in replay["frames"]:
        if not frame["label"].endswith(sealed):
            continue
        shown = [w for w in frame["widgets"] if w["kind"] != "chat"]
        assert not [w for w in shown if w["kind"] == "table"], frame["label"]
        text = json.dumps(shown)
        for secret in ('"split"', '"steal"', '"stand"', '"yield"'):
            assert secret not in text, (frame["label"], text)


@pytest.mark.skipif("chess" not in available_game_ids(), reason="chess is not in this tree")
def test_the_chess_board_is_flipped_for_the_player_of_black() -> None:
    record = record_of("chess")
    first_game = present("chess", record, viewer_seats=frozenset({1}))["frames"][0]
    board = next(w for w in first_game["widgets"] if w["kind"] == "board")
    assert board["flip"] is True  # seat 1 has black in game 1
    second = [
        f
        for f in present("chess", record, viewer_seats=frozenset({1}))["frames"]
        if f["round"] == 2
    ]
    if second:
        assert next(w for w in second[0]["widgets"] if w["kind"] == "board")["flip"] is False
    spectator = present("chess", record)["frames"][0]
    assert next(w for w in spectator["widgets"] if w["kind"] == "board")["flip"] is False


@pytest.mark.skipif("poker" not in available_game_ids(), reason="poker is not in this tree")
def test_poker_bb_per_100_matches_the_games_own_figure() -> None:
    record = record_of("poker")
    summary = dict(present("poker", record)["summary"])
    mine = next(v for k, v in summary.items() if k.startswith(record["seats"][0]["name"]))
    expected = record["stats"]["bb_per_100"][0]
    assert float(mine.replace(",", "")) == pytest.approx(expected, abs=0.01)
