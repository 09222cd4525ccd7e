"""Matchmaking: the rules of docs/architecture.md on the pure
pairing function, and the pass over a ladder in a constant number of queries."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from typing import Any

import pytest
from arena.matches.models import Match, Participant
from arena.ratings.models import Rating
from arena.ratings.pairing import (
    UNCERTAIN_DEVIATION,
    Entry,
    _Pool,
    choose_opponent,
    information_gain,
    pair_entries,
)
from arena.workflows.ladder import matchmaking_run
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.arena.ratings.test_ladder import make_entries, play


def ids(pairs: list[tuple[Entry, Entry]]) -> set[frozenset[int]]:
    return {frozenset((a.id, b.id)) for a, b in pairs}


def test_nearest_rating_first_then_the_window_widens() -> None:
    # 1 has played least lately, so it chooses first: 2 is 50 points away, 3 is 500.
    entries = [
        Entry(1, 1, 1500, load=0.0),
        Entry(2, 2, 1550, load=1.0),
        Entry(3, 3, 1000, load=1.0),
        Entry(4, 4, 2000, load=1.0),
    ]
    pairs = pair_entries(entries, rng=random.Random(1))
    assert ids(pairs) == {frozenset({1, 2}), frozenset({3, 4})}


def test_never_two_entries_of_one_owner() -> None:
    entries = [Entry(1, 7, 1200), Entry(2, 7, 1201), Entry(3, 8, 1900)]
    assert ids(pair_entries(entries, rng=random.Random(2))) == {frozenset({1, 3})} or ids(
        pair_entries(entries, rng=random.Random(2))
    ) == {frozenset({2, 3})}
    assert pair_entries([Entry(1, 7, 1200), Entry(2, 7, 1200)]) == []


def test_no_immediate_rematch_even_when_nearest() -> None:
    # They played each other 10 s ago: a rematch waits for its cool-down (see
    # test_ladder_progress for the rematch that is the only pairing left).
    entries = [
        Entry(1, 1, 1200, opponents=(2,), idle_s=10.0),
        Entry(2, 2, 1200, opponents=(1,), idle_s=10.0),
    ]
    assert pair_entries(entries, rematch_cooldown_s=120.0) == []
    entries.append(Entry(3, 3, 1700))
    assert ids(pair_entries(entries, rng=random.Random(3))) in (
        {frozenset({1, 3})},
        {frozenset({2, 3})},
    )


def test_fewest_recent_games_choose_first() -> None:
    # 1 is the nearest opponent of both 10 and 11; 11 has played less lately: it chooses first.
    entries = [
        Entry(10, 10, 1185, load=5.0),
        Entry(11, 11, 1215, load=0.5),
        Entry(1, 1, 1200, load=9.0),
        Entry(2, 2, 1900, load=9.0),
    ]
    for seed in range(20):
        assert frozenset({11, 1}) in ids(pair_entries(entries, rng=random.Random(seed)))


def test_opponents_met_least_often_and_least_recently_are_preferred_within_the_window() -> None:
    # All three bots are inside the first window; the newcomer met bot 2 twice and bot 3 last
    # but one, so bot 4 (never met lately) is taken although it is the farthest.
    newcomer = Entry(1, 1, 1200, load=0.0, opponents=(3, 2, 2))
    bots = [Entry(2, 9, 1201, load=5), Entry(3, 9, 1205, load=5), Entry(4, 9, 1290, load=5)]
    assert ids(pair_entries([newcomer, *bots], house_play=False)) == {frozenset({1, 4})}
    # Outside the first window, the nearer window still wins over variety.
    far = [Entry(2, 9, 1201, load=5), Entry(4, 9, 1500, load=5)]
    assert ids(pair_entries([Entry(1, 1, 1200, opponents=(3, 2)), *far])) == {frozenset({1, 2})}


def test_a_newcomer_meets_every_house_bot_in_a_few_matches() -> None:
    """Issue 12: a newcomer's agent met only two of four bots in eight matches."""
    bots = [Entry(100 + i, 0, 1200 + 10 * i, load=3.0, house=True) for i in range(4)]
    mine: list[int] = []
    for _ in range(4):
        me = Entry(1, 1, 1200, opponents=tuple(reversed(mine)))
        (a, b), *_ = [
            p for p in pair_entries([me, *bots], house_play=False) if 1 in {p[0].id, p[1].id}
        ]
        mine.append(b.id if a.id == 1 else a.id)
    assert sorted(mine) == [100, 101, 102, 103]


