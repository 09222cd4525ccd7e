"""Reads for ratings: leaderboard pages and an agent's rating history.

A page of a ladder costs the same few queries whatever the size of the ladder: the aggregates
a row shows are kept on the rating row (``services.rating_apply``), the orderings are served by
indexes (``Rating.Meta.indexes``), and only one page of rows is read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Case, Exists, F, OuterRef, Q, QuerySet, Subquery, Value, When
from django.urls import reverse
from django.utils import timezone

from arena.matches.models import IN_FLIGHT_STATUSES, Match, Participant
from arena.matches.selectors import (
    latest_ranked_match_ids,
    latest_ranked_match_ids_query,
    match_queue_wait,
)
from arena.ratings import intervals, ladder
from arena.ratings.models import Rating, RatingChange, figure_mean
from arena.ratings.pairing import Entry, may_meet, rematch_wait_s
from arena.submissions.models import Agent, Submission
from games.core import LadderFigure, get_game_spec
from games.core.presenter import number
from games.core.ranking import (
    ELO_START,
    Z_95,
    RankRange,
    elo_is_provisional,
    payoff_summary_of_sums,
)
from games.core.record import reason_text

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
    #: The rows as the page shows them, every figure already formatted and every link made
    #: (``leaderboard_cells``): the template only places strings, 50 rows cost no formatting.
    cells: list[dict[str, Any]] = field(default_factory=list)
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


def _ranked_part(min_matches: int) -> Q:
    """The head of a mean-payoff ladder's order: ranked entries with a mean payoff. Among
    them ``_ordering`` is ``-mean_payoff, -rating, id``, the order of index
    ``rating_by_payoff``; every other entry comes after them."""
    return Q(games__gte=min_matches, mean_payoff__isnull=False)


def _ordered_ids(
    rows: QuerySet[Rating], *, ranking: str, min_matches: int, offset: int, limit: int
) -> list[int]:
    """The ids of ``rows[offset : offset + limit]`` in ``_ordering``, read on the rating table
    alone and in index order: a page costs the rows before it, not a sort of the whole ladder.

    A mean-payoff ladder is read in two parts: its head (``_ranked_part``, index
    ``rating_by_payoff``), then the rest (entries not ranked yet, usually few) when the page
    reaches past the head.
    """
    if ranking != "mean_payoff":
        ordered = rows.order_by(*_ordering(ranking, min_matches)).values_list("id", flat=True)
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
    ordered = rest.order_by(*_ordering(ranking, min_matches)).values_list("id", flat=True)
    return ids + list(ordered[skip : skip + limit - len(ids)])


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


def _row(
    r: dict[str, Any],
    rank: int,
    ranking: str,
    min_matches: int,
    figures: tuple[LadderFigure, ...],
) -> dict[str, Any]:
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


def fixed(value: float | None, places: int) -> str:
    """``value`` with ``places`` decimals, rounded half up as the ``floatformat`` filter does;
    an en dash for none."""
    if value is None:
        return "–"
    rounded = Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return str(abs(rounded) if rounded == 0 else rounded)


def url_maker(name: str, *first: Any) -> Any:
    """``pk -> the URL of view`` ``name`` (its arguments ``first``, then ``pk``) with one URL
    reversal, not one a row."""
    sentinel = 987654321
    template = reverse(name, args=[*first, sentinel]).replace(str(sentinel), "{}")
    return template.format


def agent_url_maker() -> Any:
    """``agent_id -> its page's URL`` (``url_maker``)."""
    return url_maker("submissions:agent")


def _range_text(row: dict[str, Any]) -> str:
    best, worst = row.get("rank_best"), row.get("rank_worst")
    if best is None or worst is None:
        return ""
    return str(RankRange(best, worst))


