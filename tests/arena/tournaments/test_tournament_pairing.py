"""The pure pairing and standings code of tournaments: properties over random fields and
results (hypothesis), and the cases a Swiss must get right."""

from __future__ import annotations

import itertools
import random

import pytest
from arena.tournaments.pairing import (
    PlannedPairing,
    SwissPairingError,
    SwissPlayer,
    round_robin,
    swiss_pair,
    swiss_rounds_for,
)
from arena.tournaments.standings import GameResult, standings_compute, wilson_interval
from hypothesis import given, settings
from hypothesis import strategies as st

#: Fields this small may exhaust their new pairings before the Swiss's last round.
SMALL_FIELD = 8


def play_swiss(n: int, rounds: int, rng: random.Random) -> tuple[list[list[PlannedPairing]], dict]:
    """A whole Swiss with random results; returns the rounds and the final players."""
    players = {i: SwissPlayer(id=i, score=0.0, seed=i) for i in range(1, n + 1)}
    played = []
    for number in range(rounds):
        try:
            pairings = swiss_pair(list(players.values()))
        except SwissPairingError:
            # A small field whose Swiss is nearly a round robin can run out of new pairings;
            # the scheduler then ends the tournament after the rounds played (and says so).
            # A field of more than eight never does within its rounds.
            assert n <= SMALL_FIELD and number >= n // 2, f"{n} entrants stuck in round {number}"
            break
        played.append(pairings)
        for p in pairings:
            a = players[p.first]
            if p.second is None:
                players[a.id] = SwissPlayer(
                    a.id, a.score + 1, a.seed, a.opponents, a.seat_balance, a.last_seat, True
                )
                continue
            b = players[p.second]
            result = rng.choice([0.0, 0.5, 1.0])
            players[a.id] = SwissPlayer(
                a.id,
                a.score + result,
                a.seed,
                a.opponents | {b.id},
                a.seat_balance + 1,
                0,
                a.had_bye,
            )
            players[b.id] = SwissPlayer(
                b.id,
                b.score + 1 - result,
                b.seed,
                b.opponents | {a.id},
                b.seat_balance - 1,
                1,
                b.had_bye,
            )
    return played, players


@settings(max_examples=60, deadline=None)
@given(n=st.integers(min_value=2, max_value=60), seed=st.integers(0, 2**32 - 1))
def test_a_swiss_pairs_everyone_once_a_round_and_never_repeats(n: int, seed: int) -> None:
    rounds = swiss_rounds_for(n)
    played, players = play_swiss(n, rounds, random.Random(seed))
    met: set[frozenset[int]] = set()
    byes: list[int] = []
    for pairings in played:
        seen = [p.first for p in pairings] + [p.second for p in pairings if p.second]
        assert sorted(seen) == list(range(1, n + 1))  # everyone exactly once
        assert sum(p.second is None for p in pairings) == n % 2  # one bye when odd
        for p in pairings:
            if p.second is None:
                byes.append(p.first)
                continue
            pair = frozenset((p.first, p.second))
            assert pair not in met, f"{sorted(pair)} met twice"
            met.add(pair)
    assert len(byes) == len(set(byes)) or len(byes) > n  # nobody gets a second bye
    # Seats: three games off even only when no other pairing of the round avoided it (the
    # score groups and no-repeat rule come first; docs/tournaments.md), never more.
    assert all(abs(p.seat_balance) <= 3 for p in players.values())


def test_the_rounds_grow_with_the_log_of_the_field() -> None:
    assert swiss_rounds_for(16) == 6
    assert swiss_rounds_for(200) == 10
    assert swiss_rounds_for(3) == 3  # never more than a round robin (with its byes)
    assert swiss_rounds_for(1) == 0


def test_the_first_round_pairs_top_half_against_bottom_half() -> None:
    players = [SwissPlayer(id=i, score=0.0, seed=i) for i in range(1, 9)]
    pairs = {frozenset((p.first, p.second)) for p in swiss_pair(players)}
    assert pairs == {frozenset(x) for x in [(1, 5), (2, 6), (3, 7), (4, 8)]}


def test_leaders_who_met_float_down_and_the_lowest_without_a_bye_sits_out() -> None:
    players = [
        SwissPlayer(id=1, score=2, seed=1, opponents=frozenset({2})),
        SwissPlayer(id=2, score=2, seed=2, opponents=frozenset({1})),
        SwissPlayer(id=3, score=1, seed=3),
        SwissPlayer(id=4, score=1, seed=4),
        SwissPlayer(id=5, score=0, seed=5, had_bye=True),
        SwissPlayer(id=6, score=0, seed=6),
        SwissPlayer(id=7, score=0, seed=7),
    ]
    pairings = swiss_pair(players)
    bye = [p.first for p in pairings if p.second is None]
    assert bye == [7]  # the lowest placed who has not had one
    pairs = {frozenset((p.first, p.second)) for p in pairings if p.second}
    # No repeat: the two leaders float down to the 1-point group, which they meet in order;
    # the 0-point group pairs within itself.
    assert pairs == {frozenset((1, 3)), frozenset((2, 4)), frozenset((5, 6))}


