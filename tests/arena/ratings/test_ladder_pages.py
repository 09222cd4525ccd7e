"""What a person reads of the ladder on the pages: one W/L/D order, no interval before it means
something, one's own row marked, the rules linked near the top, a rating chart with axes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

pytestmark = pytest.mark.django_db


def signed_in(make_user: Any, name: str) -> tuple[Any, Client]:
    user = make_user(name)
    client = Client()
    client.force_login(user)
    return user, client


def test_wins_losses_draws_in_one_order_everywhere() -> None:
    from arena.catalog.services import demo_data_load

    demo_data_load()
    for game in ("chess", "split-or-steal"):
        page = Client().get(f"/games/{game}/").content.decode()
        assert "W/D/L" not in page
        assert page.count(">W/L/D<") >= 2, game  # the ladder and the house bots' table
    # The strength table's numbers follow the header: wins/losses/draws.
    from games.core import get_game_spec

    table = get_game_spec("chess").strength_table()
    assert table is not None
    row = table["standings"][0]
    page = Client().get("/games/chess/").content.decode()
    assert f"<td>{row['wins']}/{row['losses']}/{row['draws']}</td>" in page


def test_no_interval_before_an_entry_is_ranked(make_user: Any) -> None:
    from arena.ratings.models import Rating
    from arena.submissions.services import house_submission_ensure

    submission = house_submission_ensure(game="split-or-steal", bot="always-split", active=True)
    from arena.ratings.services import rating_ensure

    rating = rating_ensure(submission=submission)
    Rating.objects.filter(pk=rating.pk).update(
        games=2, payoff_sum=6.0, payoff_squares=18.0, mean_payoff=3.0
    )
    page = Client().get("/games/split-or-steal/").content.decode()
    body = page.split('id="leaderboard"')[1].split("<tbody>")[1].split("</tbody>")[0]
    cells = [cell.split("</td>")[0] for cell in body.split("<td>")[1:]]
    # The mean payoff shows no interval until the entry is ranked; its Elo always carries one.
    assert cells[3] == "3.00", cells
    assert "±" in cells[4], cells


def test_ones_own_row_is_marked_on_the_ladder(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    from arena.catalog.services import demo_data_load
    from arena.submissions.models import Submission

    demo_data_load()
    _, client = signed_in(make_user, "mia")
    upload = SimpleUploadedFile("mine.py", starter_source.encode())
    committed(lambda: client.post("/submissions/upload/", {"file": upload}))
    submission = Submission.objects.get(agent__owner__username="mia")
    client.post(f"/submissions/{submission.pk}/ladder/", {"action": "activate"})
    page = client.get("/games/simple-card/").content.decode()
    rows = re.findall(r'<tr class="([^"]*)">(.*?)</tr>', page, re.DOTALL)
    marked = [body for cls, body in rows if "mine" in cls.split()]
    assert len(marked) == 1 and "mine v1" in marked[0] and ">yours<" in marked[0]
    assert "mine" not in " ".join(
        cls
        for cls, _ in re.findall(
            r'<tr class="([^"]*)">(.*?)</tr>',
            Client().get("/games/simple-card/").content.decode(),
            re.DOTALL,
        )
    )


def test_the_rules_are_linked_near_the_top() -> None:
    page = Client().get("/games/chess/").content.decode()
    link = page.index('href="#rules"')
    assert link < page.index('id="leaderboard"') and 'id="rules"' in page


def test_the_rating_chart_has_labelled_axes() -> None:
    from arena.ratings.charts import rating_chart_svg

    svg = str(rating_chart_svg([1200.0, 1216.0, 1203.0, 1240.0, 1251.0]))
    assert 'data-axis="x"' in svg and 'data-axis="y"' in svg
    assert ">Elo<" in svg and ">rated games<" in svg
    assert ">1200<" in svg and ">1251<" in svg  # the Elo scale's ends
    assert ">0<" in svg and ">4<" in svg  # the games scale's ends
    assert str(rating_chart_svg([1200.0])) == ""


def test_the_games_axis_labels_every_step_and_skips_none() -> None:
    from arena.ratings.charts import MAX_GAME_STEPS, game_axis_ticks, rating_chart_svg

    for games in range(1, 2001):
        ticks = game_axis_ticks(games)
        step = ticks[1] - ticks[0]
        assert ticks[0] == 0 and ticks[-1] <= games, (games, ticks)
        evenly = [t for t in ticks if t % step == 0]
        # Every multiple of the step up to the end is labelled, then perhaps the last game.
        assert evenly == list(range(0, games + 1, step)), (games, ticks)
        assert ticks[len(evenly) :] in ([], [games]), (games, ticks)
        assert len(evenly) - 1 <= MAX_GAME_STEPS, (games, ticks)
    # Five games: 0 1 2 3 4 5 (rounding fractions of the axis once gave 0 1 2 4 5).
    svg = str(rating_chart_svg([1200.0, 1210.0, 1190.0, 1220.0, 1230.0, 1205.0]))
    labels = [int(x) for x in re.findall(r'text-anchor="middle">(\d+)<', svg)]
    assert labels == [0, 1, 2, 3, 4, 5]
