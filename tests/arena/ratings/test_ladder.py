"""Leaderboards that do not grow with the ladder: aggregates kept on the rating row, pages and
search, the ranking measure of each game, and page query counts independent of the number of
agents and matches."""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from arena.accounts.models import User
from arena.matches.models import Match, Participant
from arena.ratings import ladder
from arena.ratings.models import PairRecord, Rating
from arena.ratings.selectors import leaderboard_page
from arena.ratings.services import rating_apply, ratings_recompute
from arena.submissions.models import Agent, Submission
from django.test import Client
from django.utils import timezone

from devtools.queries import run_recording_queries
from games.core import get_game_spec
from games.core.ranking import payoff_summary

pytestmark = pytest.mark.django_db

_names = itertools.count()


def make_entries(game: str, count: int, *, owners: int | None = None) -> list[Submission]:
    """``count`` accepted, active submissions of ``game``, each of its own owner by default."""
    version = get_game_spec(game).version
    subs = []
    users = [
        User.objects.create_user(username=f"owner{next(_names)}") for _ in range(owners or count)
    ]
    for i in range(count):
        agent = Agent.objects.create(owner=users[i % len(users)], game=game, name=f"bot{i}")
        subs.append(
            submission := Submission.objects.create(
                agent=agent,
                version=1,
                source="",
                sha256="0" * 64,
                game_version=version,
                status=Submission.Status.ACCEPTED,
                active=True,
            )
        )
        Rating.objects.create(submission=submission, game=game, game_version=version)
    return subs


def play(
    a: Submission,
    b: Submission,
    outcome_a: str,
    *,
    scores: tuple[float, float] = (0.0, 0.0),
    stats: dict[str, Any] | None = None,
) -> Match:
    """Record a finished ranked match (as the match task would) and rate it."""
    other = {"win": "loss", "loss": "win", "draw": "draw"}[outcome_a]
    match = Match.objects.create(
        game=a.agent.game,
        game_version=a.game_version,
        kind=Match.Kind.RANKED,
        status=Match.Status.FINISHED,
        seed=1,
        stats=stats or {},
        summary=f"{a.label} {outcome_a}",
        finished=timezone.now(),
    )
    for seat, (sub, outcome, score) in enumerate(
        ((a, outcome_a, scores[0]), (b, other, scores[1]))
    ):
        Participant.objects.create(
            match=match, seat=seat, submission=sub, outcome=outcome, reason="normal", score=score
        )
    rating_apply(match=match)
    return match


def row_of(submission: Submission) -> Rating:
    return Rating.objects.get(submission=submission)


def test_rows_keep_games_wld_payoff_and_the_games_own_figures() -> None:
    a, b = make_entries("poker", 2)
    play(a, b, "win", scores=(300, -300), stats={"bb_per_100": [30.0, -30.0]})
    play(b, a, "draw", scores=(0, 0), stats={"bb_per_100": {"0": 10.0, "1": -10.0}})
    play(a, b, "loss", scores=(-100, 100))  # no BB/100 in the stats: not averaged in
    row = row_of(a)
    assert (row.games, row.wins, row.draws, row.losses) == (3, 1, 1, 1)
    assert row.mean_payoff == pytest.approx(200 / 3)
    assert row.figure("bb_per_100") == pytest.approx((30.0 - 10.0) / 2)
    assert row.recent_opponents[:3] == [b.pk, b.pk, b.pk]
    board = leaderboard_page(game="poker")
    assert [f.label for f in board.figures] == ["BB/100"]  # poker declares it
    assert {r["agent"]: r["figures"]["bb_per_100"] for r in board.rows} == {
        a.label: 10.0,
        b.label: -10.0,
    }
    # A game that declares no figure has no such column, whatever its matches' stats hold.
    c, d = make_entries("simple-card", 2)
    play(c, d, "win", scores=(1, 0), stats={"bb_per_100": [1.0, -1.0]})
    other = leaderboard_page(game="simple-card")
    assert other.figures == () and all(r["figures"] == {} for r in other.rows)


