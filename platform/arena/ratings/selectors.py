"""Reads for ratings: leaderboard pages and an agent's rating history.

A page of a ladder costs the same few queries whatever the size of the ladder: the aggregates
a row shows are kept on the rating row (``services.rating_apply``), the orderings are served by
indexes (``Rating.Meta.indexes``), and only one page of rows is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Case, Count, F, Q, QuerySet, Value, When

from arena.ratings import elo, ladder
from arena.ratings.models import Rating, RatingChange
from arena.submissions.models import Agent
from games.core import available_game_ids, get_game_spec

#: Rows per leaderboard page (web and API); the API accepts up to ``MAX_PER_PAGE``.
PER_PAGE = 50
MAX_PER_PAGE = 200
#: What the API and the pages call each measure.
MEASURES = {
    "elo": "Elo rating on win/draw/loss",
    "mean_payoff": "mean payoff per match against the field",
}


@dataclass(frozen=True)
class LeaderboardPage:
    """One page of a ladder, best first, with what ranks it."""

    game: str
    version: int
    #: ``"elo"`` or ``"mean_payoff"`` (``Game.ranking``).
    ranking: str
    #: Mean-payoff ladders rank an entry once it has this many rated matches.
    min_matches: int
    rows: list[dict[str, Any]]
    page: int
    pages: int
    per_page: int
    total: int
    search: str
    #: Whether any row on the page has a BB/100 figure (poker reports it).
    shows_bb_per_100: bool
    #: The ``kind`` filter: "" (all), "code" or "model".
    kind: str = ""

    @property
    def measure(self) -> str:
        """The ranking measure in words."""
        return MEASURES[self.ranking]

    def as_dict(self) -> dict[str, Any]:
        """The API's shape."""
        return {
            "game": self.game,
            "version": self.version,
            "ranking": self.ranking,
            "measure": self.measure,
            "min_matches": self.min_matches if self.ranking == "mean_payoff" else None,
            "page": self.page,
            "pages": self.pages,
            "per_page": self.per_page,
            "total": self.total,
            "search": self.search,
            "kind": self.kind,
            "rows": self.rows,
        }


def _ordering(ranking: str, min_matches: int) -> list[Any]:
    """The ladder's order: Elo; or mean payoff, entries with enough matches first."""
    if ranking == "mean_payoff":
        return [
            Case(When(games__gte=min_matches, then=Value(0)), default=Value(1)),
            F("mean_payoff").desc(nulls_last=True),
            "-rating",
            "id",
        ]
    return ["-rating", "id"]


def _order_sql(ranking: str) -> str:
    """``_ordering`` as SQL for the window that gives searched rows their ladder rank."""
    if ranking == "mean_payoff":
        return (
            "CASE WHEN games >= %s THEN 0 ELSE 1 END, "
            "CASE WHEN mean_payoff IS NULL THEN 1 ELSE 0 END, mean_payoff DESC, rating DESC, id"
        )
    return "rating DESC, id"


def _ladder(game: str, version: int) -> QuerySet[Rating]:
    return Rating.objects.filter(game=game, game_version=version)


