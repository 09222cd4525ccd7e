"""Reads for ratings: leaderboard pages, the home page's tops, an agent's rating history and
its ranked matches, as values. How the pages print them is ``presenter.py``'s; why an entry is
(not) playing now, ``waits.py``'s.

A page of a ladder costs the same few queries whatever the size of the ladder: the aggregates
a row shows are kept on the rating row (``services.rating_apply``), the orderings are served by
indexes (``Rating.Meta.indexes``), and only one page of rows is read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Case, F, Q, QuerySet, Value, When

from arena.matches.models import Participant
from arena.matches.selectors import latest_ranked_match_ids, latest_ranked_match_ids_query
from arena.ratings import intervals
from arena.ratings.models import Rating, RatingChange, figure_mean
from arena.submissions.models import Agent, Submission
from games.core import LadderFigure, get_game_spec
from games.core.ranking import Z_95, elo_is_provisional, payoff_summary_of_sums

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
    #: The game's own figures, each a column (``GamePackage.ladder_figures``: poker's BB/100).
    figures: tuple[LadderFigure, ...] = ()
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
            "figures": [
                {"key": f.key, "label": f.label, "description": f.description} for f in self.figures
            ],
            "kind": self.kind,
            "rows": [{k: v for k, v in row.items() if k != "figure_values"} for row in self.rows],
        }


def ladder_ordering(ranking: str, min_matches: int) -> list[Any]:
    """The ladder's order: Elo; or mean payoff, entries with enough matches first."""
    if ranking == "mean_payoff":
        return [
            Case(When(games__gte=min_matches, then=Value(0)), default=Value(1)),
            F("mean_payoff").desc(nulls_last=True),
            "-rating",
            "id",
        ]
    return ["-rating", "id"]


def _ranked_part(min_matches: int) -> Q:
    """The head of a mean-payoff ladder's order: ranked entries with a mean payoff. Among
    them ``ladder_ordering`` is ``-mean_payoff, -rating, id``, the order of index
    ``rating_by_payoff``; every other entry comes after them."""
    return Q(games__gte=min_matches, mean_payoff__isnull=False)


def _ordered_ids(
    rows: QuerySet[Rating], *, ranking: str, min_matches: int, offset: int, limit: int
) -> list[int]:
    """The ids of ``rows[offset : offset + limit]`` in ``ladder_ordering``, read on the rating table
    alone and in index order: a page costs the rows before it, not a sort of the whole ladder.

    A mean-payoff ladder is read in two parts: its head (``_ranked_part``, index
    ``rating_by_payoff``), then the rest (entries not ranked yet, usually few) when the page
    reaches past the head.
    """
    if ranking != "mean_payoff":
        ordered = rows.order_by(*ladder_ordering(ranking, min_matches)).values_list("id", flat=True)
        return list(ordered[offset : offset + limit])
    first = _ranked_part(min_matches)
    ids = list(
        rows.filter(first)
        .order_by("-mean_payoff", "-rating", "id")
        .values_list("id", flat=True)[offset : offset + limit]
    )
    if len(ids) == limit:
        return ids
    # The page ends past the head: its size is known from what was read, unless the page
    # starts past it too (then it is counted).
    head = offset + len(ids) if ids or not offset else rows.filter(first).count()
    skip = max(0, offset - head)
    rest = rows.filter(Q(games__lt=min_matches) | Q(mean_payoff__isnull=True))
    ordered = rest.order_by(*ladder_ordering(ranking, min_matches)).values_list("id", flat=True)
    return ids + list(ordered[skip : skip + limit - len(ids)])


