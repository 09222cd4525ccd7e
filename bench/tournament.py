"""A simulated Swiss of house-bot variants with known strengths (JSON on stdout).

``--entrants`` variants of a game's house bots each get a true strength on the Elo scale; each
game's result is drawn from the strengths (logistic win probability, a share of draws), never
played: at 200 entrants a real tournament is thousands of matches. Pairing and standings are
the platform's own code (``arena.tournaments.pairing`` and ``.standings``), round by round as
the scheduler runs them. Reported: rounds, pairings, games, the wall time of pairing and
standings on this machine, and Kendall's tau between the final order and the true strengths,
beside a round robin's on the same entrants (and how many games that costs).

    PYTHONPATH=platform:. .venv/bin/python bench/tournament.py --entrants 200 --seeds 5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from arena.tournaments.pairing import SwissPlayer, round_robin, swiss_pair, swiss_rounds_for
from arena.tournaments.standings import GameResult, standings_compute

from bench._stats import kendall_tau
from games.core import get_game_spec
from games.core.ranking import elo_expected


def order_tau(order: Sequence[int], strength: dict[int, float]) -> float:
    """Kendall's tau-b between an order (best first) and true strengths."""
    return kendall_tau([-place for place in range(len(order))], [strength[e] for e in order])


def game_points(a: float, b: float, draw_share: float, rng: random.Random) -> float:
    """Points of the player of strength ``a`` in one game against ``b``."""
    expected = elo_expected(a, b)  # the simulated truth follows the platform's Elo model
    draw = draw_share * (1 - abs(2 * expected - 1))  # draws are likeliest between equals
    roll = rng.random()
    if roll < draw:
        return 0.5
    return 1.0 if rng.random() < expected else 0.0


@dataclass
class SwissRun:
    """One simulated Swiss."""

    rounds: int
    pairings: int
    games: int
    pairing_s: float
    standings_s: float
    tau: float
    winner_is_strongest: bool
    wall_s: float = 0.0


@dataclass
class RobinRun:
    """One simulated round robin."""

    games: int
    seconds: float
    tau: float


def simulate_swiss(
    strength: dict[int, float], rounds: int, games: int, draw_share: float, rng: random.Random
) -> SwissRun:
    ids = sorted(strength)
    results: list[GameResult] = []
    byes: dict[int, int] = {}
    opponents: dict[int, set[int]] = {e: set() for e in ids}
    balance = dict.fromkeys(ids, 0)
    last: dict[int, int | None] = dict.fromkeys(ids)
    pairing_s = standings_s = 0.0
    pairings = 0
    scores = dict.fromkeys(ids, 0.0)
    for _ in range(rounds):
        players = [
            SwissPlayer(
                id=e,
                score=scores[e],
                seed=e,
                opponents=frozenset(opponents[e]),
                seat_balance=balance[e],
                last_seat=last[e],
                had_bye=e in byes,
            )
            for e in ids
        ]
        began = time.perf_counter()
        planned = swiss_pair(players)
        pairing_s += time.perf_counter() - began
        for p in planned:
            if p.second is None:
                byes[p.first] = byes.get(p.first, 0) + 1
                continue
            pairings += 1
            opponents[p.first].add(p.second)
            opponents[p.second].add(p.first)
            for leg in range(games):
                s0, s1 = (p.first, p.second) if leg % 2 == 0 else (p.second, p.first)
                results.append(
                    GameResult(s0, s1, game_points(strength[s0], strength[s1], draw_share, rng))
                )
                balance[s0] += 1
                balance[s1] -= 1
                last[s0], last[s1] = 0, 1
        began = time.perf_counter()
        table = standings_compute(ids, results, byes=byes, bye_points=float(games))
        standings_s += time.perf_counter() - began
        scores = {row.entrant: row.score for row in table}
    order = [row.entrant for row in table]
    return SwissRun(
        rounds=rounds,
        pairings=pairings,
        games=len(results),
        pairing_s=pairing_s,
        standings_s=standings_s,
        tau=order_tau(order, strength),
        winner_is_strongest=order[0] == max(strength, key=strength.__getitem__),
    )