def test_house_bots_play_each_other_only_when_no_user_waits() -> None:
    house = [Entry(100 + i, 0, 1200, house=True) for i in range(4)]
    # One user, four bots: the user gets a bot, two of the three others play each other.
    pairs = pair_entries([Entry(1, 1, 1200), *house], rng=random.Random(4))
    assert len(pairs) == 2 and sum(1 in {a.id, b.id} for a, b in pairs) == 1
    # Two users of one owner: one of them is left waiting, so no house-vs-house match.
    users = [Entry(1, 1, 1200), Entry(2, 1, 1200)]
    pairs = pair_entries([*users, house[0]], rng=random.Random(5))
    assert len(pairs) == 1
    # The caller says user matches are queued for a worker: house bots wait.
    assert pair_entries(house, house_play=False) == []
    # A house bot that played its share today rests.
    tired = [Entry(100, 0, 1200, house=True, load=50.0), Entry(101, 0, 1200, house=True)]
    assert pair_entries(tired, house_load_cap=48.0) == []
    assert len(pair_entries(tired)) == 1


def test_each_entry_plays_once_per_pass_and_seats_vary() -> None:
    rng = random.Random(6)
    entries = [Entry(i, i, rng.gauss(1200, 200), load=rng.random()) for i in range(500)]
    pairs = pair_entries(entries, rng=rng)
    seated = Counter(e.id for pair in pairs for e in pair)
    assert len(pairs) == 250 and set(seated.values()) == {1}
    assert 50 < sum(a.id < b.id for a, b in pairs) < 200


@pytest.mark.django_db
def test_one_ranked_match_in_flight_per_entry_and_recent_opponents_recorded() -> None:
    a, b, c, d = make_entries("simple-card", 4)
    first = matchmaking_run()
    assert len(first) == 2
    assert matchmaking_run() == []  # every entry has a match queued
    Match.objects.filter(pk=first[0].pk).update(status=Match.Status.RUNNING)
    assert matchmaking_run() == []
    Match.objects.filter(pk__in=[m.pk for m in first]).update(status=Match.Status.ERROR)
    rated = play(a, b, "win")
    assert Rating.objects.get(submission=a).recent_opponents == [b.pk]
    second = matchmaking_run()
    pairs = {frozenset(m.participants.values_list("submission_id", flat=True)) for m in second}
    assert frozenset({a.pk, b.pk}) not in pairs  # no immediate rematch
    assert rated.rated


@pytest.mark.django_db
def test_house_bots_wait_while_a_users_match_is_queued() -> None:
    from arena.catalog.services import demo_data_load

    demo_data_load()
    make_entries("simple-card", 1)
    created = [m for m in matchmaking_run() if m.game == "simple-card"]
    house_only = [m for m in created if all(p.submission.house_bot for p in m.participants.all())]
    assert len(created) == 2 and len(house_only) == 1  # one user, three bots
    Match.objects.filter(pk__in=[m.pk for m in house_only]).update(status=Match.Status.FINISHED)
    assert [m for m in matchmaking_run() if m.game == "simple-card"] == []  # users' queued


