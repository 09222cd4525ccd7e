"""``arena games`` and ``arena simulate``: the registry and house-bot matches, in-process."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from games.core import (
    InProcessAgentHandle,
    LadderFigure,
    MatchSettings,
    UnknownGameError,
    available_game_ids,
    get_game_spec,
    play_match,
)
from games.core.ranking import elo_ratings, payoff_summary
from games.core.registry import offline_judge


def register(subparsers: Any) -> None:
    """Add ``games`` and ``simulate``."""
    games = subparsers.add_parser("games", help="list the games and their house bots")
    games.add_argument("--json", action="store_true", help="print JSON")
    games.set_defaults(func=cmd_games)

    sim = subparsers.add_parser(
        "simulate", help="play house bots against each other in-process (match i has seed N+i)"
    )
    sim.add_argument("--game", required=True, help="game id, e.g. split-or-steal")
    sim.add_argument("--bots", required=True, help="two house bot names, comma-separated")
    sim.add_argument("--seed", type=int, default=0, help="seed of the first match (default 0)")
    sim.add_argument("--matches", type=int, default=1, help="how many matches (default 1)")
    sim.add_argument("--json", action="store_true", help="print JSON")
    sim.set_defaults(func=cmd_simulate)


def cmd_games(args: argparse.Namespace) -> int:
    """Print every game with its version and house bots."""
    rows: list[dict[str, Any]] = []
    for game_id in available_game_ids():
        spec = get_game_spec(game_id)
        rows.append(
            {
                "id": game_id,
                "title": spec.title,
                "version": spec.version,
                "ranking": spec.ranking,
                "house_bots": list(spec.bots),
            }
        )
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        print(f"{row['id']:<16} v{row['version']}  {row['title']}  (ranked by {row['ranking']})")
        print(f"{'':<16}     house bots: {', '.join(row['house_bots'])}")
    return 0


def simulate(game_id: str, bots: list[str], seed: int, matches: int) -> dict[str, Any]:
    """Play ``matches`` house-bot matches and summarise them (``arena simulate --json``)."""
    spec = get_game_spec(game_id)
    for bot in bots:
        if bot not in spec.bots:
            raise KeyError(f"{game_id} has no house bot {bot!r}; its bots: {', '.join(spec.bots)}")
    results = []
    wins = [0] * len(bots)
    draws = 0
    totals = [0.0] * len(bots)
    for i in range(matches):
        handles = [InProcessAgentHandle(spec.bots[b], b) for b in bots]
        record = play_match(
            game_id,
            handles,
            seed=seed + i,
            settings=MatchSettings(timed=False, keep_stdout=False),
            judge=offline_judge(game_id),
        )
        if record.platform_error:
            raise RuntimeError(f"match with seed {seed + i} failed: {record.platform_error}")
        scores = [s.score for s in record.seats]
        results.append(
            {
                "seed": seed + i,
                "winner": record.winner,
                "scores": scores,
                "reasons": [str(s.reason) for s in record.seats],
                **({"stats": record.stats} if record.stats else {}),
            }
        )
        if record.winner is None:
            draws += 1
        else:
            wins[record.winner] += 1
        totals = [t + s for t, s in zip(totals, scores, strict=True)]
    summary: dict[str, Any] = {
        "wins": wins,
        "draws": draws,
        "mean_scores": [round(t / max(matches, 1), 3) for t in totals],
        **ranking_measure(spec.ranking, bots, results),
    }
    figures = ladder_figures(spec.ladder_figures, len(bots), results)
    if figures:
        summary["figures"] = figures
    return {"game": game_id, "bots": bots, "matches": results, "summary": summary}


def ranking_measure(ranking: str, bots: list[str], results: list[dict[str, Any]]) -> dict[str, Any]:
    """The game's ladder measure over these matches, per seat (``Game.ranking``).

    ``mean_payoff``: each seat's mean score per match with its 95 % interval; ``elo``: each
    seat's Elo after the matches in order (both start at 1200). Both carry ``ranking``.
    """
    if ranking == "mean_payoff":
        measure = []
        for seat in range(len(bots)):
            summary = payoff_summary([m["scores"][seat] for m in results], min_matches=0)
            measure.append(
                {
                    "mean": round(summary.mean, 3),
                    "ci95_low": None if summary.ci_low is None else round(summary.ci_low, 3),
                    "ci95_high": None if summary.ci_high is None else round(summary.ci_high, 3),
                    "matches": summary.matches,
                }
            )
        return {"ranking": ranking, "mean_payoff": measure}
    # Seats, not names: a bot may play itself.
    seats = [str(i) for i in range(len(bots))]
    outcomes = [
        (seats[0], seats[1], 0.5 if m["winner"] is None else 1.0 if m["winner"] == 0 else 0.0)
        for m in results
    ]
    ratings = elo_ratings(outcomes)
    return {"ranking": ranking, "elo": [round(ratings.get(s, 1200.0), 1) for s in seats]}


def ladder_figures(
    figures: Sequence[LadderFigure], seats: int, results: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """The game's own ladder figures (``Game.ladder_figures``, poker's BB/100) per seat: the
    mean over the matches that reported it, as the ladder shows it; empty for a game with none."""
    shown: dict[str, dict[str, Any]] = {}
    for figure in figures:
        means: list[float | None] = []
        for seat in range(seats):
            values = [
                v
                for m in results
                if (v := _seat_value(m.get("stats"), figure.key, seat)) is not None
            ]
            means.append(round(sum(values) / len(values), figure.digits) if values else None)
        shown[figure.key] = {"label": figure.label, "per_seat": means}
    return shown


def _seat_value(stats: object, key: str, seat: int) -> float | None:
    """A seat's value of ``key`` in a match's stats (a list in seat order, or keyed by seat)."""
    values = stats.get(key) if isinstance(stats, dict) else None
    value = values[seat] if isinstance(values, list) and seat < len(values) else None
    if isinstance(values, dict):
        value = values.get(str(seat), values.get(f"p{seat}"))
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def cmd_simulate(args: argparse.Namespace) -> int:
    """``arena simulate``."""
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    if len(bots) != 2:
        print(
            "arena simulate: --bots takes two names, e.g. --bots always-steal,always-split",
            file=sys.stderr,
        )
        return 2
    if args.matches < 1:
        print("arena simulate: --matches must be at least 1", file=sys.stderr)
        return 2
    try:
        out = simulate(args.game, bots, args.seed, args.matches)
    except UnknownGameError as exc:
        print(f"arena simulate: {exc}", file=sys.stderr)
        return 2
    except KeyError as exc:
        print(f"arena simulate: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    for m in out["matches"]:
        who = "draw" if m["winner"] is None else f"{bots[m['winner']]} wins"
        scores = " - ".join(f"{s:g}" for s in m["scores"])
        print(f"seed {m['seed']:>5}: {scores:<20} {who}  ({', '.join(m['reasons'])})")
    s = out["summary"]
    print(
        f"\n{bots[0]} {s['wins'][0]} wins, {bots[1]} {s['wins'][1]} wins, {s['draws']} draws; "
        f"mean scores {s['mean_scores'][0]:g} / {s['mean_scores'][1]:g}"
    )
    if s["ranking"] == "mean_payoff":
        print("ranked by mean payoff per match (95 % interval; a ladder takes it over the field):")
        for bot, m in zip(bots, s["mean_payoff"], strict=True):
            interval = "" if m["ci95_low"] is None else f"  [{m['ci95_low']:g}, {m['ci95_high']:g}]"
            print(f"  {bot}: {m['mean']:g}{interval}")
    else:
        print(f"ranked by Elo (from 1200): {bots[0]} {s['elo'][0]:g}, {bots[1]} {s['elo'][1]:g}")
    for figure in s.get("figures", {}).values():
        shown = ", ".join(
            f"{bot} {'–' if v is None else f'{v:+g}'}"
            for bot, v in zip(bots, figure["per_seat"], strict=True)
        )
        print(f"{figure['label']}: {shown}")
    return 0
