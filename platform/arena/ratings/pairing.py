"""Who plays whom: the matchmaking rules (docs/architecture.md) as a pure function (no Django), so
``workflows.ladder.matchmaking_run`` and the ratings-quality bench run the same code.

The rules, in order:
- each pass places every entry at a rating drawn from its interval, N(rating, deviation²)
  (Thompson sampling): an entry whose strength is well known plays near its rating, an
  uncertain one meets the range of strengths it may have, which is where its games teach most
  about the ranking. Nearest in *estimated* rating alone is not enough: a gap between two
  entries that the estimates overstate would never be played again and never corrected, and
  the ladder's fit then stretches its scale (on ``bench/ratings_quality.py``, strengths of
  sd 300, nearest-rating pairing left 79 % of true strengths inside their 95 % intervals
  after 30 games);
- entries with the fewest recent games choose first (ties at random);
- the opponent is looked for within ``first_window`` points of the drawn ratings, and the
  window doubles until it holds an eligible one; within that window the opponent met least
  often lately, then least recently, then nearest in rating, then with the fewest recent
  games, is taken;
- an uncertain chooser (``deviation`` above ``UNCERTAIN_DEVIATION``, its first ten games or so)
  weighs, instead of nearness, what the game would teach about its own strength: among the
  ``CANDIDATES`` opponents nearest its drawn rating (met least often and least recently still
  first) it takes the one of largest ``information_gain``, which prefers even odds at the
  ratings held and a well-known opponent (a result against an uncertain one says less about
  the chooser). On ``bench/ratings_quality.py`` this lifted Kendall's tau after 10 games from
  0.918 to 0.933 of the information bound (strengths of sd 400; 0.913 to 0.934 at sd 300, 20
  seeds); applied at every deviation it lifted tau as much but let the fit stretch the scale
  again (95 % intervals covering 0.86 of true strengths after 30 games at sd 300), so a
  known entry keeps the draw and nearest rating;
- never two entries of one owner (house bots are all the house's: see below), and an entry
  plays at most one match per pass (the caller leaves out entries that already have a ranked
  match in flight);
- no immediate rematch (the opponent of either side's last match), unless it is the only
  pairing left: once every entry that could be paired without one has been, an entry may meet
  the opponent of its last match again when ``rematch_cooldown_s`` has passed since that match
  (a small site, one user and the house bots, would otherwise stall for good);
- house bots play each other only at low priority: after every user entry that may meet
  someone has been paired, and each at most ``house_load_cap`` recent games. The cap limits
  house-v-house games only: a user's agent meets a house bot whatever the bot's load.

One pass over n free entries takes O(n log n): entries sit in a list sorted by rating, a
chooser scans outward from its own place and stops at the first opponent it never met lately
(the best there is within the window; an uncertain chooser at the ``CANDIDATES``-th), so a
large ladder costs a few steps per entry.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

#: Opponents are first looked for within this many points, then the window doubles.
FIRST_WINDOW = 100.0
#: Default wait before two entries whose last match was against each other may meet again
#: (when nobody else is left for them; ``settings.ARENA_REMATCH_COOLDOWN_S`` in the platform).
REMATCH_COOLDOWN_S = 120.0
#: A chooser whose ``deviation`` exceeds this picks the opponent its game teaches most about.
UNCERTAIN_DEVIATION = 150.0
#: How many opponents (never met lately, nearest the drawn rating) an uncertain chooser weighs.
CANDIDATES = 8
#: Logistic slope of the Elo scale: P(win) = 1 / (1 + exp(-_C * (a - b))).
_C = math.log(10) / 400.0


class Entry(NamedTuple):
    """What pairing needs to know about one free ladder entry (a tuple: a pass builds 10,000)."""

    #: The submission (the ladder entry's identity in matches).
    id: int
    owner: int
    rating: float
    #: Recent games (decayed, see ``ladder.decayed_load``) as of now.
    load: float = 0.0
    #: Submission ids of the latest opponents, newest first.
    opponents: Sequence[int] = ()
    house: bool = False
    #: Seconds since the entry's last rated game ended (infinite: never played).
    idle_s: float = math.inf
    #: The standard error of ``rating`` (``Rating.deviation``); 0 takes the rating as exact.
    deviation: float = 0.0

    @property
    def last_opponent(self) -> int | None:
        """The opponent of the entry's last match."""
        return self.opponents[0] if self.opponents else None


