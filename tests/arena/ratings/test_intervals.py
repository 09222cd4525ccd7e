"""Intervals on every board: the rating's deviation kept by ``rating_apply``, rank ranges read
from stored bounds, the boards across games, a model's card, and the downloads."""

from __future__ import annotations

import csv
import io
import itertools
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from arena.llm.models import LanguageModel, ModelCall, ModelEntrantConfig
from arena.ratings.models import Rating, UnifiedFit, UnifiedStanding
from arena.ratings.selectors import leaderboard_page
from arena.ratings.services import ratings_recompute, unified_refit
from arena.ratings.unified import unified_board
from django.test import Client

from devtools.queries import run_recording_queries
from games.core.ranking import (
    ELO_START_DEVIATION,
    EloSide,
    RankRange,
    elo_deviation_update,
    elo_interval,
    elo_ratings_with_deviations,
    rank_ranges,
)
from tests.arena.ratings.test_ladder import make_entries, play, row_of
from tests.conftest import rerun_on_postgres

_names = itertools.count()


# --- The interval math (pure) ------------------------------------------------------------------


def test_a_deviation_shrinks_with_games_to_the_floor_of_elo_noise() -> None:
    deviation = ELO_START_DEVIATION
    seen = [deviation]
    for games in range(200):
        deviation, _ = elo_deviation_update(
            EloSide(1200, games), EloSide(1200, games), deviation, deviation
        )
        seen.append(deviation)
    assert all(b < a for a, b in itertools.pairwise(seen[:40]))
    # With K at its floor (16) the rating keeps a noise of about sqrt(K / (2 c)) = 37 points.
    assert 30 < seen[-1] < 45


def test_an_uncertain_opponent_teaches_less_than_a_known_one() -> None:
    me = EloSide(1200, 5)
    after_known, _ = elo_deviation_update(me, EloSide(1200, 100), 150.0, 40.0)
    after_unknown, _ = elo_deviation_update(me, EloSide(1200, 0), 150.0, 350.0)
    assert after_known < after_unknown


def test_rank_ranges_match_counting_every_pair() -> None:
    rng = random.Random(3)
    for _ in range(50):
        intervals = []
        for _ in range(rng.randint(1, 30)):
            centre, half = rng.uniform(0, 100), rng.uniform(0, 20)
            intervals.append((centre - half, centre + half))
        ranges = rank_ranges(intervals)
        for (low, high), found in zip(intervals, ranges, strict=True):
            above = sum(1 for other_low, _ in intervals if other_low > high)
            below = sum(1 for _, other_high in intervals if other_high < low)
            assert found == RankRange(1 + above, len(intervals) - below)
    assert str(RankRange(3, 5)) == "3–5" and str(RankRange(2, 2)) == "2"


# --- Stored on the ladder ---------------------------------------------------------------------


pytestmark = pytest.mark.django_db


def test_rating_apply_keeps_the_deviation_and_bounds_that_a_replay_gives() -> None:
    a, b, c = make_entries("split-or-steal", 3)
    results = [(a, b, "win", (10, 0)), (b, c, "draw", (5, 5)), (c, a, "loss", (0, 20))]
    for x, y, outcome, scores in results:
        play(x, y, outcome, scores=scores)
    score = {"win": 1.0, "draw": 0.5, "loss": 0.0}
    expected = elo_ratings_with_deviations((x.pk, y.pk, score[o]) for x, y, o, _ in results)
    for sub in (a, b, c):
        row = row_of(sub)
        rating, deviation = expected[sub.pk]
        assert row.rating == pytest.approx(rating)
        assert row.deviation == pytest.approx(deviation)
        interval = elo_interval(rating, deviation)
        assert (row.rating_low, row.rating_high) == (
            pytest.approx(interval.low),
            pytest.approx(interval.high),
        )
    a_row = row_of(a)
    assert a_row.payoff_low is not None and a_row.payoff_low < 15 < a_row.payoff_high
    before = {s.pk: (row_of(s).deviation, row_of(s).payoff_low) for s in (a, b, c)}
    ratings_recompute(game="split-or-steal", game_version=a.game_version)
    assert {s.pk: (row_of(s).deviation, row_of(s).payoff_low) for s in (a, b, c)} == before