def simulate_round_robin(
    strength: dict[int, float], games: int, draw_share: float, rng: random.Random
) -> RobinRun:
    ids = sorted(strength)
    began = time.perf_counter()
    results = []
    for planned in round_robin(ids):
        for p in planned:
            if p.second is None:
                continue
            for leg in range(games):
                s0, s1 = (p.first, p.second) if leg % 2 == 0 else (p.second, p.first)
                results.append(
                    GameResult(s0, s1, game_points(strength[s0], strength[s1], draw_share, rng))
                )
    table = standings_compute(ids, results)
    return RobinRun(
        games=len(results),
        seconds=time.perf_counter() - began,
        tau=order_tau([row.entrant for row in table], strength),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=5, help="independent fields to average")
    parser.add_argument("--games-per-pairing", type=int, default=2)
    parser.add_argument("--extra-rounds", type=int, default=2, help="beyond ceil(log2 n)")
    parser.add_argument("--spread", type=float, default=200.0, help="sd of strengths (Elo)")
    parser.add_argument("--draw-share", type=float, default=0.2)
    parser.add_argument("--game", default="chess", help="whose house bots the variants are")
    parser.add_argument(
        "--sweep", type=int, nargs="*", default=[0, 2, 4, 8], help="extra rounds to compare"
    )
    args = parser.parse_args()
    bots = sorted(get_game_spec(args.game).bots)
    rounds = swiss_rounds_for(args.entrants, extra=args.extra_rounds)
    runs: list[tuple[SwissRun, RobinRun]] = []
    began = time.perf_counter()
    for seed in range(args.seeds):
        rng = random.Random(seed)
        strength = {e: rng.gauss(1500.0, args.spread) for e in range(1, args.entrants + 1)}
        swiss_began = time.perf_counter()
        swiss = simulate_swiss(strength, rounds, args.games_per_pairing, args.draw_share, rng)
        swiss.wall_s = time.perf_counter() - swiss_began
        robin = simulate_round_robin(strength, args.games_per_pairing, args.draw_share, rng)
        runs.append((swiss, robin))

    def mean(side: str, key: str) -> float:
        index = 0 if side == "swiss" else 1
        return round(statistics.fmean(float(getattr(r[index], key)) for r in runs), 4)

    swiss_taus = [r[0].tau for r in runs]
    winners = sum(r[0].winner_is_strongest for r in runs)
    # How tau grows with rounds: the case for ceil(log2 n) + a few (docs/tournaments.md).
    by_extra: dict[str, float] = {}
    for extra in args.sweep:
        n_rounds = swiss_rounds_for(args.entrants, extra=extra)
        taus = []
        for seed in range(args.seeds):
            rng = random.Random(1000 + seed)
            strength = {e: rng.gauss(1500.0, args.spread) for e in range(1, args.entrants + 1)}
            run = simulate_swiss(strength, n_rounds, args.games_per_pairing, args.draw_share, rng)
            taus.append(run.tau)
        by_extra[str(n_rounds)] = round(statistics.fmean(taus), 4)
    report = {
        "entrants": args.entrants,
        "variants_of": {"game": args.game, "house_bots": bots},
        "strength_sd_elo": args.spread,
        "seeds": args.seeds,
        "games_per_pairing": args.games_per_pairing,
        "swiss": {
            "rounds": rounds,
            "pairings": mean("swiss", "pairings"),
            "games": mean("swiss", "games"),
            "wall_s_mean": mean("swiss", "wall_s"),
            "pairing_s_mean": mean("swiss", "pairing_s"),
            "standings_s_mean": mean("swiss", "standings_s"),
            "kendall_tau_mean": round(statistics.fmean(swiss_taus), 4),
            "kendall_tau_min": round(min(swiss_taus), 4),
            "winner_is_strongest": f"{winners}/{len(runs)}",
        },
        "swiss_tau_by_rounds": by_extra,
        "round_robin": {
            "rounds": args.entrants - 1 + args.entrants % 2,
            "games": mean("round_robin", "games"),
            "wall_s_mean": mean("round_robin", "seconds"),
            "kendall_tau_mean": mean("round_robin", "tau"),
        },
        "total_wall_s": round(time.perf_counter() - began, 3),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