@dataclass
class _Pool:
    """Unpaired entries sorted by (rating, id), with removal."""

    keys: list[tuple[float, int]] = field(default_factory=list)
    entries: dict[tuple[float, int], Entry] = field(default_factory=dict)

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> _Pool:
        pool = cls()
        for e in entries:
            pool.entries[(e.rating, e.id)] = e
        pool.keys = sorted(pool.entries)
        return pool

    def remove(self, entry: Entry) -> None:
        key = (entry.rating, entry.id)
        del self.keys[bisect_left(self.keys, key)]
        del self.entries[key]

    def __contains__(self, entry: Entry) -> bool:
        return (entry.rating, entry.id) in self.entries

    def by_distance(self, entry: Entry) -> Iterable[tuple[float, Entry]]:
        """Other entries in increasing rating distance from ``entry``."""
        keys = self.keys
        start = bisect_left(keys, (entry.rating, entry.id))
        left, right = start - 1, start
        while left >= 0 or right < len(keys):
            left_d = entry.rating - keys[left][0] if left >= 0 else float("inf")
            right_d = keys[right][0] - entry.rating if right < len(keys) else float("inf")
            if left_d <= right_d:
                key, left = keys[left], left - 1
                distance = left_d
            else:
                key, right = keys[right], right + 1
                distance = right_d
            other = self.entries[key]
            if other.id != entry.id:
                yield distance, other


def rematch_wait_s(a: Entry, b: Entry, *, cooldown_s: float) -> float:
    """Seconds before ``a`` and ``b`` may meet again as a rematch: 0 when neither side's last
    match was against the other or the cool-down since it has passed."""
    wait = 0.0
    if a.last_opponent == b.id:
        wait = max(wait, cooldown_s - a.idle_s)
    if b.last_opponent == a.id:
        wait = max(wait, cooldown_s - b.idle_s)
    return wait


def information_gain(chooser: Entry, opponent: Entry) -> float:
    """The expected reduction of the variance of ``chooser``'s rating by one game against
    ``opponent`` (Elo points squared), at the ratings and deviations they hold.

    Against an opponent of exactly known strength a game at win probability p carries Fisher
    information I = c² p (1 − p) about the chooser (c = ln 10 / 400), with p averaged over the
    chooser's own uncertainty (the probit approximation); a Gaussian posterior of variance σ²
    then shrinks by σ⁴ I / (1 + σ² I). The opponent's own uncertainty takes its share of what
    the result reveals: the gain is scaled by σ² / (σ² + σ_o²).
    """
    var = chooser.deviation**2
    if var <= 0.0:
        return 0.0
    spread = math.sqrt(1.0 + 3.0 * _C**2 * var / math.pi**2)
    p = 1.0 / (1.0 + math.exp(-_C * (chooser.rating - opponent.rating) / spread))
    info = _C**2 * p * (1.0 - p)
    return var * var * info / (1.0 + var * info) * var / (var + opponent.deviation**2)


def may_meet(a: Entry, b: Entry) -> bool:
    """Whether ``a`` and ``b`` may ever meet on the ladder (rematch and load rules aside)."""
    if a.id == b.id:
        return False
    return (a.house and b.house) or a.owner != b.owner


def _eligible(
    a: Entry, b: Entry, *, house_vs_house: bool, rematch_cooldown_s: float | None
) -> bool:
    """``rematch_cooldown_s`` None: no rematch at all (the first round of a pass)."""
    if not may_meet(a, b):
        return False
    if a.house and b.house and not house_vs_house:
        return False
    if rematch_cooldown_s is None:
        return a.last_opponent != b.id and b.last_opponent != a.id
    return rematch_wait_s(a, b, cooldown_s=rematch_cooldown_s) <= 0.0


