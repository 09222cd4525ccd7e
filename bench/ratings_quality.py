"""Ratings quality: how well the ladder's ratings order a population of known strengths.

Runs the platform's own matchmaking (``arena.ratings.pairing.pair_entries``), Elo per match
(``games.core.ranking.elo_update`` and ``elo_deviation_update``, with the recent-games and
recent-opponents bookkeeping of ``arena.ratings.ladder`` that ``rating_apply`` keeps) and the
ladder's refit (``arena.ratings.bradley_terry.ladder_fit``: the Bradley-Terry fit of every
result under a normal prior at the spread of the ladder's own ratings, what
``services.ladder_refit`` stores on the rows every ``--refit-s`` seconds) on a simulated ladder:
each agent has a true strength on the Elo scale, a match between a and b is won by a with
probability 1 / (1 + 10 ** ((b - a) / 400)) (a draw with probability ``--draws``), no sandbox
and no database. Every pass pairs all free entries, as the periodic task does, on the ratings
the rows hold; all matches of a pass finish before the next one, ``PASS_EVERY`` later.

Reports, for what the ladder shows (the last refit moved by Elo since):
- the calibration of the 95 % intervals (the share of true strengths inside them, ratings and
  strengths both taken from their population's mean) after 10, 30 and 100 games, beside that
  of Elo's own interval without refits (``elo_only``, the ladder before the refits);
- Kendall's tau between ratings and true strengths after 10, 20, 30 and 100 games per agent
  (mean over seeds), for the platform's matchmaking and for random pairing (partners drawn at
  random); beside each, ``mle_*``: the tau of a maximum-likelihood fit of the same games at
  that moment (what the rows show right after a refit);
- ``tau_bound``: the most any rating could reach with that many games per agent even if every
  game were played at even odds against an opponent of exactly known strength (each game then
  carries the most information a win/loss result can, and the rating's standard error is
  400 / ln 10 / sqrt(n (1 - draws) / 4); with normal errors, Kendall's tau is
  2 / pi * asin(sd / sqrt(sd^2 + se^2))), with the platform's tau as a share of it;
- ``information_per_game``: the mean Fisher information of the games played, at the true
  strengths, as a share of an even-odds game's (the bound assumes 1.0 for every game);
- ``tau_oracle_pairing``: pairing on the true strengths (the same rules), a reference for what
  even odds in every game would give;
- ``tau_truth_pairing_after_10_games``: designs that know the true strengths (neighbours after
  noise of sd 0 to 300 Elo, or random pairs), each scored by the maximum-likelihood fit of its
  games, and ``tau_share_of_bound_truth_pairing_best``, the best of them as a share of the
  bound: what pairing reaches even knowing what the platform only estimates;
- ``calibration_95.scale_shown``: the slope of the ratings shown on the true strengths, 1 when
  the fit keeps their scale.
Targets: tau >= 0.9 within 30 games per agent; intervals covering 93 to 97 % of true
strengths; tau >= 97 % of the bound after 10 games.

Run: `.venv/bin/python bench/ratings_quality.py [--agents 200] [--spreads 300,400] [--seeds 5]`.
Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]

from arena.ratings import ladder  # noqa: E402
from arena.ratings.bradley_terry import ladder_fit  # noqa: E402
from arena.ratings.pairing import Entry, pair_entries  # noqa: E402

import games.core.ranking as elo_schedule  # noqa: E402
from bench._stats import kendall_tau  # noqa: E402
from games.core.ranking import (  # noqa: E402
    ELO_START,
    ELO_START_DEVIATION,
    Z_95,
    EloSide,
    elo_deviation_update,
    elo_expected,
    elo_update,
)

CHECKPOINTS = (10, 20, 30, 100)
#: Where the calibration of the 95 % intervals is reported.
CALIBRATION = (10, 30, 100)
#: Simulated time between two passes (the beat's interval is seconds; matches take minutes).
PASS_EVERY = timedelta(minutes=10)
#: The platform's default ``ARENA_LADDER_REFIT_S``.
REFIT_EVERY_S = 120.0


@dataclass
class Agent:
    """One simulated ladder entry: its true strength and what its rating row would hold."""

    id: int
    strength: float
    rating: float = ELO_START
    deviation: float = ELO_START_DEVIATION
    games: int = 0
    load: float = 0.0
    last_played: datetime | None = None
    opponents: list[int] = field(default_factory=list)


def bradley_terry(
    players: int, games: list[tuple[int, int, float]], iterations: int = 200
) -> list[float]:
    """Maximum-likelihood strengths (Elo scale) from the same games, by Hunter's MM algorithm,
    each player also drawing once against a fixed 1200 (a weak prior, so an unbeaten player
    stays finite): the best any rating computed from these results could be, as a reference."""
    wins = [0.5] * players  # the prior's draw
    meetings: list[dict[int, float]] = [{} for _ in range(players)]
    for a, b, score_a in games:
        wins[a] += score_a
        wins[b] += 1.0 - score_a
        meetings[a][b] = meetings[a].get(b, 0.0) + 1.0
        meetings[b][a] = meetings[b].get(a, 0.0) + 1.0
    gamma = [1.0] * players
    for _ in range(iterations):
        gamma = [
            wins[i]
            / (
                1.0 / (gamma[i] + 1.0)
                + sum(n / (gamma[i] + gamma[j]) for j, n in meetings[i].items())
            )
            for i in range(players)
        ]
    return [ELO_START + 400.0 * math.log10(g) for g in gamma]


Update = Callable[[EloSide, EloSide, float], tuple[float, float]]


def fixed_k_ratings(a: EloSide, b: EloSide, score_a: float) -> tuple[float, float]:
    """The platform's Elo before its K schedule: K 40 for the first 20 games, 20 after."""
    expected_a = elo_expected(a.rating, b.rating)
    k_a, k_b = (40.0 if s.games < 20 else 20.0 for s in (a, b))
    return a.rating + k_a * (score_a - expected_a), b.rating + k_b * (expected_a - score_a)