def test_the_benches_fold_matches_into_rows_by_rating_applys_rule() -> None:
    """``ladder.rate_pair``, ``fold_result``, ``settle`` and ``pair_record_counts`` are the
    rule ``rating_apply`` applies to the stored rows, and what the scale bench seeds its ladder
    with: the same matches folded outside the database give the same rows and pair records."""
    a, b, c = make_entries("poker", 3)
    results = [
        (a, b, "win", (300.0, -300.0), {"bb_per_100": [30.0, -30.0]}),
        (b, c, "draw", (0.0, 0.0), {"bb_per_100": {"0": 10.0, "1": -10.0}}),
        (c, a, "loss", (-100.0, 100.0), {}),
        (a, c, "win", (50.0, -50.0), {"bb_per_100": [5.0, -5.0]}),
    ]
    rows = {s.pk: ladder.Row() for s in (a, b, c)}
    pairs: dict[tuple[int, int], list[int]] = {}
    for first, second, outcome, scores, stats in results:
        match = play(first, second, outcome, scores=scores, stats=stats)
        other = {"win": "loss", "loss": "win", "draw": "draw"}[outcome]
        one, two = rows[first.pk], rows[second.pk]
        (new_one, dev_one), (new_two, dev_two) = ladder.rate_pair(one, two, outcome)
        assert match.finished is not None
        for row, new, dev, seat_outcome, payoff, opponent, seat in (
            (one, new_one, dev_one, outcome, scores[0], second.pk, 0),
            (two, new_two, dev_two, other, scores[1], first.pk, 1),
        ):
            figure = stats.get("bb_per_100")
            value = (
                None
                if figure is None
                else (figure[seat] if isinstance(figure, list) else figure[str(seat)])
            )
            ladder.fold_result(
                row,
                rating=new,
                deviation=dev,
                outcome=seat_outcome,
                payoff=payoff,
                figures={} if value is None else {"bb_per_100": value},
                opponent=opponent,
                at=match.finished,
            )
        pair, wins, draws = ladder.pair_record_counts((first.pk, outcome), (second.pk, other))
        record = pairs.setdefault(pair, [0, 0, 0])
        record[0] += 1
        record[1] += wins
        record[2] += draws
    kept = [f.name for f in dataclasses.fields(ladder.Row)]
    for submission_id, row in rows.items():
        ladder.settle(row)
        stored = Rating.objects.get(submission_id=submission_id)
        # The same operations in the same order: equal, not merely close.
        assert {name: getattr(stored, name) for name in kept} == dataclasses.asdict(row)
    assert {
        (r.first_id, r.second_id): [r.matches, r.first_wins, r.draws]
        for r in PairRecord.objects.all()
    } == pairs


def test_voiding_rebuilds_every_aggregate_as_if_the_match_never_counted() -> None:
    a, b, c = make_entries("split-or-steal", 3)
    play(a, b, "win", scores=(10, 0))
    voided = play(b, c, "draw", scores=(5, 5))
    play(c, a, "loss", scores=(0, 20))
    expected = {}
    for sub in (a, b, c):
        expected[sub.pk] = {
            f: getattr(row_of(sub), f)
            for f in ("games", "wins", "losses", "draws", "payoff_sum", "mean_payoff")
        }
    Match.objects.filter(pk=voided.pk).update(status=Match.Status.ERROR)
    ratings_recompute(game="split-or-steal", game_version=a.game_version)
    after = row_of(b)
    assert (after.games, after.draws, after.payoff_sum) == (1, 0, 0.0)
    assert row_of(c).recent_opponents == [a.pk]  # the voided meeting with b is forgotten
    assert row_of(a).games == expected[a.pk]["games"] == 2
    assert row_of(a).payoff_sum == expected[a.pk]["payoff_sum"] == 30.0


def test_pages_cover_the_ladder_once_in_order_with_global_ranks() -> None:
    subs = make_entries("simple-card", 7)
    for i, s in enumerate(subs):
        Rating.objects.filter(submission=s).update(rating=1000 + 37 * ((i * 3) % 7))
    pages = [leaderboard_page(game="simple-card", page=p, per_page=3) for p in (1, 2, 3)]
    assert [p.pages for p in pages] == [3, 3, 3] and pages[0].total == 7
    rows = [r for p in pages for r in p.rows]
    assert [r["rank"] for r in rows] == list(range(1, 8))
    assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)
    assert len({r["submission"] for r in rows}) == 7
    # A search keeps each row's rank on the whole ladder.
    target = rows[4]
    found = leaderboard_page(game="simple-card", search=target["owner"])
    assert [(r["agent"], r["rank"]) for r in found.rows] == [(target["agent"], 5)]
    by_name = leaderboard_page(game="simple-card", search="BOT")
    assert found.total == 1 and by_name.total == 7
    assert leaderboard_page(game="simple-card", search="nobody-like-this").rows == []
    assert leaderboard_page(game="simple-card", page=99, per_page=3).page == 3