def leaderboard_cells(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What each row shows, formatted once here (and what the home page's tops show)."""
    url = agent_url_maker()
    return [
        {
            **row,
            "url": url(row["agent_id"]),
            "rating_text": fixed(row["rating"], 0),
            "mean_payoff_text": fixed(row["mean_payoff"], 2),
            "mean_payoff_short": fixed(row["mean_payoff"], 1),
            "interval_text": None
            if row["payoff_interval"] is None
            else fixed(row["payoff_interval"], 2),
            "record": f"{row['wins']}/{row['losses']}/{row['draws']}",
            "rank_text": str(row["rank"]),
            # "3–5" where intervals overlap (the rank itself when the range is known to be one
            # place or is not known).
            "rank_range_text": _range_text(row),
            "rating_interval_text": fixed(row["rating_interval"], 0),
            "games_text": str(row["games"]),
            # The interval beside a ranked entry's mean payoff.
            "interval_shown": row["ranked"]
            and row["mean_payoff"] is not None
            and row["payoff_interval"] is not None,
            "figure_texts": ["–" if v is None else str(v) for v in row.get("figure_values", ())],
        }
        for row in rows
    ]


def leaderboard_page(
    *, game: str, page: int = 1, per_page: int = PER_PAGE, search: str = "", kind: str = ""
) -> LeaderboardPage:
    """One page of ``game``'s current ladder, best first, optionally only the rows whose agent
    name or owner contains ``search``; each row keeps its rank on the whole ladder.

    Five queries whatever the ladder's size: the count, the page's ids, its rows, their rank
    ranges (``intervals.page_rank_ranges``) and (when searching or filtering) the ranks of the
    page's rows.
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
    page_ids = _ordered_ids(
        rows,
        ranking=ranking,
        min_matches=min_matches,
        offset=offset,
        limit=per_page,
    )
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
    figures = spec.ladder_figures
    board = [_row(r, ranks[r["id"]], ranking, min_matches, figures) for r in chunk]
    low_key, high_key = intervals.BOUNDS[ranking]
    ranges = intervals.page_rank_ranges(
        game=game,
        version=spec.version,
        ranking=ranking,
        min_matches=min_matches,
        bounds={r["id"]: (r[low_key], r[high_key]) for r in chunk},
        ranked={r["id"]: row["ranked"] for r, row in zip(chunk, board, strict=True)},
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
        cells=leaderboard_cells(board),
        kind=kind if kind in ("code", "model") else "",
    )


def leaderboard(*, game: str) -> list[dict[str, Any]]:
    """The first page of ``game``'s ladder (rows only)."""
    return leaderboard_page(game=game).rows


#: An agent page charts at most this many of the latest rating changes.
HISTORY_POINTS = 200


def _cached_rating(submission: Submission) -> tuple[bool, Rating | None]:
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
    cached = [(s, *_cached_rating(s)) for s in versions or ()]
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
    """The agent page's latest ranked matches (all its versions), newest first, each row
    formatted here for the template: the agent's seat and its opponents, links built with one
    URL reversal a kind, numbers printed as the site prints them. One read of the seats of the
    latest matches as values, the ids a subquery of it (``latest_ranked_match_ids_query``), or
    read first where the database cannot combine them: no model instance, no per-cell filter,
    whatever the number of rows."""
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
    match_url, agent_url = url_maker("matches:detail"), agent_url_maker()
    rows = []
    for match_id in ids:
        mine = next((p for p in seats[match_id] if p[3] == agent_id), None)
        if mine is None:
            continue
        _, status, seat, _, version, _, _, outcome, reason, score, before, after = mine
        rows.append(
            {
                "match_id": str(match_id),
                "url": match_url(match_id),
                "status": status,
                "seat": str(seat),
                "version": str(version),
                "opponents": [
                    {"url": agent_url(p[3]), "label": f"{p[5]} v{p[4]}", "owner": p[6]}
                    for p in seats[match_id]
                    if p is not mine
                ],
                "outcome": outcome or "",
                "reason": "" if (reason or "normal") == "normal" else reason_text(reason),
                "score": number(score),
                "elo": "" if after is None else f"{fixed(before, 0)} → {fixed(after, 0)}",
            }
        )
    return rows


def _top_key(ranking: str) -> Any:
    """``_ordering`` of a ladder's top (entries already ranked) as a sort key of its rows."""
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
            parts.append(ladder_rows.order_by(*_ordering(spec.ranking, min_matches)))
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
        {r["id"]: r for r in Rating.objects.filter(pk__in=wanted).values(*_ROW_FIELDS)}
        if wanted
        else {}
    )
    return {
        spec.id: leaderboard_cells(
            [
                _row(fetched[i], rank, spec.ranking, min_matches, spec.ladder_figures)
                for rank, i in enumerate((i for i in ids[spec.id] if i in fetched), start=1)
            ]
        )
        for spec in specs
    }


def leaderboard_top(*, game: str, limit: int = 3) -> list[dict[str, Any]]:
    """The best ``limit`` of one game's ladder (``leaderboard_tops``)."""
    return leaderboard_tops(games=[game], limit=limit)[game]


#: How many candidate opponents ``ladder_wait`` reads at most (free ones first): enough to
#: find one that may be met at once on any ladder where one exists but a few.
WAIT_CANDIDATES = 50


@dataclass(frozen=True)
class LadderWait:
    """Why an entry is not playing a ranked match now, in words for its owner and the API.

    ``state``: ``inactive``, ``playing``, ``queued``, ``next-pass``, ``rematch-cooldown``,
    ``opponents-busy`` or ``no-opponent``; ``paused`` (an auto-pause took it off the ladder:
    ``competitions.selectors.ladder_state``).
    """

    state: str
    text: str
    match_id: int | None = None
    #: When a rematch becomes allowed (``rematch-cooldown``).
    until: datetime | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "text": self.text,
            "match": self.match_id,
            "until": self.until.isoformat() if self.until else None,
        }


