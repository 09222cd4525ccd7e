"""Paths that stay fast at scale by construction: leaderboard rows formatted once (the presenter),
the agent page's history read through indexes, a bounded matchmaking pass that reads only the
entries it may serve (bench/scale.py measures them on a large ladder)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from arena.matches.selectors import latest_ranked_match_ids, latest_ranked_seats
from arena.ratings.models import Rating
from arena.ratings.presenter import agent_ranked_cells, fixed, leaderboard_cells
from arena.ratings.selectors import agent_ranked_rows, leaderboard_page, rating_history
from arena.ratings.services import MATCHMAKING_CANDIDATES_PER_SEAT, ladder_pair
from arena.submissions.models import Submission
from django.db import connection
from django.template.defaultfilters import floatformat
from django.test import Client
from django.test.utils import CaptureQueriesContext
from hypothesis import given
from hypothesis import strategies as st

from tests.arena.ratings.test_ladder import make_entries, play
from tests.conftest import rerun_on_postgres

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[3] / "templates" / "catalog"


#: What the presenter formats: ratings rounded to 0.1, payoffs and intervals to 0.01.
SHOWN = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).map(lambda v: round(v, 2))


@given(SHOWN, st.integers(0, 2))
def test_fixed_formats_as_the_floatformat_filter_does(value: float, places: int) -> None:
    assert fixed(value, places) == floatformat(value, places)


def test_the_leaderboard_rows_place_preformatted_strings_only() -> None:
    text = (TEMPLATES / "home.html").read_text()
    loop = re.search(r"{% for r in row\.top %}(.*?){% (empty|endfor)", text, re.S)
    assert loop
    assert "floatformat" not in loop.group(1) and "{% url" not in loop.group(1)
    # The game page's table rows are written by the presenter, not looped in the template.
    board = (TEMPLATES / "_leaderboard.html").read_text()
    assert "{{ rows_html }}" in board and "{% for row in cells %}" not in board


def test_the_game_pages_rows_escape_what_users_named_and_mark_the_visitors_own() -> None:
    subs = make_entries("chess", 3)
    play(subs[0], subs[1], "win")
    hostile = subs[0].agent
    hostile.name = '<script>alert("x")</script>&'
    hostile.save(update_fields=["name"])
    owner = hostile.owner
    anonymous = Client().get("/games/chess/").content.decode()
    assert "<script>alert" not in anonymous
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp; v1" in anonymous
    assert 'class="you"' not in anonymous and " mine" not in anonymous
    client = Client()
    client.force_login(owner)
    signed_in = client.get("/games/chess/").content.decode()
    assert signed_in.count('<span class="you">yours</span>') == 1
    assert signed_in.count('<tr class=" mine">') == 1


def test_the_game_page_shows_the_presenters_cells() -> None:
    subs = make_entries("chess", 3)
    play(subs[0], subs[1], "win")
    cells = leaderboard_cells(leaderboard_page(game="chess").rows)
    assert len(cells) == 3
    page = Client().get("/games/chess/").content.decode()
    for cell in cells:
        assert f'<a href="/submissions/agents/{cell["agent_id"]}/">{cell["agent"]}</a>' in page
        assert f"<td>{cell['rating_text']} <span" in page
        assert cell["rating_text"] == floatformat(cell["rating"], 0)


def _new_version(submission: Submission) -> Submission:
    newer = Submission.objects.create(
        agent=submission.agent,
        version=submission.version + 1,
        source="",
        sha256="1" * 64,
        game_version=submission.game_version,
        status=Submission.Status.ACCEPTED,
        active=True,
    )
    Rating.objects.create(
        submission=newer, game=submission.agent.game, game_version=newer.game_version
    )
    return newer


def test_the_agent_history_merges_its_versions_newest_first() -> None:
    a, b = make_entries("chess", 2)
    a2 = _new_version(a)
    played = [play(x, b, "win").pk for x in (a, a2, a, a2, a)]
    assert latest_ranked_match_ids(agent_id=a.agent_id, limit=3) == sorted(played, reverse=True)[:3]
    history = rating_history(agent=a.agent, limit=4)
    assert [h["match"] for h in history] == sorted(played)[-4:]  # oldest first
    assert [h["version"] for h in history] == [2, 1, 2, 1]


def test_the_agent_page_reads_every_version_and_formats_its_rows() -> None:
    """The agent page's rows and chart across versions, as one query each where the database
    combines limited reads (PostgreSQL, ``test_version_merges_on_postgres``)."""
    a, b = make_entries("chess", 2)
    a2 = _new_version(a)
    played = [play(x, b, "win").pk for x in (a, a2, a)]
    versions = list(Submission.objects.filter(agent=a.agent).select_related("rating"))
    with CaptureQueriesContext(connection) as ctx:
        history = rating_history(agent=a.agent, versions=versions)
        found = agent_ranked_rows(agent_id=a.agent_id, versions=[s.pk for s in versions])
    rows = agent_ranked_cells(found)
    assert [h["match"] for h in history] == played
    assert [h["version"] for h in history] == [1, 2, 1]
    assert [r["match_id"] for r in rows] == [str(m) for m in sorted(played, reverse=True)]
    assert [r["version"] for r in rows] == ["1", "2", "1"]
    assert all(r["outcome"] == "win" and r["url"] == f"/matches/{r['match_id']}/" for r in rows)
    assert rows[0]["opponents"] == [
        {
            "url": f"/submissions/agents/{b.agent_id}/",
            "label": b.label,
            "owner": b.agent.owner.username,
        }
    ]
    # Where parts combine: one query for the changes and one for the rows (the ids a subquery
    # of the seats' read). Elsewhere one a version for each, and the seats' read.
    combined = connection.features.supports_slicing_ordering_in_compound
    assert len(ctx.captured_queries) == (2 if combined else 5)


def test_the_agent_page_reads_as_many_queries_whatever_its_matches(settings: Any) -> None:
    """The page of an agent with one version: the agent (with its challenge settings), its
    versions (with their ratings, match in flight and pauses), the rating history, the ladder
    wait's candidates, the ranked rows and the head-to-head summary; no more as it plays.
    (Without the rematch cool-down, which asks once more whether the others are busy.)"""
    settings.ARENA_REMATCH_COOLDOWN_S = 0.0
    a, b, c = make_entries("chess", 3)
    play(a, b, "win")

    def queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            page = Client().get(f"/submissions/agents/{a.agent_id}/")
        assert page.status_code == 200
        return len(ctx.captured_queries)

    few = queries()
    for i in range(12):
        play(a, (b, c)[i % 2], ("win", "loss", "draw")[i % 3])
    assert queries() == few == 6


@pytest.mark.postgres
def test_version_merges_on_postgres(tmp_path: Path) -> None:
    if os.environ.get("ARENA_TEST_DB_VENDOR"):
        pytest.skip("already the PostgreSQL run")
    rerun_on_postgres(
        tmp_path,
        __file__,
        "-k",
        "merges_its_versions or reads_every_version or as_many_queries",
        timeout_s=300,
    )


def test_the_agent_history_query_is_served_by_the_seat_index() -> None:
    a, _ = make_entries("chess", 2)
    plan = latest_ranked_seats(submission_id=a.pk, limit=30).explain()
    assert "participant_latest" in plan, plan


def test_a_bounded_pass_reads_only_the_entries_it_may_serve(settings: Any) -> None:
    settings.ARENA_MATCHMAKING_QUEUE_MAX = 1
    make_entries("chess", 40)
    with CaptureQueriesContext(connection) as ctx:
        pairs = ladder_pair(game="chess")
    assert len(pairs) == 1
    candidates = MATCHMAKING_CANDIDATES_PER_SEAT * 2
    limited = [q["sql"] for q in ctx.captured_queries if f"LIMIT {candidates}" in q["sql"]]
    assert limited, "the ladder was read whole"


def test_a_full_queue_reads_no_entries(settings: Any) -> None:
    settings.ARENA_MATCHMAKING_QUEUE_MAX = 1
    make_entries("chess", 6)
    assert len(ladder_pair(game="chess")) == 1
    with CaptureQueriesContext(connection) as ctx:
        assert ladder_pair(game="chess") == []
    assert not any("ratings_rating" in q["sql"] for q in ctx.captured_queries)