def play(
    a: Agent,
    b: Agent,
    rng: random.Random,
    draws: float,
    now: datetime,
    update: Update = elo_update,
) -> float:
    """One match drawn from the true strengths, applied as ``rating_apply`` does."""
    p_a = elo_expected(a.strength, b.strength)
    drawn = rng.random() < draws
    score_a = 0.5 if drawn else (1.0 if rng.random() < p_a else 0.0)
    side_a, side_b = EloSide(a.rating, a.games), EloSide(b.rating, b.games)
    new_a, new_b = update(side_a, side_b, score_a)
    dev_a, dev_b = elo_deviation_update(side_a, side_b, a.deviation, b.deviation)
    for me, other, new, dev in ((a, b, new_a, dev_a), (b, a, new_b, dev_b)):
        me.rating = new
        me.deviation = dev
        me.games += 1
        me.load = ladder.decayed_load(me.load, me.last_played, now) + 1.0
        me.last_played = now
        me.opponents = ladder.opponents_after(me.opponents, other.id)
    return score_a


def refit(
    population: list[Agent], played: list[tuple[int, int, float]], *, population_prior: bool
) -> None:
    """``services.ladder_refit``: the fit of every result, per pair as ``PairRecord`` keeps
    them, warm-started from the rows' ratings, written on the rows; ``population_prior`` False:
    the weak prior alone (``--ladder-prior weak``, the refit before the population prior)."""
    pairs: dict[tuple[int, int], list[float]] = {}
    for a, b, score_a in played:
        key, score = ((a, b), score_a) if a < b else ((b, a), 1.0 - score_a)
        record = pairs.setdefault(key, [0.0, 0.0])
        record[0] += 1.0
        record[1] += score
    found = ladder_fit(
        [(a, b, m, s) for (a, b), (m, s) in pairs.items()],
        start={a.id: a.rating for a in population},
        population_prior=population_prior,
    ).of()
    for agent in population:
        if agent.id in found:
            agent.rating, agent.deviation = found[agent.id]


