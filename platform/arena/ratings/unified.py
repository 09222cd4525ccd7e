"""The boards across games: one Bradley-Terry fit over every game's ladder at once.

Two boards, from the same aggregated results:

* **models**: one row per language model and configuration (model, sampling parameters,
  prompt addition, output mode): its entrants in every game pooled;
* **users**: one row per user, standing in each game for their best agent there (the
  highest-rated of their submissions on that ladder).

Everyone else a board's rows met (house bots; on the models board, uploaded code too) takes part
in the fit as a player of its own, so a model's results against code count, but gets no row.
Each game weighs the same: a game's pairwise results count ``1 / (its matches)``, rescaled so all
weights sum to the matches, so a game with 100 times more matches does not drown the others
(the weighting of Kaggle's Game Arena). A mean-payoff game counts its recorded win, draw or loss,
as the Elo shown beside its payoff ranking does.

Cost: the results are aggregated in the database per (game, first seat's submission, second
seat's submission), one row per pair however many matches they played; the fit then runs on
that small table (``bradley_terry.fit``). Read here; written by ``services.unified_refit``; the
pages read the stored rows (``unified_board``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.db.models import Q

from arena.ratings import bradley_terry
from arena.ratings.bradley_terry import Floats, Ints
from arena.ratings.models import PairRecord, Rating, UnifiedFit, UnifiedStanding
from games.core import available_game_ids, get_game_spec
from games.core.ranking import rank_ranges


@dataclass(frozen=True)
class PairTable:
    """Rated results per pair of entries, as columns: ``games[i]`` (an index into
    ``game_names``), ``first[i]`` < ``second[i]`` (submission ids), the ``matches[i]`` they
    played, ``first_wins[i]`` and ``draws[i]``."""

    game_names: list[str]
    games: Ints
    first: Ints
    second: Ints
    matches: Floats
    first_wins: Floats
    draws: Floats

    @property
    def total(self) -> int:
        return int(self.matches.sum())


def current_ladders() -> dict[str, int]:
    """Each game's current version: the ladders the boards are fitted on."""
    return {game: get_game_spec(game).version for game in available_game_ids()}


def pair_results(ladders: dict[str, int]) -> PairTable:
    """The rated results of the current ladders per pair of entries, as ``rating_apply`` keeps
    them (``PairRecord``): one row a pair, read without counting matches."""
    names = sorted(ladders)
    code = {name: i for i, name in enumerate(names)}
    versions = Q(pk__in=[])
    for game, version in ladders.items():
        versions |= Q(game=game, game_version=version)
    rows = list(
        PairRecord.objects.filter(versions).values_list(
            "game", "first_id", "second_id", "matches", "first_wins", "draws"
        )
    )
    columns = list(zip(*rows, strict=True)) if rows else [(), (), (), (), (), ()]
    return PairTable(
        game_names=names,
        games=np.array([code[g] for g in columns[0]], dtype=np.int64),
        first=np.array(columns[1], dtype=np.int64),
        second=np.array(columns[2], dtype=np.int64),
        matches=np.array(columns[3], dtype=np.float64),
        first_wins=np.array(columns[4], dtype=np.float64),
        draws=np.array(columns[5], dtype=np.float64),
    )


@dataclass
class Entrant:
    """A ladder row as the boards see it."""

    game: str
    submission: int
    agent_id: int
    owner_id: int
    owner: str
    house: bool
    rating: float
    low: float
    high: float
    games: int
    model: str | None
    configuration: str