def test_mean_payoff_pages_read_in_two_parts_keep_the_ladders_one_order(settings: Any) -> None:
    # The head (ranked, with a mean payoff) and the rest are read apart; every page, and a
    # page across the boundary, must show the order of the single sort it replaces: ties on
    # the mean broken by Elo then id, unranked entries after.
    from arena.ratings.selectors import ladder_ordering

    settings.ARENA_RANKING_MIN_MATCHES = 3
    subs = make_entries("split-or-steal", 11)
    shapes = [  # (games, mean payoff, Elo)
        (5, 40.0, 1200.0), (3, 40.0, 1300.0), (9, 40.0, 1300.0), (4, 70.0, 1100.0),
        (3, -5.0, 1250.0), (2, 90.0, 1400.0), (1, 10.0, 1000.0), (0, None, 1200.0),
        (0, None, 1250.0), (6, 0.0, 1150.0), (3, None, 1190.0),
    ]  # fmt: skip
    for sub, (games, mean, elo) in zip(subs, shapes, strict=True):
        Rating.objects.filter(submission=sub).update(games=games, mean_payoff=mean, rating=elo)
    expected = list(
        Rating.objects.filter(game="split-or-steal")
        .order_by(*ladder_ordering("mean_payoff", 3))
        .values_list("submission_id", flat=True)
    )
    assert expected[:3] == [subs[3].pk, subs[1].pk, subs[2].pk]  # 70, then 40s by Elo, id
    # Enough games but no mean payoff: after the six ranked ones, before the unranked ones.
    assert expected[6] == subs[10].pk
    for per_page in (1, 2, 3, 4, 5, 11):
        pages = -(-len(subs) // per_page)
        shown = [
            row["submission"]
            for page in range(1, pages + 1)
            for row in leaderboard_page(game="split-or-steal", page=page, per_page=per_page).rows
        ]
        assert shown == expected, per_page
        ranks = [
            row["rank"]
            for page in range(1, pages + 1)
            for row in leaderboard_page(game="split-or-steal", page=page, per_page=per_page).rows
        ]
        assert ranks == list(range(1, len(subs) + 1))


def test_a_mean_payoff_game_ranks_by_payoff_with_a_minimum_of_matches(settings: Any) -> None:
    settings.ARENA_RANKING_MIN_MATCHES = 3
    steal, nice, newcomer = make_entries("split-or-steal", 3)
    # The stealer wins every match head to head but earns little; the nice one earns more.
    for _ in range(3):
        play(steal, nice, "win", scores=(10, 0))
    for _ in range(3):
        play(nice, newcomer, "draw", scores=(50, 50))
    Rating.objects.filter(submission=newcomer).update(games=2)  # below the minimum
    board = leaderboard_page(game="split-or-steal")
    assert board.ranking == "mean_payoff"
    assert [r["agent"] for r in board.rows] == [nice.label, steal.label, newcomer.label]
    assert [r["ranked"] for r in board.rows] == [True, True, False]
    assert row_of(steal).rating > row_of(nice).rating  # Elo disagrees, and is shown beside it
    first = board.rows[0]
    assert first["mean_payoff"] == 25.0
    # Payoffs 0,0,0,50,50,50: the same interval games.core.ranking gives for the list.
    shared = payoff_summary([0.0] * 3 + [50.0] * 3, min_matches=3)
    assert first["payoff_interval"] == pytest.approx(shared.half_width, abs=0.01)
    page = Client().get("/games/split-or-steal/").content.decode()
    assert "mean payoff per match against the field" in page and "± " in page
    api = json.loads(Client().get("/api/leaderboard/split-or-steal").content)
    assert (api["ranking"], api["min_matches"]) == ("mean_payoff", 3)
    assert json.loads(Client().get("/api/leaderboard/chess").content)["ranking"] == "elo"


def test_the_api_refuses_a_page_that_is_not_a_number() -> None:
    response = Client().get("/api/leaderboard/chess?page=two")
    assert response.status_code in (400, 422) and "page" in response.content.decode()
    too_many = Client().get("/api/leaderboard/chess?per_page=100000")
    assert too_many.status_code in (400, 422) and "per_page" in too_many.content.decode()


def _seed(game: str, agents: int, matches: int) -> tuple[Submission, Match]:
    subs = make_entries(game, agents, owners=max(2, agents // 2))
    last = None
    for i in range(matches):
        a, b = subs[i % agents], subs[(i * 7 + 1) % agents]
        if a.pk == b.pk:
            b = subs[(i + 1) % agents]
        last = play(
            a,
            b,
            ("win", "loss", "draw")[i % 3],
            scores=(i % 5, 3),
            stats={"bb_per_100": [1.0, -1.0]},
        )
    assert last is not None
    return subs[0], last


def _queries(fetch: Callable[[], Any]) -> int:
    """Queries one request runs."""
    response, executed = run_recording_queries(fetch)
    assert response.status_code == 200, response.content[:500]
    return len(executed)


@pytest.mark.parametrize("game", ["poker", "split-or-steal"])
def test_every_page_costs_the_same_queries_at_two_ladder_sizes(game: str) -> None:
    client = Client()
    counts = []
    for agents, matches in ((4, 6), (40, 120)):
        Match.objects.all().delete()
        Rating.objects.all().delete()
        Submission.objects.all().delete()
        agent, match = _seed(game, agents, matches)
        pages = {
            "home": lambda: client.get("/"),
            "game": lambda: client.get(f"/games/{game}/"),
            "game page 2": lambda: client.get(f"/games/{game}/?page=2"),
            "game search": lambda: client.get(f"/games/{game}/?q=owner"),
            "api": lambda: client.get(f"/api/leaderboard/{game}?per_page=3"),
            "agent": lambda a=agent: client.get(f"/submissions/agents/{a.agent_id}/"),
            "match": lambda m=match: client.get(f"/matches/{m.pk}/"),
        }
        counts.append({name: _queries(fetch) for name, fetch in pages.items()})
    assert counts[0] == counts[1]
    assert all(n >= 1 for n in counts[0].values()), counts  # the counting itself works