def ranked_flight() -> dict[str, Subquery]:
    """Annotations of a submission queryset with its first ranked match in flight (queued or
    running), as ``ladder_wait`` reads it: ``ranked_flight_id`` and ``ranked_flight_status``
    (both empty when none). A page that reads the versions anyway saves ``ladder_wait`` a
    query a version."""
    flight = (
        Match.objects.in_flight()
        .filter(kind=Match.Kind.RANKED, participants__submission=OuterRef("pk"))
        .order_by("id")
    )
    return {
        "ranked_flight_id": Subquery(flight.values("id")[:1]),
        "ranked_flight_status": Subquery(flight.values("status")[:1]),
    }


def ladder_wait(*, submission: Submission) -> LadderWait:
    """Why ``submission`` is (or is not) waiting on its ladder, by the rules of
    ``pairing.pair_entries``: a few queries whatever the size of the ladder (its ranked match
    in flight with the queue ahead of it, or up to ``WAIT_CANDIDATES`` free possible
    opponents, and whether any busy one exists when none is free). A submission read with the
    ``ranked_flight`` annotations is not asked again for its match in flight."""
    if not submission.active or submission.status != Submission.Status.ACCEPTED:
        return LadderWait("inactive", "not active: it plays no ranked match until activated")
    flight: Match | None
    if "ranked_flight_id" in submission.__dict__:
        flight_id = submission.__dict__["ranked_flight_id"]
        flight = (
            None
            if flight_id is None
            else Match(
                id=flight_id,
                kind=Match.Kind.RANKED,
                status=str(submission.__dict__.get("ranked_flight_status") or ""),
            )
        )
    else:
        flight = (
            Match.objects.in_flight()
            .filter(kind=Match.Kind.RANKED, participants__submission=submission)
            .only("id", "kind", "status")
            .order_by("id")
            .first()
        )
    if flight is not None and flight.status == Match.Status.RUNNING:
        return LadderWait("playing", f"in a ranked match now (#{flight.pk})", flight.pk)
    if flight is not None:
        wait = match_queue_wait(flight)
        ahead = wait.ahead if wait else 0
        matches = "match" if ahead == 1 else "matches"
        return LadderWait(
            "queued",
            f"ranked match #{flight.pk} queued behind {ahead} {matches}",
            flight.pk,
        )
    game, version = submission.agent.game, submission.game_version
    now = timezone.now()
    known, mine = _cached_rating(submission)
    if not known:
        mine = Rating.objects.filter(submission=submission).first()
    me = Entry(
        id=submission.pk,
        owner=submission.agent.owner_id,
        rating=mine.rating if mine else ELO_START,
        opponents=tuple(mine.recent_opponents or ()) if mine else (),
        house=bool(submission.house_bot),
        idle_s=ladder.idle_s(mine.last_played if mine else None, now),
    )
    in_flight = Participant.objects.filter(
        submission_id=OuterRef("submission_id"),
        match__kind=Match.Kind.RANKED,
        match__status__in=IN_FLIGHT_STATUSES,
    )
    others = Rating.objects.filter(
        game=game,
        game_version=version,
        submission__active=True,
        submission__status=Submission.Status.ACCEPTED,
    ).exclude(submission=submission)
    if not submission.house_bot:
        others = others.exclude(submission__agent__owner_id=me.owner)
    # Free ones first: up to ``WAIT_CANDIDATES`` of them read in id order (the rating table's
    # key, so the read stops there instead of sorting the whole ladder by "busy"); the busy
    # ones matter only when no free one is left, and then only whether there are any.
    free = list(
        others.filter(~Exists(in_flight))
        .order_by("id")
        .values_list(
            "submission_id",
            "submission__agent__owner_id",
            "submission__house_bot",
            "rating",
            "last_played",
            "recent_opponents",
        )[:WAIT_CANDIDATES]
    )
    cooldown_s = settings.ARENA_REMATCH_COOLDOWN_S
    waits = []
    for sid, owner, house, rating, last_played, opponents in free:
        other = Entry(
            id=sid,
            owner=owner,
            rating=rating,
            opponents=tuple(opponents or ()),
            house=bool(house),
            idle_s=ladder.idle_s(last_played, now),
        )
        if not may_meet(me, other):
            continue
        waits.append(rematch_wait_s(me, other, cooldown_s=cooldown_s))
    interval_s = settings.ARENA_MATCHMAKING_INTERVAL_S
    if any(w <= 0 for w in waits):
        return LadderWait(
            "next-pass",
            f"waiting for the next matchmaking pass (one every {interval_s:g} s)",
        )
    if waits:
        until = now + timedelta(seconds=min(waits))
        return LadderWait(
            "rematch-cooldown",
            (
                "waiting for an opponent: the others are in a match now and the free ones "
                "played you last"
                if others.filter(Exists(in_flight)).exists()
                else "waiting for an opponent: your only possible opponents played you last"
            )
            + f"; a rematch is allowed after {timezone.localtime(until):%H:%M:%S}",
            until=until,
        )
    if free or others.filter(Exists(in_flight)).exists():
        return LadderWait(
            "opponents-busy", "waiting for an opponent: every possible opponent is in a match now"
        )
    return LadderWait(
        "no-opponent",
        "waiting for an opponent: no other owner's agent is active on this ladder yet",
    )