def _configuration(values: dict[str, Any]) -> str:
    """A short, stable name of a model entrant's configuration (what makes two entrants of one
    model play alike): sampling parameters, output mode and prompt addition."""
    text = json.dumps(
        [
            values["submission__model_entrant__temperature"],
            values["submission__model_entrant__top_p"],
            values["submission__model_entrant__max_tokens"],
            values["submission__model_entrant__json_output"],
            values["submission__model_entrant__system_prompt_addition"],
        ]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def entrants(ladders: dict[str, int]) -> list[Entrant]:
    """Every row of the current ladders, one query."""
    versions = Q()
    for game, version in ladders.items():
        versions |= Q(game=game, game_version=version)
    found = []
    for r in Rating.objects.filter(versions).values(
        "game",
        "submission_id",
        "rating",
        "rating_low",
        "rating_high",
        "games",
        "submission__agent_id",
        "submission__agent__owner_id",
        "submission__agent__owner__username",
        "submission__house_bot",
        "submission__model_entrant__model__name",
        "submission__model_entrant__temperature",
        "submission__model_entrant__top_p",
        "submission__model_entrant__max_tokens",
        "submission__model_entrant__json_output",
        "submission__model_entrant__system_prompt_addition",
    ):
        model = r["submission__model_entrant__model__name"]
        found.append(
            Entrant(
                game=r["game"],
                submission=r["submission_id"],
                agent_id=r["submission__agent_id"],
                owner_id=r["submission__agent__owner_id"],
                owner=r["submission__agent__owner__username"],
                house=bool(r["submission__house_bot"]),
                rating=r["rating"],
                low=r["rating_low"],
                high=r["rating_high"],
                games=r["games"],
                model=model,
                configuration=_configuration(dict(r)) if model else "",
            )
        )
    return found


@dataclass
class BoardRow:
    """What the fit makes of one shown row before it is stored."""

    key: str
    label: str
    per_game: dict[str, dict[str, Any]] = field(default_factory=dict)


def board_players(
    board: str, rows: Iterable[Entrant]
) -> tuple[dict[int, str], dict[str, BoardRow]]:
    """``(submission -> player key, shown key -> row)`` of one board.

    Submissions left out of the map take no part (a user's other agents on the users board);
    players whose key is not among the shown rows are the fit's anchors.
    """
    player: dict[int, str] = {}
    # The entry that stands for a row in a game: the best-rated one (ties: the oldest).
    standing_for: dict[tuple[str, str], Entrant] = {}
    labels: dict[str, str] = {}
    for e in rows:
        if board == UnifiedStanding.Board.MODELS and e.model is not None:
            key = f"model:{e.model}:{e.configuration}"
            labels[key] = f"{e.model} ({e.configuration})"
            player[e.submission] = key  # every entrant of the configuration counts
        elif board == UnifiedStanding.Board.USERS and not e.house:
            key = f"user:{e.owner_id}"
            labels[key] = e.owner
        else:
            player[e.submission] = f"submission:{e.submission}"
            continue
        best = standing_for.get((key, e.game))
        if best is None or (e.rating, -e.submission) > (best.rating, -best.submission):
            standing_for[(key, e.game)] = e
    shown = {key: BoardRow(key, label) for key, label in labels.items()}
    for (key, game), e in sorted(standing_for.items()):
        if board == UnifiedStanding.Board.USERS:
            player[e.submission] = key  # only the user's best agent in the game counts
        shown[key].per_game[game] = {
            "rating": round(e.rating, 1),
            "low": round(e.low, 1),
            "high": round(e.high, 1),
            "matches": e.games,
            "agent_id": e.agent_id,
            "submission": e.submission,
        }
    return player, shown


@dataclass(frozen=True)
class FittedRow:
    key: str
    label: str
    rating: float
    low: float
    high: float
    matches: int
    per_game: dict[str, dict[str, Any]]


def fit_board(
    board: str,
    results: PairTable,
    rows: list[Entrant],
    previous: dict[str, float] | None = None,
) -> list[FittedRow]:
    """The board's rows, best first. ``previous`` (a row's key -> its last fitted rating)
    warm-starts the fit; other players start from their Elo (the mean of their games')."""
    player, shown = board_players(board, rows)
    if not shown or not len(results.first):
        return []
    keys = list(shown) + sorted({key for key in player.values() if key not in shown})
    index = {key: i for i, key in enumerate(keys)}
    top = int(max(results.first.max(), results.second.max(), max(player, default=0)))
    lookup = np.full(top + 1, -1, dtype=np.int64)
    for submission, key in player.items():
        lookup[submission] = index[key]
    first, second = lookup[results.first], lookup[results.second]
    # Pairs with an entry that takes no part, or of one player with itself, carry nothing.
    kept = (first >= 0) & (second >= 0) & (first != second)
    if not kept.any():
        return []
    first, second = first[kept], second[kept]
    games, matches = results.games[kept], results.matches[kept]
    score = results.first_wins[kept] + results.draws[kept] / 2
    # Each game weighs the same: its results count total / (games × its matches).
    per_game = np.bincount(games, matches, minlength=len(results.game_names))
    played = per_game > 0
    weight_of_game = np.zeros(len(per_game))
    weight_of_game[played] = matches.sum() / (played.sum() * per_game[played])
    fitted = bradley_terry.fit(len(keys), first, second, matches, score, weight_of_game[games])
    behind = np.bincount(first, matches, minlength=len(keys)) + np.bincount(
        second, matches, minlength=len(keys)
    )
    low, high = fitted.low(), fitted.high()
    out = [
        FittedRow(
            key=key,
            label=row.label,
            rating=float(fitted.rating[index[key]]),
            low=float(low[index[key]]),
            high=float(high[index[key]]),
            matches=int(behind[index[key]]),
            per_game=row.per_game,
        )
        for key, row in shown.items()
        if behind[index[key]]  # a row with no rated result has nothing to show
    ]
    out.sort(key=lambda r: (-r.rating, r.key))
    return out


def _start(
    keys: list[str], player: dict[int, str], rows: list[Entrant], previous: dict[str, float]
) -> Floats:
    """Where the fit starts: a row's last fitted rating, else its entries' mean Elo (the
    ladder's own estimate, on the same scale)."""
    elo: dict[str, list[float]] = {}
    for e in rows:
        key = player.get(e.submission)
        if key is not None:
            elo.setdefault(key, []).append(e.rating)
    return np.array(
        [
            previous.get(key, sum(elo.get(key, [1200.0])) / len(elo.get(key, [1200.0])))
            for key in keys
        ],
        dtype=np.float64,
    )


@dataclass(frozen=True)
class UnifiedBoard:
    """One board as its page and the API show it."""

    board: str
    fit: UnifiedFit | None
    games: list[str]
    rows: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return {
            "board": self.board,
            "fitted": self.fit.fitted.isoformat() if self.fit else None,
            "matches": self.fit.matches if self.fit else 0,
            "games": self.games,
            "rows": self.rows,
        }


def standing_rows(fitted: list[FittedRow]) -> list[dict[str, Any]]:
    """Ranks and rank ranges of a board's rows (among the rows themselves)."""
    ranges = rank_ranges([(r.low, r.high) for r in fitted])
    return [
        {
            "key": r.key,
            "label": r.label,
            "rank": rank,
            "rank_best": span.best,
            "rank_worst": span.worst,
            "rating": round(r.rating, 1),
            "rating_low": round(r.low, 1),
            "rating_high": round(r.high, 1),
            "matches": r.matches,
            "per_game": r.per_game,
        }
        for rank, (r, span) in enumerate(zip(fitted, ranges, strict=True), start=1)
    ]


def unified_board(*, board: str, limit: int = 500) -> UnifiedBoard:
    """The latest fit's rows of ``board`` (``models`` or ``users``), best first: two queries."""
    fit = UnifiedFit.objects.order_by("-id").first()
    if fit is None:
        return UnifiedBoard(board, None, [], [])
    rows = list(
        UnifiedStanding.objects.filter(fit=fit, board=board)
        .order_by("rank", "id")
        .values(
            "key",
            "label",
            "rank",
            "rank_best",
            "rank_worst",
            "rating",
            "rating_low",
            "rating_high",
            "matches",
            "per_game",
        )[:limit]
    )
    return UnifiedBoard(board, fit, list(fit.games), [dict(row) for row in rows])