def _order_sql(ranking: str) -> str:
    """``ladder_ordering`` as SQL for the window that gives searched rows their ladder rank."""
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
ROW_FIELDS = (
    "id",
    "submission_id",
    "rating",
    "deviation",
    "rating_low",
    "rating_high",
    "payoff_low",
    "payoff_high",
    "games",
    "wins",
    "losses",
    "draws",
    "payoff_sum",
    "payoff_squares",
    "figure_sums",
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


def ladder_row(
    r: dict[str, Any],
    rank: int,
    ranking: str,
    min_matches: int,
    figures: tuple[LadderFigure, ...],
) -> dict[str, Any]:
    """One ladder row (``ROW_FIELDS`` as read) as the API, the downloads and the pages have
    it: measures rounded to what is shown, the game's figures as means."""
    payoff = payoff_summary_of_sums(r["payoff_sum"], r["payoff_squares"], r["games"])
    shown = {f.key: figure_mean(r["figure_sums"], f.key) for f in figures}
    values = [
        None if shown[f.key] is None else round(float(shown[f.key] or 0.0), f.digits)
        for f in figures
    ]
    return {
        "rank": rank,
        "agent": f"{r['submission__agent__name']} v{r['submission__version']}",
        "agent_id": r["submission__agent_id"],
        "submission": r["submission_id"],
        "owner": r["submission__agent__owner__username"],
        "kind": "model" if r["submission__model_entrant__model__name"] else "code",
        "model": r["submission__model_entrant__model__name"],
        "rating": round(r["rating"], 1),
        # The rating's 95 % interval (``games.core.ranking.elo_interval``) and its half-width.
        "rating_interval": round(Z_95 * r["deviation"], 1),
        "rating_low": round(r["rating_low"], 1),
        "rating_high": round(r["rating_high"], 1),
        # The places the entry may hold given the intervals (``intervals.page_rank_ranges``);
        # filled in by the page, None where the entry takes no part in the ranking.
        "rank_best": None,
        "rank_worst": None,
        "games": r["games"],
        "wins": r["wins"],
        "losses": r["losses"],
        "draws": r["draws"],
        "provisional": elo_is_provisional(r["games"]),
        "active": r["submission__active"],
        "figures": dict(zip(shown, values, strict=True)),
        # The same, in the page's column order (templates cannot index a dict by a variable).
        "figure_values": values,
        "mean_payoff": round(payoff.mean, 2) if payoff.matches else None,
        "payoff_interval": round(payoff.half_width, 2) if payoff.half_width is not None else None,
        "payoff_low": None if r["payoff_low"] is None else round(r["payoff_low"], 2),
        "payoff_high": None if r["payoff_high"] is None else round(r["payoff_high"], 2),
        # Mean-payoff ladders: has the entry played enough matches to be ranked by it?
        "ranked": ranking != "mean_payoff" or r["games"] >= min_matches,
    }


def leaderboard_page(
    *, game: str, page: int = 1, per_page: int = PER_PAGE, search: str = "", kind: str = ""
) -> LeaderboardPage:
    """One page of ``game``'s current ladder, best first, optionally only the rows whose agent
    name or owner contains ``search``; each row keeps its rank on the whole ladder.

    Four queries whatever the ladder's size: the counts (the ladder's size and its ranked
    entries, ``intervals.ladder_counts``), the page's ids, its rows, their rank ranges
    (``intervals.page_rank_ranges``); searching or filtering counts the rows it keeps and adds
    the ranks of the page's rows.
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
    ranked_total: int | None = None
    if search or kind in ("code", "model"):
        total = rows.count()
    else:
        # The whole ladder: its size and the rank ranges' count of ranked entries in one scan.
        total, ranked_total = intervals.ladder_counts(
            rows, ranking=ranking, min_matches=min_matches
        )
    pages = max(1, -(-total // per_page))
    page = max(1, min(page, pages))
    offset = (page - 1) * per_page
    # The page's ids first, ordered on the rating table alone (an index, or a top-N sort of one
    # table), then its rows with their agent and owner: joining first would sort the whole
    # joined ladder.
    page_ids = _ordered_ids(
        rows,
        ranking=ranking,
        min_matches=min_matches,
        offset=offset,
        limit=per_page,
    )
    fetched = {r["id"]: r for r in Rating.objects.filter(pk__in=page_ids).values(*ROW_FIELDS)}
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
    figures = spec.ladder_figures
    board = [ladder_row(r, ranks[r["id"]], ranking, min_matches, figures) for r in chunk]
    low_key, high_key = intervals.BOUNDS[ranking]
    ranges = intervals.page_rank_ranges(
        game=game,
        version=spec.version,
        ranking=ranking,
        min_matches=min_matches,
        bounds={r["id"]: (r[low_key], r[high_key]) for r in chunk},
        ranked={r["id"]: row["ranked"] for r, row in zip(chunk, board, strict=True)},
        total=ranked_total,
    )
    for r, row in zip(chunk, board, strict=True):
        if r["id"] in ranges:
            row["rank_best"], row["rank_worst"] = ranges[r["id"]].best, ranges[r["id"]].worst
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
        figures=figures,
        kind=kind if kind in ("code", "model") else "",
    )


#: An agent page charts at most this many of the latest rating changes.
HISTORY_POINTS = 200


def cached_rating(submission: Submission) -> tuple[bool, Rating | None]:
    """Whether the submission's rating was read with it (``select_related("rating")``), and
    that rating (None: it has none)."""
    if not Submission.rating.is_cached(submission):
        return False, None
    try:
        return True, submission.rating
    except Rating.DoesNotExist:
        return True, None


def rating_history(
    *, agent: Agent, limit: int = HISTORY_POINTS, versions: Sequence[Submission] | None = None
) -> list[dict[str, Any]]:
    """The latest ``limit`` rating changes of the agent's submissions, oldest first.

    Read per rating (index ``rating_change_latest``: the newest ``limit`` of one rating) and
    merged, so the cost follows the agent's versions and ``limit``, not its history's length:
    one query where the database combines limited reads (PostgreSQL), else one a rating, after
    one for the ratings unless ``versions`` come with them (``select_related("rating")``).
    """
    cached = [(s, *cached_rating(s)) for s in versions or ()]
    if versions is not None and all(known for _, known, _ in cached):
        ratings = [(r.pk, s.version) for s, _, r in cached if r is not None]
    else:
        ratings = list(
            Rating.objects.filter(submission__agent=agent).values_list("pk", "submission__version")
        )
    version_of = dict(ratings)
    parts = [
        RatingChange.objects.filter(rating_id=rating_id)
        .order_by("-id")
        .values_list("id", "rating_id", "match_id", "before", "after")[:limit]
        for rating_id in version_of
    ]
    found: list[tuple[int, int, int | None, float, float]] = []
    if len(parts) > 1 and connection.features.supports_slicing_ordering_in_compound:
        found = list(parts[0].union(*parts[1:], all=True))
    else:
        for part in parts:
            found += part
    found.sort(reverse=True)
    return [
        {"match": match, "version": version_of[rating_id], "before": before, "after": after}
        for _, rating_id, match, before, after in reversed(found[:limit])
    ]


#: What the agent page reads of each seat of its ranked matches.
_AGENT_MATCH_SEAT = (
    "match_id",
    "match__status",
    "seat",
    "submission__agent_id",
    "submission__version",
    "submission__agent__name",
    "submission__agent__owner__username",
    "outcome",
    "reason",
    "score",
    "rating_before",
    "rating_after",
)


def agent_ranked_rows(
    *, agent_id: int, versions: Sequence[int] | None = None, limit: int = 30
) -> list[dict[str, Any]]:
    """The agent page's latest ranked matches (all its versions), newest first: the agent's
    seat and its opponents' (``presenter.agent_ranked_cells`` prints them). One read of the
    seats of the latest matches as values, the ids a subquery of it
    (``latest_ranked_match_ids_query``), or read first where the database cannot combine them:
    no model instance whatever the number of rows."""
    newest = latest_ranked_match_ids_query(agent_id=agent_id, limit=limit, versions=versions)
    if newest is None:  # read apart, then their seats
        ids: list[int] = latest_ranked_match_ids(agent_id=agent_id, limit=limit, versions=versions)
        found = Participant.objects.filter(match_id__in=ids)
    else:  # the ids as a subquery of the seats' read: one query
        found = Participant.objects.filter(match_id__in=newest)
    seats: dict[int, list[tuple[Any, ...]]] = {}
    for seat in found.order_by("match_id", "seat").values_list(*_AGENT_MATCH_SEAT):
        seats.setdefault(seat[0], []).append(seat)
    if newest is not None:
        ids = sorted(seats, reverse=True)
    rows = []
    for match_id in ids:
        mine = next((p for p in seats[match_id] if p[3] == agent_id), None)
        if mine is None:
            continue
        _, status, seat, _, version, _, _, outcome, reason, score, before, after = mine
        rows.append(
            {
                "match_id": match_id,
                "status": status,
                "seat": seat,
                "version": version,
                "opponents": [
                    {"agent_id": p[3], "name": p[5], "version": p[4], "owner": p[6]}
                    for p in seats[match_id]
                    if p is not mine
                ],
                "outcome": outcome,
                "reason": reason,
                "score": score,
                "rating_before": before,
                "rating_after": after,
            }
        )
    return rows


def _top_key(ranking: str) -> Any:
    """``ladder_ordering`` of a ladder's top (entries already ranked) as a sort key of its rows."""
    if ranking == "mean_payoff":
        return lambda r: (
            r["mean_payoff"] is None,
            -(r["mean_payoff"] or 0.0),
            -r["rating"],
            r["id"],
        )
    return lambda r: (-r["rating"], r["id"])


def leaderboard_tops(*, games: Sequence[str], limit: int = 3) -> dict[str, list[dict[str, Any]]]:
    """The best ``limit`` of each game's current ladder by its own measure, for the home page,
    in two queries: the ids (each game's part read in index order, never a sort of its ladder;
    one query where the database combines limited reads, PostgreSQL, else one a part), then
    their rows.
    A mean-payoff ladder's top holds only entries with enough matches to be ranked: a
    newcomer with one lucky match is not "top of the ladder"."""
    min_matches = settings.ARENA_RANKING_MIN_MATCHES
    specs = [get_game_spec(game) for game in games]
    parts = []
    for spec in specs:
        ladder_rows = _ladder(spec.id, spec.version)
        if spec.ranking == "mean_payoff":
            # Ranked entries only: the head (index ``rating_by_payoff``), then any without a
            # mean payoff (``_ordered_ids``).
            ranked = ladder_rows.filter(games__gte=min_matches)
            parts.append(
                ranked.filter(_ranked_part(min_matches)).order_by("-mean_payoff", "-rating", "id")
            )
            parts.append(ranked.filter(mean_payoff__isnull=True).order_by("-rating", "id"))
        else:
            parts.append(ladder_rows.order_by(*ladder_ordering(spec.ranking, min_matches)))
    # On the rating table alone: combined, the plan stays cheap (joined parts took longer to
    # plan than to run).
    limited = [part.values("id", "game", "rating", "mean_payoff")[:limit] for part in parts]
    found: list[Mapping[str, Any]] = []
    if limited and connection.features.supports_slicing_ordering_in_compound:
        found = list(limited[0].union(*limited[1:], all=True))
    else:
        for part in limited:
            found += part
    ids: dict[str, list[int]] = {}
    for spec in specs:
        best = sorted((r for r in found if r["game"] == spec.id), key=_top_key(spec.ranking))
        ids[spec.id] = [r["id"] for r in best[:limit]]
    wanted = [i for game_ids in ids.values() for i in game_ids]
    fetched = (
        {r["id"]: r for r in Rating.objects.filter(pk__in=wanted).values(*ROW_FIELDS)}
        if wanted
        else {}
    )
    return {
        spec.id: [
            ladder_row(fetched[i], rank, spec.ranking, min_matches, spec.ladder_figures)
            for rank, i in enumerate((i for i in ids[spec.id] if i in fetched), start=1)
        ]
        for spec in specs
    }


def leaderboard_top(*, game: str, limit: int = 3) -> list[dict[str, Any]]:
    """The best ``limit`` of one game's ladder (``leaderboard_tops``)."""
    return leaderboard_tops(games=[game], limit=limit)[game]