def test_seats_go_to_whoever_had_seat_zero_less() -> None:
    a = SwissPlayer(id=1, score=1, seed=1, seat_balance=1, last_seat=0)
    b = SwissPlayer(id=2, score=1, seed=2, seat_balance=-1, last_seat=1)
    assert swiss_pair([a, b]) == [PlannedPairing(2, 1)]


def test_a_field_that_cannot_pair_without_a_repeat_is_refused() -> None:
    players = [
        SwissPlayer(id=1, score=0, seed=1, opponents=frozenset({2, 3})),
        SwissPlayer(id=2, score=0, seed=2, opponents=frozenset({1, 4})),
        SwissPlayer(id=3, score=0, seed=3, opponents=frozenset({1, 4})),
        SwissPlayer(id=4, score=0, seed=4, opponents=frozenset({2, 3})),
    ]
    swiss_pair(players)  # 1-4 and 2-3 remain
    players[0] = SwissPlayer(id=1, score=0, seed=1, opponents=frozenset({2, 3, 4}))
    with pytest.raises(SwissPairingError):
        swiss_pair(players)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(min_value=2, max_value=24))
def test_a_round_robin_meets_every_pair_exactly_once_with_balanced_seats(n: int) -> None:
    rounds = round_robin(list(range(n)))
    assert len(rounds) == n - 1 + n % 2
    met = [frozenset((p.first, p.second)) for r in rounds for p in r if p.second is not None]
    assert sorted(met, key=sorted) == sorted(
        (frozenset(c) for c in itertools.combinations(range(n), 2)), key=sorted
    )
    for r in rounds:
        assert sorted([p.first for p in r] + [p.second for p in r if p.second is not None]) == list(
            range(n)
        )
    balance = dict.fromkeys(range(n), 0)
    for r in rounds:
        for p in r:
            if p.second is not None:
                balance[p.first] += 1
                balance[p.second] -= 1
        assert all(abs(b) <= 2 for b in balance.values())


@settings(max_examples=60, deadline=None)
@given(
    results=st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 5), st.sampled_from([0.0, 0.5, 1.0])),
        max_size=40,
    )
)
def test_standings_add_up_to_the_results(results: list[tuple[int, int, float]]) -> None:
    games = [GameResult(a, b, pts) for a, b, pts in results if a != b]
    rows = standings_compute(list(range(6)), games, byes={5: 1}, bye_points=1.0)
    by = {r.entrant: r for r in rows}
    assert sum(r.score for r in rows) == pytest.approx(len(games) + 1)  # one point a game + bye
    for e in range(6):
        mine = [g.points_first for g in games if g.first == e] + [
            1 - g.points_first for g in games if g.second == e
        ]
        assert by[e].score == pytest.approx(sum(mine) + (1 if e == 5 else 0))
        assert by[e].games == len(mine)
        assert by[e].score_low <= by[e].score + 1e-9 <= by[e].score_high + 2e-9
    keys = [(-r.score, -r.buchholz, -r.sonneborn_berger) for r in rows]
    assert keys == sorted(keys)
    assert [r.rank for r in rows] == list(range(1, 7))


def test_tiebreaks_buchholz_then_sonneborn_berger() -> None:
    # 1 beat 3 (strong), 2 beat 4 (weak); 3 beat 4: 1 and 2 tie on 1 point, 1 had the harder
    # opponent (Buchholz 1 v 0).
    games = [GameResult(1, 3, 1.0), GameResult(2, 4, 1.0), GameResult(3, 4, 1.0)]
    rows = standings_compute([1, 2, 3, 4], games)
    assert [r.entrant for r in rows][:2] == [1, 3] or [r.entrant for r in rows][0] == 1
    by = {r.entrant: r for r in rows}
    assert by[1].buchholz == 1.0 and by[2].buchholz == 0.0
    assert by[1].sonneborn_berger == 1.0 and by[2].sonneborn_berger == 0.0
    assert [r.entrant for r in rows].index(1) < [r.entrant for r in rows].index(2)


def test_a_double_forfeit_scores_nothing_for_either() -> None:
    rows = standings_compute([1, 2], [GameResult(1, 2, 0.0, 0.0)])
    assert [r.score for r in rows] == [0.0, 0.0]


def test_the_interval_narrows_with_games() -> None:
    low5, high5 = wilson_interval(2.5, 5)
    low50, high50 = wilson_interval(25, 50)
    assert high50 - low50 < high5 - low5
    assert low5 < 0.5 < high5