def simulate(
    *,
    agents: int,
    spread: float,
    draws: float,
    seed: int,
    pairing: str,
    update: Update = elo_update,
    mle: bool = True,
    refit_every_s: float | None = REFIT_EVERY_S,
    population_prior: bool = True,
) -> dict[str, float]:
    """Kendall's tau at each checkpoint (mean games per agent) for one population.

    ``refit_every_s`` None: Elo alone, never refitted (the ladder before the refits)."""
    rng = random.Random(seed)
    population = [Agent(i, rng.gauss(ELO_START, spread)) for i in range(agents)]
    by_id = {a.id: a for a in population}
    now = datetime(2026, 1, 1, tzinfo=UTC)
    last_refit = now
    taus: dict[str, float] = {}
    played: list[tuple[int, int, float]] = []
    information: list[float] = []
    checkpoints = list(CHECKPOINTS)
    while checkpoints:
        if pairing in ("platform", "oracle"):
            entries = [
                Entry(
                    id=a.id,
                    owner=a.id,
                    rating=a.rating if pairing == "platform" else a.strength,
                    deviation=a.deviation if pairing == "platform" else 0.0,
                    load=ladder.decayed_load(a.load, a.last_played, now),
                    opponents=tuple(a.opponents),
                )
                for a in population
            ]
            pairs = [(by_id[x.id], by_id[y.id]) for x, y in pair_entries(entries, rng=rng)]
        else:
            shuffled = population[:]
            rng.shuffle(shuffled)
            pairs = list(zip(shuffled[::2], shuffled[1::2], strict=False))
        for a, b in pairs:
            expected = elo_expected(a.strength, b.strength)
            information.append(4 * expected * (1 - expected))
            played.append((a.id, b.id, play(a, b, rng, draws, now, update)))
        now += PASS_EVERY
        if refit_every_s is not None and (now - last_refit).total_seconds() >= refit_every_s:
            refit(population, played, population_prior=population_prior)
            last_refit = now
        mean_games = statistics.fmean(a.games for a in population)
        while checkpoints and mean_games >= checkpoints[0]:
            n = checkpoints.pop(0)
            truth = [a.strength for a in population]
            taus[f"after_{n}_games"] = kendall_tau([a.rating for a in population], truth)
            taus[f"coverage_after_{n}_games"] = coverage(population)
            taus[f"scale_after_{n}_games"] = scale(population)
            taus[f"information_after_{n}_games"] = statistics.fmean(information)
            if mle:
                taus[f"mle_after_{n}_games"] = kendall_tau(bradley_terry(agents, played), truth)
    return taus


#: The noise (Elo sd) put on the true strengths by ``truth_pairing_taus``; None: random pairs.
TRUTH_PAIRING_NOISE: tuple[float | None, ...] = (0.0, 50.0, 100.0, 200.0, 300.0, None)


def truth_pairing_taus(
    *, agents: int, spread: float, draws: float, seeds: int, games: int = 10
) -> dict[str, float]:
    """A reference for pairing: designs that *know* the true strengths. Each pass sorts the
    population by its true strength plus normal noise of sd ``noise`` and pairs neighbours (no
    noise: games at even odds; more: a wider mix of opponents), ``games`` passes; the
    maximum-likelihood fit of those games is scored. Returns Kendall's tau after ``games``
    games per agent for each noise of ``TRUTH_PAIRING_NOISE`` (``random``: random pairs), mean
    over seeds. Pairing on the truth buys information per game (even odds) at the price of a
    graph of games where distant entries are compared only through long chains: knowing the
    strengths does not by itself order better (docs/architecture.md has the figures)."""
    found: dict[str, float] = {}
    for noise in TRUTH_PAIRING_NOISE:
        taus = []
        for seed in range(seeds):
            rng = random.Random(seed)
            strengths = [rng.gauss(ELO_START, spread) for _ in range(agents)]
            played: list[tuple[int, int, float]] = []
            for _ in range(games):
                if noise is None:
                    drawn = [rng.random() for _ in strengths]
                else:
                    drawn = [x + rng.gauss(0.0, noise) for x in strengths]
                order = sorted(range(agents), key=drawn.__getitem__)
                for a, b in zip(order[::2], order[1::2], strict=False):
                    p_a = elo_expected(strengths[a], strengths[b])
                    score_a = 0.5 if rng.random() < draws else float(rng.random() < p_a)
                    played.append((a, b, score_a))
            taus.append(kendall_tau(bradley_terry(agents, played), strengths))
        found["random" if noise is None else f"noise_{noise:g}"] = round(statistics.fmean(taus), 3)
    return found


def coverage(population: list[Agent]) -> float:
    """The share of true strengths inside their rating's 95 % interval (ratings and strengths
    both measured from their population's mean: a rating scale has no origin of its own)."""
    shift = statistics.fmean(a.rating for a in population) - statistics.fmean(
        a.strength for a in population
    )
    inside = [abs(a.rating - shift - a.strength) <= Z_95 * a.deviation for a in population]
    return sum(inside) / len(inside)


def scale(population: list[Agent]) -> float:
    """The slope of the ratings on the true strengths (both from their population's mean): 1 when
    the ratings keep the strengths' scale, above 1 when the fit stretches it (then the
    strongest and weakest sit outside their intervals), below 1 when a prior shrinks it."""
    mean_rating = statistics.fmean(a.rating for a in population)
    mean_strength = statistics.fmean(a.strength for a in population)
    spread = sum((a.strength - mean_strength) ** 2 for a in population)
    if spread == 0:
        return 1.0
    return sum((a.rating - mean_rating) * (a.strength - mean_strength) for a in population) / spread


def mean_taus(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.fmean(r[key] for r in runs), 3) for key in runs[0]}


