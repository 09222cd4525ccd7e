"""Who plays whom: round robin schedules and Swiss pairings (``docs/tournaments.md``).

Pure: no Django, no database; the tournament services feed it what the stored results say and
store what it returns, and ``bench/tournament.py`` drives it at 200 entrants without a database.

A pairing names who takes seat 0 in its first game (``first``); with duplicate seats the next
game swaps the seats on the same seed, so seat order only matters when a pairing plays one game
or an odd number of them. ``second is None`` is a bye.

Swiss, as the standard (Dutch) system pairs it:

* players are ordered by score, then by their seed (entry order: lower is stronger);
* with an odd count the lowest-ordered player who has not had a bye sits this round out;
* each player meets someone of the same score where one is free, the top half of a score group
  against its bottom half (1 v 5, 2 v 6 … in a group of eight), floating down to the next score
  group when their own group cannot pair them;
* nobody meets the same opponent twice: a depth-first search backtracks until the whole round
  pairs without a repeat (``SwissPairingError`` when no such round exists);
* seats: whoever has had seat 0 less often takes it; on a tie whoever sat in seat 1 last time;
  on a tie again it alternates from board to board.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: A Swiss round gives up after this many steps of its search (pathological inputs only: a
#: round of 200 players normally pairs in a few hundred steps).
MAX_SEARCH_STEPS = 500_000


class SwissPairingError(Exception):
    """No round pairs everyone without a repeat (too many rounds for the field)."""


@dataclass(frozen=True)
class PlannedPairing:
    """One pairing of a round: ``first`` takes seat 0 in its first game; ``second`` is the
    opponent, ``None`` for a bye."""

    first: int
    second: int | None


@dataclass(frozen=True)
class SwissPlayer:
    """What Swiss pairing needs to know of a player after the rounds played so far."""

    id: int
    score: float
    #: Seed order (entry order): the lower, the higher the player is placed within its score.
    seed: int
    opponents: frozenset[int] = frozenset()
    #: Games played in seat 0 minus games in seat 1.
    seat_balance: int = 0
    #: The seat of the last game played (``None`` before the first).
    last_seat: int | None = None
    had_bye: bool = False


def swiss_rounds_for(entrants: int, *, extra: int = 2) -> int:
    """Rounds for a Swiss of ``entrants``: ``ceil(log2 n)`` (enough for one player to be the
    only one with a perfect score) plus ``extra`` rounds to sort out the places behind it,
    never more than a round robin would play."""
    if entrants < 2:
        return 0
    return min(max(1, (entrants - 1).bit_length()) + extra, entrants - 1 + entrants % 2)


def seat_first(a: SwissPlayer, b: SwissPlayer, *, board: int) -> tuple[int, int]:
    """(seat 0, seat 1) of a pairing between ``a`` (placed higher) and ``b``."""
    if a.seat_balance != b.seat_balance:
        return (a.id, b.id) if a.seat_balance < b.seat_balance else (b.id, a.id)
    if a.last_seat is not None and b.last_seat is not None and a.last_seat != b.last_seat:
        return (a.id, b.id) if a.last_seat == 1 else (b.id, a.id)
    return (a.id, b.id) if board % 2 == 0 else (b.id, a.id)


def _order(players: Sequence[SwissPlayer]) -> list[SwissPlayer]:
    return sorted(players, key=lambda p: (-p.score, p.seed, p.id))


def swiss_pair(players: Sequence[SwissPlayer]) -> list[PlannedPairing]:
    """One Swiss round: every player paired once (one bye when the count is odd), no repeat.

    Raises ``SwissPairingError`` when no round without a repeat pairing exists.
    """
    if len({p.id for p in players}) != len(players):
        raise ValueError("a player appears twice")
    ordered = _order(players)
    if not ordered:
        return []
    budget = [MAX_SEARCH_STEPS]
    if len(ordered) % 2 == 0:
        pairs = _pair_all(ordered, budget)
        bye: SwissPlayer | None = None
    else:
        # The lowest-placed player without a bye sits out; if the rest cannot pair without a
        # repeat, the next one up does (and only if everyone has had one, anyone may again).
        candidates = [p for p in reversed(ordered) if not p.had_bye] or list(reversed(ordered))
        pairs, bye = None, None
        for candidate in candidates:
            pairs = _pair_all([p for p in ordered if p.id != candidate.id], budget)
            if pairs is not None:
                bye = candidate
                break
    if pairs is None:
        raise SwissPairingError(
            f"{len(ordered)} players cannot all be paired without meeting an opponent again"
        )
    by_id = {p.id: p for p in ordered}
    result = []
    for board, (a, b) in enumerate(pairs):
        first, second = seat_first(by_id[a], by_id[b], board=board)
        result.append(PlannedPairing(first, second))
    if bye is not None:
        result.append(PlannedPairing(bye.id, None))
    return result


def _candidates(p: SwissPlayer, rest: Sequence[SwissPlayer]) -> list[SwissPlayer]:
    """``p``'s possible opponents, best first: never one that would leave a player three games
    off even in seats while another exists; then same score, then the nearest score below or
    above; within its score group the Dutch opponent (half the group down) first; a seat clash
    (both due the same seat) after a compatible opponent of the same distance."""
    group = [q for q in rest if q.score == p.score]
    half = (len(group) + 1) // 2  # p is index 0 of a group of len(group) + 1
    place = {q.id: i + 1 for i, q in enumerate(group)}

    def wants(x: SwissPlayer) -> int:
        return (x.seat_balance > 0) - (x.seat_balance < 0)

    def key(q: SwissPlayer) -> tuple[int, float, int, int, int]:
        clash = int(wants(p) != 0 and wants(p) == wants(q))
        # Both already two games off even the same way: one of them would go three off.
        hard = int(clash and min(abs(p.seat_balance), abs(q.seat_balance)) >= 2)
        distance = abs(place[q.id] - half) if q.id in place else 0
        return (hard, abs(p.score - q.score), distance, clash, q.seed)

    return sorted((q for q in rest if q.id not in p.opponents), key=key)


def _pair_all(ordered: list[SwissPlayer], budget: list[int]) -> list[tuple[int, int]] | None:
    """Pair ``ordered`` (best placed first) completely without a repeat, or ``None``."""
    if not ordered:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    p, rest = ordered[0], ordered[1:]
    for q in _candidates(p, rest):
        tail = _pair_all([r for r in rest if r.id != q.id], budget)
        if tail is not None:
            return [(p.id, q.id), *tail]
        if budget[0] < 0:
            return None
    return None


def round_robin(ids: Sequence[int]) -> list[list[PlannedPairing]]:
    """Every pair of ``ids`` once, in ``len(ids) - 1`` rounds (``len(ids)`` when odd: one bye
    a round), by the circle method; seats balanced as the rounds go (nobody more than one game
    off even after any round)."""
    players: list[int | None] = list(ids)
    if len(set(ids)) != len(ids):
        raise ValueError("a player appears twice")
    if len(players) < 2:
        return []
    if len(players) % 2:
        players.append(None)
    n = len(players)
    balance = dict.fromkeys(ids, 0)
    last: dict[int, int | None] = dict.fromkeys(ids)
    rounds: list[list[PlannedPairing]] = []
    order = players[:]
    for _ in range(n - 1):
        pairings: list[PlannedPairing] = []
        for board in range(n // 2):
            a, b = order[board], order[n - 1 - board]
            if a is None or b is None:
                pairings.append(PlannedPairing(b if a is None else a, None))  # type: ignore[arg-type]
                continue
            pa = SwissPlayer(a, 0, 0, seat_balance=balance[a], last_seat=last[a])
            pb = SwissPlayer(b, 0, 1, seat_balance=balance[b], last_seat=last[b])
            first, second = seat_first(pa, pb, board=board + len(rounds))
            balance[first] += 1
            balance[second] -= 1
            last[first], last[second] = 0, 1
            pairings.append(PlannedPairing(first, second))
        rounds.append(pairings)
        order = [order[0], order[-1], *order[1:-1]]  # rotate all but the first
    return rounds