def choose_opponent(
    entry: Entry,
    pool: _Pool,
    *,
    first_window: float = FIRST_WINDOW,
    house_vs_house: bool,
    rematch_cooldown_s: float | None = None,
    held: Mapping[int, Entry] | None = None,
) -> Entry | None:
    """The opponent ``entry`` takes from ``pool`` by the rules above, or None.

    ``rematch_cooldown_s`` None allows no rematch; a number allows one after that cool-down.
    ``held``: the entries at the ratings they hold (the pool's are drawn), by id; an uncertain
    chooser weighs its candidates by ``information_gain`` on them. None: nearest alone.
    """
    met = {opponent: entry.opponents.count(opponent) for opponent in entry.opponents}
    last_met: dict[int, int] = {}
    for index, opponent in enumerate(entry.opponents):
        last_met.setdefault(opponent, index)
    window: float | None = None
    best: tuple[tuple[float, ...], Entry] | None = None
    informed = held is not None and held[entry.id].deviation > UNCERTAIN_DEVIATION
    unmet = 0  # candidates never met lately, seen so far
    for distance, other in pool.by_distance(entry):
        if window is not None and distance > window:
            break
        if not _eligible(
            entry, other, house_vs_house=house_vs_house, rematch_cooldown_s=rematch_cooldown_s
        ):
            continue
        if window is None:
            window = first_window
            while distance > window:
                window *= 2
        # Met least often, then least recently (a higher index in the list is longer ago).
        key: tuple[float, ...] = (
            met.get(other.id, 0),
            -last_met.get(other.id, len(entry.opponents)),
            -information_gain(held[entry.id], held[other.id])
            if informed and held is not None
            else distance,
            other.load,
        )
        if best is None or key < best[0]:
            best = (key, other)
        if other.id not in met:
            unmet += 1
            if not informed or unmet >= CANDIDATES:
                break  # nothing later in the scan can beat what was seen
    return best[1] if best else None


def pair_entries(
    entries: Sequence[Entry],
    *,
    rng: random.Random | None = None,
    first_window: float = FIRST_WINDOW,
    house_play: bool = True,
    house_load_cap: float = float("inf"),
    max_pairs: int | None = None,
    rematch_cooldown_s: float = REMATCH_COOLDOWN_S,
) -> list[tuple[Entry, Entry]]:
    """Pairs for one pass over the free ``entries`` of one ladder; seat order is random.

    ``house_play`` False keeps house bots from playing each other in this pass (the caller
    knows when user matches are waiting for a worker). ``max_pairs`` stops the pass after
    that many pairs: those who have played least lately are served first. Each round (users,
    then house bots among themselves) first pairs without any rematch, then lets those still
    alone meet the opponent of a last match whose ``rematch_cooldown_s`` has passed.
    """
    if max_pairs is not None and max_pairs <= 0:
        return []
    rng = rng or random.Random()
    given = {e.id: e for e in entries}
    order = [
        e._replace(rating=e.rating + e.deviation * rng.gauss(0.0, 1.0)) if e.deviation else e
        for e in entries
    ]
    rng.shuffle(order)  # ties in recent games are broken at random
    order.sort(key=lambda e: e.load)
    pool = _Pool.of(order)
    pairs: list[tuple[Entry, Entry]] = []

    def pair(a: Entry, b: Entry) -> None:
        pool.remove(a)
        pool.remove(b)
        a, b = given[a.id], given[b.id]  # the entries as given, not at their drawn ratings
        pairs.append((a, b) if rng.random() < 0.5 else (b, a))

    def full() -> bool:
        return max_pairs is not None and len(pairs) >= max_pairs

    def round_(choosers: list[Entry], *, house_vs_house: bool) -> None:
        for cooldown in (None, rematch_cooldown_s):
            for entry in choosers:
                if full():
                    return
                if entry not in pool:
                    continue
                opponent = choose_opponent(
                    entry,
                    pool,
                    first_window=first_window,
                    house_vs_house=house_vs_house,
                    rematch_cooldown_s=cooldown,
                    held=given,
                )
                if opponent is not None:
                    pair(entry, opponent)

    round_(order, house_vs_house=False)
    # A user still alone here has nobody it may meet now (the rematch round has run): it does
    # not hold the house bots back, and their games among themselves vary their last opponents.
    if house_play and not full():
        houses = [e for e in order if e in pool and e.house and e.load < house_load_cap]
        pool = _Pool.of(houses)
        round_(houses, house_vs_house=True)
    return pairs