def tau_bound(spread: float, games: int, draws: float) -> float:
    """Kendall's tau of ratings whose only error is the Cramér-Rao bound of ``games`` games at
    even odds (see the module's text): no rating of such results orders better on average."""
    if games <= 0 or draws >= 1:
        return 0.0
    se = 400 / math.log(10) / math.sqrt(games * (1 - draws) / 4)
    return 2 / math.pi * math.asin(spread / math.hypot(spread, se))


def population(args: argparse.Namespace, spread: float) -> dict[str, object]:
    """Every figure for one spread of true strengths, as the mean over ``args.seeds`` seeds."""
    common = {
        "agents": args.agents,
        "spread": spread,
        "draws": args.draws,
        "refit_every_s": args.refit_s,
        "population_prior": args.ladder_prior == "population",
    }
    found: dict[str, object] = {
        "strength_sd_elo": spread,
        "tau_bound": {
            f"after_{n}_games": round(tau_bound(spread, n, args.draws), 3) for n in CHECKPOINTS
        },
    }
    for pairing in ("platform", "random", "oracle"):
        found[f"tau_{pairing}_pairing"] = mean_taus(
            [simulate(**common, seed=s, pairing=pairing) for s in range(args.seeds)]
        )
    elo_common = {key: value for key, value in common.items() if key != "refit_every_s"}
    elo_only = mean_taus(
        [
            simulate(**elo_common, seed=s, pairing="platform", mle=False, refit_every_s=None)
            for s in range(args.seeds)
        ]
    )
    found["elo_only_tau_platform_pairing"] = elo_only
    found["fixed_k_tau_platform_pairing"] = mean_taus(
        [
            simulate(
                **elo_common,
                seed=s,
                pairing="platform",
                update=fixed_k_ratings,
                mle=False,
                refit_every_s=None,
            )
            for s in range(args.seeds)
        ]
    )
    tau_30 = found["tau_platform_pairing"]["after_30_games"]  # type: ignore[index]
    found["target_met"] = tau_30 >= 0.9
    platform: dict[str, float] = found["tau_platform_pairing"]  # type: ignore[assignment]
    bound: dict[str, float] = found["tau_bound"]  # type: ignore[assignment]
    found["tau_share_of_bound_platform"] = {
        key: round(platform[key] / bound[key], 3) for key in bound
    }
    truth = truth_pairing_taus(
        agents=args.agents, spread=spread, draws=args.draws, seeds=args.seeds
    )
    found["tau_truth_pairing_after_10_games"] = truth
    found["tau_share_of_bound_truth_pairing_best"] = round(
        max(truth.values()) / bound["after_10_games"], 3
    )
    found["tau_share_of_bound_platform_target_met"] = (
        found["tau_share_of_bound_platform"]["after_10_games"] >= 0.97  # type: ignore[index]
    )
    found["calibration_95"] = {
        "shown": {f"after_{n}_games": platform[f"coverage_after_{n}_games"] for n in CALIBRATION},
        "elo_only": {
            f"after_{n}_games": elo_only[f"coverage_after_{n}_games"] for n in CALIBRATION
        },
        "goal": "0.93 to 0.97",
        # The slope of what the ladder shows on the true strengths (``scale``).
        "scale_shown": {
            f"after_{n}_games": platform[f"scale_after_{n}_games"] for n in CALIBRATION
        },
    }
    found["calibration_target_met"] = all(
        0.93 <= platform[f"coverage_after_{n}_games"] <= 0.97 for n in CALIBRATION
    )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=200)
    parser.add_argument(
        "--spreads", default="300,400,500,600", help="sds of true strengths (Elo), comma-separated"
    )
    parser.add_argument("--draws", type=float, default=0.0, help="probability of a draw")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument(
        "--refit-s", type=float, default=REFIT_EVERY_S, help="seconds between ladder refits"
    )
    parser.add_argument(
        "--ladder-prior",
        choices=("population", "weak"),
        default="population",
        help="the refit's prior: the platform's (a normal prior at the population's spread), "
        "or the weak prior alone (the refit before it)",
    )
    args = parser.parse_args()
    spreads = [float(x) for x in args.spreads.split(",") if x.strip()]
    result: dict[str, object] = {
        "agents": args.agents,
        "draw_probability": args.draws,
        "seeds": args.seeds,
        "refit_every_s": args.refit_s,
        "ladder_prior": args.ladder_prior,
        "pass_every_s": PASS_EVERY.total_seconds(),
        "target": "tau >= 0.9 within 30 games per agent",
        "k_schedule": (
            f"max({elo_schedule.ELO_K_FLOOR:g}, {elo_schedule.ELO_K_SCALE:g} / "
            f"(games + {elo_schedule.ELO_K_OFFSET}))"
        ),
        "populations": [population(args, spread) for spread in spreads],
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
