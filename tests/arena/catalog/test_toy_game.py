"""A game is one folder: a toy game in a temporary folder appears on the site, in the API, the
command line and the ladder with no line changed anywhere else (docs/games.md, "Adding a game")."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from arena.catalog.services import demo_data_load
from arena.matches.models import Match
from arena.ratings.selectors import leaderboard_page
from arena.workflows.ladder import matchmaking_run
from arena.workflows.matches import match_run

from games.core import available_game_ids, forget_games, get_game_spec

pytestmark = pytest.mark.django_db

TOY_FILES = {
    "__init__.py": '''
        """Toy cards: simple-card's rules under another name, kept outside the games/ tree."""
    ''',
    "state_adapter.py": """
        from games.simple_card.state_adapter import SimpleCardStateAdapter


        class ToyCardsStateAdapter(SimpleCardStateAdapter):
            pass
    """,
    "action_parser.py": """
        from games.simple_card.action_parser import SimpleCardActionParser


        class ToyCardsActionParser(SimpleCardActionParser):
            pass
    """,
    "game.py": """
        from games.core import LadderFigure
        from games.simple_card.game import SimpleCardGame


        class ToyCardsGame(SimpleCardGame):
            game_type = "toy-cards"
            title = "Toy Cards"
            ladder_figures = (LadderFigure("cards_played", "Cards", "cards played a match"),)

            def get_match_stats(self):
                return {"cards_played": [3.0, 3.0]}
    """,
    "bots.py": """
        class First:
            GAME = "toy-cards"

            def on_turn(self, state):
                return {"type": "play_card", "card": state["hand"][0]}


        class Last:
            GAME = "toy-cards"

            def on_turn(self, state):
                return {"type": "play_card", "card": state["hand"][-1]}


        BOTS = {"first": First, "last": Last}
    """,
    "rules.md": """
        # Toy Cards

        A toy game that lives in its own folder, to show that adding a game touches nothing else.
    """,
    "starter_agent.py": """
        class Agent:
            GAME = "toy-cards"

            def on_turn(self, round_state):
                return {"type": "play_card", "card": round_state["hand"][0]}
    """,
}


@pytest.fixture
def toy_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    package = tmp_path / "toy_cards"
    package.mkdir()
    for name, text in TOY_FILES.items():
        (package / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("ARENA_GAME_PACKAGES", "toy_cards")
    forget_games()
    yield "toy-cards"
    monkeypatch.delenv("ARENA_GAME_PACKAGES")
    forget_games()
    for module in [m for m in sys.modules if m == "toy_cards" or m.startswith("toy_cards.")]:
        del sys.modules[module]


def test_a_game_in_its_own_folder_is_everywhere(
    toy_game: str, client: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena_cli.main import main

    assert toy_game in available_game_ids()
    assert get_game_spec(toy_game).title == "Toy Cards"

    # The site: the home page lists it, its page shows its rules and its starter agent.
    assert "Toy Cards" in client.get("/").content.decode()
    page = client.get(f"/games/{toy_game}/")
    assert page.status_code == 200 and "touches nothing else" in page.content.decode()
    assert client.get(f"/games/{toy_game}/starter.py").status_code == 200

    # The API.
    games = client.get("/api/games").json()
    listed = games if isinstance(games, list) else games.get("games", [])
    assert toy_game in {g["id"] for g in listed}

    # The command line.
    assert main(["games"]) == 0
    assert toy_game in capsys.readouterr().out

    # The ladder: its house bots are paired, play, and are rated, with the game's own figure.
    demo_data_load()
    paired = [m for m in matchmaking_run() if m.game == toy_game]
    assert paired, "matchmaking paired the toy game's house bots"
    for match in paired:
        assert match_run(match_id=match.pk) == "done"
    assert Match.objects.filter(game=toy_game, status="finished").exists()
    board = leaderboard_page(game=toy_game)
    assert [f.label for f in board.figures] == ["Cards"]
    assert any(row["games"] >= 1 and row["figures"] == {"cards_played": 3.0} for row in board.rows)
    api_board = client.get(f"/api/leaderboard/{toy_game}").json()
    assert api_board["figures"][0]["key"] == "cards_played"
    assert "Cards" in client.get(f"/games/{toy_game}/").content.decode()
