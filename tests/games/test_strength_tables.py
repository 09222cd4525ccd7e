"""Every game's page shows a strength table made by ``arena strength`` for its current version."""

from __future__ import annotations

import pytest

from arena_cli.strength_cmd import render_text
from games.core import available_game_ids, get_game_spec


@pytest.mark.parametrize("game", available_game_ids())
def test_the_stored_strength_table_matches_the_game_as_it_is(game: str) -> None:
    spec = get_game_spec(game)
    table = spec.strength_table()
    regenerate = f"run `arena strength --game {game} --write`"
    assert table is not None, f"{game} has no strength table: {regenerate}"
    assert table["version"] == spec.version, f"{game}'s table is for another version: {regenerate}"
    assert table["ranking"] == spec.ranking
    assert sorted(row["bot"] for row in table["standings"]) == sorted(spec.bots), regenerate
    bots = sorted(spec.bots)
    assert len(table["pairs"]) == len(bots) * (len(bots) - 1) // 2
    for pair in table["pairs"]:
        assert pair["a_wins"] + pair["b_wins"] + pair["draws"] == table["matches_per_pair"]
    assert render_text(table).startswith(f"{game} v{spec.version}")