def _brute_ranges(game: str) -> dict[int, RankRange]:
    rows = list(
        Rating.objects.filter(game=game).values_list("submission_id", "rating_low", "rating_high")
    )
    spans = rank_ranges([(low, high) for _, low, high in rows])
    return {sub: span for (sub, _, _), span in zip(rows, spans, strict=True)}


def test_every_leaderboard_row_carries_its_interval_and_rank_range() -> None:
    subs = make_entries("chess", 12)
    rng = random.Random(5)
    for _ in range(60):
        a, b = rng.sample(subs, 2)
        play(a, b, rng.choice(["win", "loss", "draw"]))
    expected = _brute_ranges("chess")
    seen = {}
    for page in (1, 2, 3):
        board = leaderboard_page(game="chess", page=page, per_page=5)
        for row in board.rows:
            assert row["rating_low"] < row["rating"] < row["rating_high"]
            assert row["rating_interval"] == pytest.approx(
                (row["rating_high"] - row["rating_low"]) / 2, abs=0.2
            )
            seen[row["submission"]] = RankRange(row["rank_best"], row["rank_worst"])
            assert row["rank_best"] <= row["rank"] <= row["rank_worst"]
    assert seen == expected
    # Filtered (models only: none here) and searched pages keep ladder-wide ranges.
    one = leaderboard_page(game="chess", search=subs[3].agent.name).rows[0]
    assert RankRange(one["rank_best"], one["rank_worst"]) == expected[subs[3].pk]
    page = Client().get("/games/chess/").content.decode()
    assert "± " in page and "/api/ratings/leaderboards/chess/export.csv" in page


def test_a_mean_payoff_ladder_ranges_ranked_entries_by_their_payoff_interval(settings: Any) -> None:
    settings.ARENA_RANKING_MIN_MATCHES = 3
    subs = make_entries("split-or-steal", 5)
    rng = random.Random(2)
    for _ in range(30):
        a, b = rng.sample(subs[:4], 2)  # the fifth plays nothing: not ranked
        play(a, b, "draw", scores=(rng.randint(0, 10) + a.pk, rng.randint(0, 10)))
    board = leaderboard_page(game="split-or-steal")
    ranked = [r for r in board.rows if r["ranked"]]
    spans = rank_ranges([(r["payoff_low"], r["payoff_high"]) for r in ranked])
    assert [RankRange(r["rank_best"], r["rank_worst"]) for r in ranked] == spans
    unranked = [r for r in board.rows if not r["ranked"]]
    assert unranked and all(r["rank_best"] is None for r in unranked)


@pytest.mark.postgres
def test_the_rank_ranges_read_on_postgresql(tmp_path: Path) -> None:
    """PostgreSQL counts in buckets (``width_bucket``): the same ranges as counting each pair."""
    rerun_on_postgres(
        tmp_path,
        __file__,
        "-k",
        "carries_its_interval_and_rank_range or ranges_ranked_entries",
        timeout_s=300,
    )


# --- Boards across games ----------------------------------------------------------------------


def _model(name: str) -> LanguageModel:
    return LanguageModel.objects.create(
        name=name,
        display_name=name.title(),
        base_url="http://127.0.0.1:9/v1",
        model_id=name,
        api_key_env="NO_KEY",
        price_input_per_mtok_usd=Decimal("1"),
        price_output_per_mtok_usd=Decimal("2"),
    )


def _as_model(submission: Any, model: LanguageModel, temperature: float = 0.2) -> None:
    ModelEntrantConfig.objects.create(
        submission=submission, model=model, max_tokens=256, temperature=temperature
    )


