"""``arena strength``: a game's strength table, from a seeded round robin of its house bots.

    arena strength --game simple-card --matches 200 [--seed 0] [--json] [--write]

Every pair of house bots plays ``--matches`` matches (seat-swapped twins on seeds N, N+1, …);
the table gives each pair's wins, draws and mean scores, and the bots in ladder order by the
game's measure (mean payoff or Elo, with Elo always beside it). ``--write`` stores the table as
``games/<game>/strength.json``, which the game's catalog page shows: tables are produced by this
command, never typed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from arena_cli import add_command
from games.core import UnknownGameError, get_game_spec
from games.core.tournament import play_round_robin

#: The file beside each game's rules that ``--write`` produces and the catalog page reads.
STRENGTH_FILE = "strength.json"


def register(subparsers: Any) -> None:
    """Add ``strength``."""
    strength = add_command(
        subparsers,
        "strength",
        "round robin of a game's house bots: the strength table (--write stores it)",
        __doc__,
    )
    strength.add_argument("--game", required=True, help="game id, e.g. simple-card")
    strength.add_argument(
        "--matches", type=int, default=200, help="matches per pair of bots (default 200)"
    )
    strength.add_argument("--seed", type=int, default=0, help="seed of the first match (default 0)")
    strength.add_argument("--note", default="", help="a sentence stored with the table")
    strength.add_argument("--json", action="store_true", help="print the table as JSON")
    strength.add_argument(
        "--write", action="store_true", help=f"store it as games/<game>/{STRENGTH_FILE}"
    )
    strength.add_argument(
        "--quiet", action="store_true", help="no progress on stderr (default: one line a pair)"
    )
    strength.set_defaults(func=cmd_strength)


def strength_table(
    game_id: str, matches: int, seed: int = 0, *, progress: bool = False
) -> dict[str, Any]:
    """Play the round robin and return the table (plain JSON)."""
    began = time.perf_counter()
    seen: set[tuple[str, str]] = set()

    def on_match(a: str, b: str, index: int) -> None:
        if progress and (a, b) not in seen:
            seen.add((a, b))
            print(f"arena strength: {game_id} {a} vs {b} ...", file=sys.stderr, flush=True)

    robin = play_round_robin(game_id, matches_per_pair=matches, seed=seed, on_match=on_match)
    duration_s = time.perf_counter() - began
    played = matches * len(robin.pairs)
    return {
        "game": game_id,
        "version": robin.version,
        "ranking": robin.ranking,
        "matches_per_pair": matches,
        "seed": seed,
        "command": f"arena strength --game {game_id} --matches {matches} --seed {seed} --write",
        "duration_s": round(duration_s, 1),
        "seconds_per_match": round(duration_s / max(played, 1), 2),
        "standings": robin.standings(min_matches=1),
        "pairs": [pair.to_dict() for pair in robin.pairs],
    }


def cmd_strength(args: argparse.Namespace) -> int:
    """``arena strength``."""
    if args.matches < 1:
        print("arena strength: --matches must be at least 1", file=sys.stderr)
        return 2
    try:
        spec = get_game_spec(args.game)
    except UnknownGameError as exc:
        print(f"arena strength: {exc}", file=sys.stderr)
        return 2
    table = strength_table(args.game, args.matches, args.seed, progress=not args.quiet)
    if args.note:
        table["note"] = args.note
    if args.write:
        path = Path(spec.package_dir) / STRENGTH_FILE
        path.write_text(json.dumps(table, indent=2) + "\n", encoding="utf-8")
        print(f"arena strength: wrote {path}", file=sys.stderr)
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    print(render_text(table))
    return 0


def render_text(table: dict[str, Any]) -> str:
    """The table for a terminal."""
    measure = "mean payoff per match" if table["ranking"] == "mean_payoff" else "Elo"
    lines = [
        f"{table['game']} v{table['version']}: {table['matches_per_pair']} matches a pair, "
        f"seeds from {table['seed']}, ranked by {measure} ({table['duration_s']} s)",
        "",
        f"{'rank':>4}  {'bot':<18}{'mean payoff':>12}{'±95%':>9}{'Elo':>8}  W-D-L",
    ]
    for row in table["standings"]:
        ci = "" if row["ci95"] is None else f"{row['ci95']:.1f}"
        lines.append(
            f"{row['rank'] or '-':>4}  {row['bot']:<18}{row['mean_payoff']:>12.2f}{ci:>9}"
            f"{row['elo']:>8.0f}  {row['wins']}-{row['draws']}-{row['losses']}"
        )
    lines += ["", f"{'pair':<36}{'W-D-L (first)':>16}{'mean scores':>20}"]
    for p in table["pairs"]:
        lines.append(
            f"{p['a'] + ' vs ' + p['b']:<36}{p['a_wins']}-{p['draws']}-{p['b_wins']:<8}"
            f"{p['a_mean_score']:>10g} / {p['b_mean_score']:g}"
        )
    return "\n".join(lines)