def _pass_queries(agents: int) -> tuple[int, int]:
    Match.objects.all().delete()
    Participant.objects.all().delete()
    make_entries("chess", agents, owners=agents // 2)
    with CaptureQueriesContext(connection) as ctx:
        created = matchmaking_run()
    return len(ctx.captured_queries), len(created)


@pytest.mark.django_db
def test_a_pass_costs_the_same_queries_at_two_ladder_sizes(
    django_capture_on_commit_callbacks: Any,
) -> None:
    # 60 entries: 30 matches stay within one bulk INSERT on SQLite (whose parameter limit
    # splits bigger inserts into batches; PostgreSQL inserts them at once, see bench/scale.py).
    small = _pass_queries(6)
    large = _pass_queries(60)
    assert small[1] >= 2 and large[1] >= 25
    assert small[0] == large[0]


def test_a_bounded_pass_serves_those_who_played_least_first() -> None:
    entries = [Entry(i, i, 1200 + i, load=float(i)) for i in range(10)]
    pairs = pair_entries(entries, rng=random.Random(7), max_pairs=2)
    assert len(pairs) == 2
    assert {e.id for pair in pairs for e in pair} >= {0, 1}
    assert pair_entries(entries, max_pairs=0) == []


@pytest.mark.django_db
def test_the_queue_of_a_ladder_is_topped_up_to_its_bound(settings: Any) -> None:
    settings.ARENA_MATCHMAKING_QUEUE_MAX = 3
    make_entries("chess", 12)
    assert len(matchmaking_run()) == 3
    assert matchmaking_run() == []  # three queued: the bound
    Match.objects.filter(pk=Match.objects.order_by("id")[0].pk).update(status="running")
    assert len(matchmaking_run()) == 1


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
@pytest.mark.django_db
def test_a_newcomer_meets_every_house_bot_on_a_live_ladder(
    make_user: Any, committed: Any, settings: Any, monkeypatch: Any
) -> None:
    """Issue 12: matchmaking, the match task and Elo together, house bots playing each other
    in between; the newcomer's agent (sandboxed) meets every brinkmanship house bot within
    twice as many matches as there are bots (the issue saw two of four bots in eight)."""
    from arena.catalog.services import demo_data_load
    from arena.submissions.models import Submission
    from arena.workflows.matches import match_run
    from arena.workflows.submissions import submission_activate
    from arena.workflows.submissions import submission_upload as submission_create

    from games.core import get_game_spec

    # Reproducible: pairing's tie-breaks and the matches' seeds from fixed generators. Unseeded,
    # about one run in six (with either K schedule) drifts the newcomer's rating away from one
    # bot for long enough to miss it.
    seeds = itertools.count(1)
    monkeypatch.setattr("arena.matches.services.secrets.randbelow", lambda _n: next(seeds))
    pairing_rng = random.Random(12)
    monkeypatch.setattr("arena.ratings.services.random.Random", lambda *_a: pairing_rng)
    demo_data_load()
    user = make_user("newcomer")
    source = get_game_spec("brinkmanship").starter_source()
    mine = committed(lambda: submission_create(owner=user, source=source, name="mine"))
    mine = Submission.objects.get(pk=mine.pk)
    assert mine.status == "accepted", mine.status_detail
    submission_activate(submission=mine, user=user)
    bots = set(get_game_spec("brinkmanship").bots)
    wanted = 2 * len(bots)
    met: list[str] = []
    for _ in range(10 * wanted):
        for match in matchmaking_run():
            if match.game != "brinkmanship":
                Match.objects.filter(pk=match.pk).update(status=Match.Status.ERROR)
                continue
            seats = list(match.participants.select_related("submission"))
            if any(p.submission_id == mine.pk for p in seats):
                met += [p.submission.house_bot for p in seats if p.submission_id != mine.pk]
            match_run(match_id=match.pk)
        if len(met) >= wanted:
            break
    assert len(met) >= wanted
    assert set(met[:wanted]) == bots, met
    # The bots' rated games outnumber their games against the newcomer: they played each other.
    house = Rating.objects.filter(game="brinkmanship", submission__house_bot__gt="")
    assert sum(house.values_list("games", flat=True)) > len(met)


def test_an_uncertain_entry_meets_the_strengths_it_may_have_a_known_one_its_nearest() -> None:
    """Each pass draws every entry's rating from its interval (Thompson sampling)."""
    field = [Entry(10 + i, 10 + i, 900 + 100 * i, load=5.0) for i in range(7)]  # 900..1500

    def opponents(deviation: float) -> Counter[int]:
        met: Counter[int] = Counter()
        for seed in range(200):
            me = Entry(1, 1, 1200, load=0.0, deviation=deviation)
            for a, b in pair_entries([me, *field], rng=random.Random(seed)):
                if 1 in (a.id, b.id):
                    met[b.id if a.id == 1 else a.id] += 1
        return met

    assert opponents(0.0) == Counter({13: 200})  # 1200: the nearest, every time
    uncertain = opponents(300.0)
    assert len(uncertain) >= 5 and uncertain[13] < 100
    # Still centred on its rating (the ends of the field stand for every draw beyond them).
    mean_met = sum((900 + 100 * (sub - 10)) * n for sub, n in uncertain.items()) / 200
    assert 1140 < mean_met < 1260


def test_an_uncertain_chooser_takes_the_opponent_its_game_teaches_most() -> None:
    """Above ``UNCERTAIN_DEVIATION`` a chooser weighs its nearest candidates by what a game
    would teach about it: a well-known opponent a little farther beats an uncertain nearest."""
    known = Entry(2, 2, 1230, deviation=30.0)
    unsure = Entry(3, 3, 1200, deviation=300.0)
    for deviation, expected in ((300.0, known), (UNCERTAIN_DEVIATION - 50.0, unsure)):
        me = Entry(1, 1, 1200, deviation=deviation)
        held = {e.id: e for e in (me, known, unsure)}
        pool = _Pool.of(held.values())
        assert choose_opponent(me, pool, house_vs_house=False, held=held) == expected
        # Without the ratings held (nearest alone) the nearest is taken whatever the deviation.
        assert choose_opponent(me, pool, house_vs_house=False) == unsure


def test_information_gain_prefers_even_odds_and_a_known_opponent() -> None:
    me = Entry(1, 1, 1200, deviation=250.0)
    even, far = Entry(2, 2, 1200, deviation=40.0), Entry(3, 3, 1700, deviation=40.0)
    assert information_gain(me, even) > information_gain(me, far)
    assert information_gain(me, even) > information_gain(me, even._replace(deviation=250.0))
    assert information_gain(me._replace(deviation=0.0), even) == 0.0
    # A game can shrink the variance, never past it.
    assert 0.0 < information_gain(me, even) < 250.0**2