def _ladders(strength: dict[int, float], games: list[str], matches: int) -> dict[str, list[Any]]:
    """One ladder per game whose entries' owners are the same users, results drawn from
    ``strength`` (per owner index)."""
    from arena.accounts.models import User
    from arena.submissions.models import Agent, Submission

    from games.core import get_game_spec
    from games.core.ranking import elo_expected

    users = [User.objects.create_user(username=f"u{next(_names)}") for _ in strength]
    rng = random.Random(7)
    by_game = {}
    for game in games:
        version = get_game_spec(game).version
        subs = []
        for i, user in enumerate(users):
            agent = Agent.objects.create(owner=user, game=game, name=f"a{i}")
            sub = Submission.objects.create(
                agent=agent, version=1, source="", sha256="0" * 64, game_version=version,
                status=Submission.Status.ACCEPTED, active=True,
            )  # fmt: skip
            Rating.objects.create(submission=sub, game=game, game_version=version)
            subs.append(sub)
        for _ in range(matches):
            i, j = rng.sample(range(len(subs)), 2)
            won = rng.random() < elo_expected(strength[i], strength[j])
            play(subs[i], subs[j], "win" if won else "loss")
        by_game[game] = subs
    return by_game


def test_the_users_board_orders_users_across_games_with_intervals() -> None:
    strength = {0: 1700.0, 1: 1400.0, 2: 1000.0, 3: 700.0}
    ladders = _ladders(strength, ["chess", "simple-card"], 80)
    fit = unified_refit()
    assert fit.matches == 160 and fit.games == ["chess", "simple-card"]
    board = unified_board(board="users")
    labels = [row["label"] for row in board.rows]
    owners = [s.agent.owner.username for s in ladders["chess"]]
    assert labels == owners  # strongest first
    for row in board.rows:
        assert row["rating_low"] < row["rating"] < row["rating_high"]
        assert row["rank_best"] <= row["rank"] <= row["rank_worst"]
        assert set(row["per_game"]) == {"chess", "simple-card"}
        assert row["matches"] == sum(cell["matches"] for cell in row["per_game"].values())
    # A second refit replaces the first.
    unified_refit()
    assert UnifiedFit.objects.count() == 1


def test_each_game_weighs_the_same_on_the_board_across_games() -> None:
    """A user who wins the game with few matches and loses the one with many stands level
    with the user who does the opposite."""
    from arena.accounts.models import User
    from arena.submissions.models import Agent, Submission

    from games.core import get_game_spec

    a, b = (User.objects.create_user(username=f"w{next(_names)}") for _ in range(2))
    subs: dict[tuple[str, int], Any] = {}
    for game in ("chess", "simple-card"):
        for user in (a, b):
            agent = Agent.objects.create(owner=user, game=game, name="x")
            sub = Submission.objects.create(
                agent=agent, version=1, source="", sha256="0" * 64,
                game_version=get_game_spec(game).version, status="accepted", active=True,
            )  # fmt: skip
            Rating.objects.create(submission=sub, game=game, game_version=sub.game_version)
            subs[(game, user.pk)] = sub
    for n in range(40):  # chess: many matches, a wins 3 of 4
        play(subs[("chess", a.pk)], subs[("chess", b.pk)], "win" if n % 4 else "loss")
    for n in range(4):  # simple-card: few matches, b wins 3 of 4
        play(subs[("simple-card", b.pk)], subs[("simple-card", a.pk)], "win" if n % 4 else "loss")
    unified_refit()
    rows = {row["label"]: row for row in unified_board(board="users").rows}
    assert rows[a.username]["rating"] == pytest.approx(rows[b.username]["rating"], abs=1.0)


def test_the_models_board_pools_one_configuration_across_games() -> None:
    ladders = _ladders({0: 1600.0, 1: 1200.0, 2: 800.0}, ["chess", "simple-card"], 60)
    strong = _model("strong")
    for game in ("chess", "simple-card"):
        _as_model(ladders[game][0], strong)  # the same configuration in both games
    fit = unified_refit()
    assert fit.matches == 120
    rows = unified_board(board="models").rows
    assert len(rows) == 1  # one model and configuration; code entries only anchor the fit
    row = rows[0]
    assert row["key"].startswith("model:strong:") and set(row["per_game"]) == {
        "chess",
        "simple-card",
    }
    assert row["rating"] > 1200
    assert row["matches"] == sum(r.games for r in Rating.objects.filter(
        submission__in=[ladders["chess"][0], ladders["simple-card"][0]]))  # fmt: skip


def _queries(path: str) -> int:
    response, executed = run_recording_queries(lambda: Client().get(path))
    assert response.status_code == 200, response.content[:300]
    return len(executed)