def _ranks(
    ids: list[int], *, game: str, version: int, ranking: str, min_matches: int
) -> dict[int, int]:
    """The ladder rank of each of ``ids`` (one query, whatever the page)."""
    if not ids:
        return {}
    table = Rating._meta.db_table
    params: list[Any] = [min_matches] if ranking == "mean_payoff" else []
    placeholders = ", ".join(["%s"] * len(ids))
    order = _order_sql(ranking)
    sql = (
        f"SELECT id, ladder_rank FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY {order}) "  # noqa: S608
        f"AS ladder_rank FROM {table} WHERE game = %s AND game_version = %s) ranked "
        f"WHERE id IN ({placeholders})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, game, version, *ids])
        return dict(cursor.fetchall())


#: What a leaderboard row reads: plain values, not four model instances a row.
_ROW_FIELDS = (
    "id",
    "submission_id",
    "rating",
    "games",
    "wins",
    "losses",
    "draws",
    "payoff_sum",
    "payoff_squares",
    "bb_per_100_sum",
    "bb_per_100_matches",
    "submission__version",
    "submission__active",
    "submission__agent_id",
    "submission__agent__name",
    "submission__agent__owner__username",
    # A model entrant's model (a left join: no query more); None for code and house bots.
    "submission__model_entrant__model__name",
)

#: The leaderboard's ``kind`` filter: every entry, uploaded code (and house bots), or models.
KINDS = ("", "code", "model")


def _row(r: dict[str, Any], rank: int, ranking: str, min_matches: int) -> dict[str, Any]:
    payoff = ladder.payoff_summary(r["payoff_sum"], r["payoff_squares"], r["games"])
    bb_matches = r["bb_per_100_matches"]
    bb = r["bb_per_100_sum"] / bb_matches if bb_matches else None
    return {
        "rank": rank,
        "agent": f"{r['submission__agent__name']} v{r['submission__version']}",
        "agent_id": r["submission__agent_id"],
        "submission": r["submission_id"],
        "owner": r["submission__agent__owner__username"],
        "kind": "model" if r["submission__model_entrant__model__name"] else "code",
        "model": r["submission__model_entrant__model__name"],
        "rating": round(r["rating"], 1),
        "games": r["games"],
        "wins": r["wins"],
        "losses": r["losses"],
        "draws": r["draws"],
        "provisional": elo.is_provisional(r["games"]),
        "active": r["submission__active"],
        "bb_per_100": round(bb, 1) if bb is not None else None,
        "mean_payoff": round(payoff.mean, 2) if payoff.mean is not None else None,
        "payoff_interval": round(payoff.half_width, 2) if payoff.half_width is not None else None,
        # Mean-payoff ladders: has the entry played enough matches to be ranked by it?
        "ranked": ranking != "mean_payoff" or r["games"] >= min_matches,
    }


def leaderboard_page(
    *, game: str, page: int = 1, per_page: int = PER_PAGE, search: str = "", kind: str = ""
) -> LeaderboardPage:
    """One page of ``game``'s current ladder, best first, optionally only the rows whose agent
    name or owner contains ``search``; each row keeps its rank on the whole ladder.

    Four queries whatever the ladder's size: the count, the page's ids, its rows, and (when
    searching) the ranks of the page's rows.
    """
    spec = get_game_spec(game)
    ranking = spec.ranking
    min_matches = settings.ARENA_RANKING_MIN_MATCHES
    per_page = max(1, min(per_page, MAX_PER_PAGE))
    search = search.strip()[:64]
    rows = _ladder(game, spec.version)
    if search:
        rows = rows.filter(
            Q(submission__agent__name__icontains=search)
            | Q(submission__agent__owner__username__icontains=search)
        )
    if kind in ("code", "model"):
        rows = rows.filter(submission__model_entrant__isnull=kind == "code")
    total = rows.count()
    pages = max(1, -(-total // per_page))
    page = max(1, min(page, pages))
    offset = (page - 1) * per_page
    # The page's ids first, ordered on the rating table alone (an index, or a top-N sort of one
    # table), then its rows with their agent and owner: joining first would sort the whole
    # joined ladder.
    ordered = rows.order_by(*_ordering(ranking, min_matches)).values_list("id", flat=True)
    page_ids = list(ordered[offset : offset + per_page])
    fetched = {r["id"]: r for r in Rating.objects.filter(pk__in=page_ids).values(*_ROW_FIELDS)}
    chunk = [fetched[i] for i in page_ids]
    if search or kind in ("code", "model"):
        ranks = _ranks(
            page_ids,
            game=game,
            version=spec.version,
            ranking=ranking,
            min_matches=min_matches,
        )
    else:
        ranks = {row_id: offset + i for i, row_id in enumerate(page_ids, start=1)}
    board = [_row(r, ranks[r["id"]], ranking, min_matches) for r in chunk]
    return LeaderboardPage(
        game=game,
        version=spec.version,
        ranking=ranking,
        min_matches=min_matches,
        rows=board,
        page=page,
        pages=pages,
        per_page=per_page,
        total=total,
        search=search,
        shows_bb_per_100=any(row["bb_per_100"] is not None for row in board),
        kind=kind if kind in ("code", "model") else "",
    )


def leaderboard(*, game: str) -> list[dict[str, Any]]:
    """The first page of ``game``'s ladder (rows only)."""
    return leaderboard_page(game=game).rows


def ladder_sizes() -> dict[str, int]:
    """How many entries each game's current ladder has (one query for every game)."""
    current = {game: get_game_spec(game).version for game in available_game_ids()}
    sizes = dict.fromkeys(current, 0)
    counted = (
        Rating.objects.filter(game__in=current)
        .values("game", "game_version")
        .annotate(entries=Count("id"))
    )
    for row in counted:
        if current.get(row["game"]) == row["game_version"]:
            sizes[row["game"]] = row["entries"]
    return sizes


#: An agent page charts at most this many of the latest rating changes.
HISTORY_POINTS = 200


def rating_history(*, agent: Agent, limit: int = HISTORY_POINTS) -> list[dict[str, Any]]:
    """The latest ``limit`` rating changes of the agent's submissions, oldest first."""
    latest = (
        RatingChange.objects.filter(rating__submission__agent=agent)
        .order_by("-id")
        .values_list("match_id", "rating__submission__version", "before", "after", "created")[
            :limit
        ]
    )
    return [
        {"match": match, "version": version, "before": before, "after": after, "at": at}
        for match, version, before, after, at in reversed(list(latest))
    ]


def leaderboard_top(*, game: str, limit: int = 3) -> list[dict[str, Any]]:
    """The best ``limit`` of ``game``'s current ladder by its own measure, for the home page
    (one query a game). A mean-payoff ladder's top holds only entries with enough matches to be
    ranked: a newcomer with one lucky match is not "top of the ladder"."""
    spec = get_game_spec(game)
    min_matches = settings.ARENA_RANKING_MIN_MATCHES
    ladder_rows = _ladder(game, spec.version)
    if spec.ranking == "mean_payoff":
        ladder_rows = ladder_rows.filter(games__gte=min_matches)
    top = ladder_rows.order_by(*_ordering(spec.ranking, min_matches)).values(*_ROW_FIELDS)[:limit]
    return [_row(r, rank, spec.ranking, min_matches) for rank, r in enumerate(top, start=1)]
