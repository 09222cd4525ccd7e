"""Golden playthroughs: every recorded house-bot match replays exactly, or the version was bumped.

A difference means the rules (or what agents are sent) changed. If that was on purpose, bump the
game's ``version`` (a new ladder) and record again with ``arena playthroughs --write``.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.core import Playthrough, available_game_ids, get_game_spec
from games.core.playthrough import playthrough_dir, replay
from games.simple_card.game import SimpleCardGame

CASES = [
    pytest.param(game, p, id=f"{game}:{p.filename}")
    for game in available_game_ids()
    for p in get_game_spec(game).playthroughs
]


def test_every_game_has_recorded_playthroughs() -> None:
    for game in available_game_ids():
        playthroughs = get_game_spec(game).playthroughs
        assert playthroughs, f"list {game}'s playthroughs in ARENA_GAME (its __init__.py)"
        for playthrough in playthroughs:
            path = playthrough_dir(game) / playthrough.filename
            assert path.is_file(), f"{path} is missing: run `arena playthroughs --write`"


@pytest.mark.parametrize(("game", "playthrough"), CASES)
def test_playthrough_replays_identically(game: str, playthrough: Playthrough) -> None:
    result = replay(game, playthrough)
    if not result.diff:
        return
    if result.stale:
        pytest.skip(
            f"{game} went from version {result.recorded_version} to {result.version}: record "
            "its playthroughs again with `arena playthroughs --write`"
        )
    pytest.fail(
        f"{game} plays differently from {result.path} while its version is still "
        f"{result.version}. A rule change must bump the game's version (a new ladder); then "
        f"record again with `arena playthroughs --write`. First differences:\n{result.diff}",
        pytrace=False,
    )


def _double_points(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule change: the higher card now scores 2."""
    original = SimpleCardGame._score_round

    def doubled(self: SimpleCardGame) -> dict[str, dict[str, Any]]:
        before = dict(self.scores)
        result = original(self)
        for player in self.players:
            self.scores[player] += self.scores[player] - before[player]
        return result

    monkeypatch.setattr(SimpleCardGame, "_score_round", doubled)


def test_a_rule_change_without_a_version_bump_is_a_difference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _double_points(monkeypatch)
    results = [replay("simple-card", p) for p in get_game_spec("simple-card").playthroughs]
    assert all(r.diff for r in results)
    assert not any(r.stale for r in results)
    assert any('"your_score":2' in r.diff or '"opponent_score":2' in r.diff for r in results)


def test_the_same_change_with_a_version_bump_is_stale_not_wrong(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _double_points(monkeypatch)
    monkeypatch.setattr(SimpleCardGame, "version", SimpleCardGame.version + 1)
    results = [replay("simple-card", p) for p in get_game_spec("simple-card").playthroughs]
    assert all(r.diff and r.stale for r in results)