def test_the_boards_and_the_card_cost_the_same_queries_at_two_sizes() -> None:
    model = _model("counted")
    counts = []
    for users, matches in ((3, 10), (8, 60)):
        UnifiedFit.objects.all().delete()
        ladders = _ladders({i: 1000.0 + 100 * i for i in range(users)}, ["chess"], matches)
        _as_model(ladders["chess"][0], model, temperature=0.1 * users)
        for n in range(matches):
            ModelCall.objects.create(
                match_id=n, seat=0, submission=ladders["chess"][0], model=model,
                attempt=n % 3 == 0, outcome="answered", prompt_tokens=100,
                completion_tokens=10, latency_ms=float(n), cost_usd=Decimal("0.001"),
            )  # fmt: skip
        unified_refit()
        counts.append(
            (
                _queries("/ratings/unified/?board=users"),
                _queries("/ratings/unified/?board=models"),
                _queries("/ratings/models/counted/"),
                _queries("/api/ratings/unified/models"),
            )
        )
    assert counts[0] == counts[1], counts
    assert max(counts[0]) <= 10, counts


def test_a_models_card_shows_play_latency_and_cost() -> None:
    model = _model("carded")
    ladders = _ladders({0: 1500.0, 1: 1000.0}, ["chess"], 10)
    entrant = ladders["chess"][0]
    _as_model(entrant, model)
    for n in range(20):
        ModelCall.objects.create(
            match_id=n // 4, seat=0, submission=entrant, model=model,
            attempt=1 if n % 4 == 3 else 0, outcome="answered", prompt_tokens=90,
            completion_tokens=10, latency_ms=100.0 + n, cost_usd=Decimal("0.01"),
        )  # fmt: skip
    unified_refit()
    card = Client().get("/api/ratings/models/carded").json()
    assert card["reasks_per_move"] == pytest.approx(5 / 15, abs=1e-3)
    assert card["tokens_per_match"] == 400.0 and card["cost_usd_per_match"] == pytest.approx(0.04)
    assert 100 <= card["latency_ms_p50"] <= card["latency_ms_p95"] <= 119
    assert card["timed"]["games"] == 10 and card["untimed"]["games"] == 0
    assert card["per_game"][0]["rating_low"] < card["per_game"][0]["rating"]
    assert card["unified"] and card["unified"][0]["key"].startswith("model:carded:")
    page = Client().get("/ratings/models/carded/").content.decode()
    assert "Re-asks per move" in page and "±" in page
    assert Client().get("/ratings/models/nobody/").status_code == 404
    assert Client().get("/api/ratings/models/nobody").status_code == 404


# --- Downloads ----------------------------------------------------------------------------------


def test_every_board_downloads_as_csv_and_json_with_intervals() -> None:
    subs = make_entries("chess", 4)
    play(subs[0], subs[1], "win")
    play(subs[2], subs[3], "draw")
    sub = subs[0]
    sub.agent.name = "=HYPERLINK(1)"
    sub.agent.save()
    client = Client()
    table = client.get("/api/ratings/leaderboards/chess/export.json").json()
    assert table["confidence"] == 0.95 and len(table["rows"]) == 4
    for row in table["rows"]:
        assert row["rating_low"] < row["rating"] < row["rating_high"]
        assert row["rank_best"] <= row["rank"] <= row["rank_worst"]
    response = client.get("/api/ratings/leaderboards/chess/export.csv")
    assert response["Content-Type"].startswith("text/csv")
    lines = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [line["agent"].removeprefix("'") for line in lines] == [
        r["agent"] for r in table["rows"]
    ]
    assert any(line["agent"].startswith("'=") for line in lines)  # no formula in a spreadsheet
    assert [float(line["rating_low"]) for line in lines] == [r["rating_low"] for r in table["rows"]]
    assert client.get("/api/ratings/leaderboards/no-such-game/export.csv").status_code == 404
    unified_refit()
    board = client.get("/api/ratings/unified/users/export.json").json()
    assert "chess_rating" in board["columns"] and len(board["rows"]) == 4
    unified_csv = client.get("/api/ratings/unified/users/export.csv").content.decode()
    assert unified_csv.splitlines()[0].startswith("rank,rank_best,rank_worst,key,label,rating")
    page = client.get("/ratings/unified/?board=users").content.decode()
    assert "/api/ratings/unified/users/export.csv" in page and "± " in page
    assert UnifiedStanding.objects.filter(board="users").count() == 4


def test_the_agent_page_shows_each_versions_interval() -> None:
    a, b = make_entries("chess", 2)
    for _ in range(5):
        play(a, b, "win")
    row = row_of(a)
    page = Client().get(f"/submissions/agents/{a.agent_id}/").content.decode()
    assert f"{row.rating:.0f} <span" in page
    assert f"± {row.interval_half_width:.0f}</span>" in page
    # The headline is the ladder's rating with its interval, not the last match's Elo alone.
    headline = page.split('id="agent-rating">', 1)[1].split("</h2>", 1)[0]
    assert headline.startswith(f"Elo {row.rating:.0f} ")
    assert f"± {row.interval_half_width:.0f}</span>" in headline
    detail = page.split('id="agent-rating-detail">', 1)[1].split("</p>", 1)[0]
    assert f"{row.rating_low:.0f} to {row.rating_high:.0f} after 5 rated games" in detail
    unrated = make_entries("chess", 1)[0]
    page = Client().get(f"/submissions/agents/{unrated.agent_id}/").content.decode()
    assert 'id="agent-rating">Not rated yet</h2>' in page
    # The API's view of the version carries the same rating and interval.
    from arena.accounts.services import token_get_or_create

    for entry, games in ((a, 5), (unrated, 0)):
        token = token_get_or_create(user=entry.agent.owner)
        api = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
        shown = api.get(f"/api/submissions/{entry.pk}").json()["rating"]
        listed = api.get("/api/submissions").json()["submissions"][0]["rating"]
        assert shown == listed
        if not games:
            assert shown is None
            continue
        assert (shown["rating"], shown["rating_low"], shown["rating_high"], shown["games"]) == (
            round(row.rating, 1),
            round(row.rating_low, 1),
            round(row.rating_high, 1),
            games,
        )


def test_the_users_board_has_a_column_for_each_game_its_rows_stand_in() -> None:
    """The fit spans house bots' games too; a column nobody on the page stands in is left out."""
    users = make_entries("chess", 2)
    play(users[0], users[1], "win")
    house = make_entries("poker", 2)
    for bot, name in zip(house, ("caller", "folder"), strict=True):
        bot.house_bot = name
        bot.save()
    play(house[0], house[1], "win")
    unified_refit()
    assert "poker" in unified_board(board="users").games
    page = Client().get("/ratings/unified/?board=users").content.decode()
    header = page.split('id="unified-board">', 1)[1].split("</thead>", 1)[0]
    assert "<th>chess</th>" in header and "poker" not in header


def test_the_refit_runs_as_a_maintenance_task_on_beat(settings: Any) -> None:
    from arena.workflows.tasks import unified_refit_task

    a, b = make_entries("chess", 2)
    play(a, b, "win")
    schedule = [e for e in settings.CELERY_BEAT_SCHEDULE.values() if "unified" in e["task"]]
    assert [e["task"] for e in schedule] == ["arena.workflows.tasks.unified_refit_task"]
    assert unified_refit_task() == 1
    assert unified_board(board="users").fit is not None


def test_each_pairs_results_are_kept_per_match_and_rebuilt_by_a_replay() -> None:
    from arena.ratings.models import PairRecord

    a, b, c = make_entries("chess", 3)
    play(b, a, "win")  # seat 0 is b, the pair is kept with the lower id first
    play(a, b, "draw")
    play(a, c, "loss")
    kept = {
        (r.first_id, r.second_id): (r.matches, r.first_wins, r.draws)
        for r in PairRecord.objects.all()
    }
    assert kept == {(a.pk, b.pk): (2, 0, 1), (a.pk, c.pk): (1, 0, 0)}
    ratings_recompute(game="chess", game_version=a.game_version)
    assert {
        (r.first_id, r.second_id): (r.matches, r.first_wins, r.draws)
        for r in PairRecord.objects.all()
    } == kept
