"""Reads for match history, head-to-head and pairs, with who-may-see-what in one place.

Who sees which matches of an agent (docs/using.md, "History and head-to-head"):

* its owner (and staff): every kind (ranked, training, challenge, tournament…);
* anyone else: the public kinds (``PUBLIC_KINDS``: ranked and tournament matches), plus the
  challenges in which they own the other seat. Training matches stay their owner's.

What is shown of a seat the viewer does not own is public: agent, owner, version, outcome, the
reason code (``crash``…), score and ratings, never a forfeit's text, prints or errors.

Every read costs a constant number of queries whatever the agent's history: the agent, its
submission ids, one page of its seats (keyset: ``before`` a match id, newest first) and the other
seats of that page; the head-to-head is one grouped query that names the opponents too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.db import connection
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from arena.accounts.models import User
from arena.competitions.models import LadderPause
from arena.errors import Refused
from arena.matches.models import Match, Participant
from arena.ratings.links import url_maker
from arena.ratings.presenter import fixed
from arena.ratings.waits import INACTIVE, LadderWait, ladder_wait, on_ladder, ranked_flight_of
from arena.submissions.models import Agent, Submission

#: Kinds whose matches anyone may see (a kind another app adds is public only if listed here).
PUBLIC_KINDS = ("ranked", "tournament")
#: The results a history filters by (a seat's outcome).
RESULTS = ("win", "loss", "draw")
HISTORY_PER_PAGE = 25
MAX_PER_PAGE = 100
#: The head-to-head table lists at most this many opponents (most played first).
HEAD_TO_HEAD_LIMIT = 200
#: The agent page's head-to-head summary counts the agent's latest this many matches, so the
#: page costs the same for an agent with 50 matches or 50,000; the head-to-head page counts all.
RECENT_MATCHES = 200


def pause_flag() -> dict[str, Exists]:
    """An annotation of a submission queryset: ``ladder_paused``, whether an auto-pause is in
    force (``agent_panel`` reads the pauses only when one is)."""
    return {
        "ladder_paused": Exists(
            LadderPause.objects.filter(submission=OuterRef("pk"), cleared__isnull=True)
        )
    }


def pause_in_force(*, submission: Submission) -> LadderPause | None:
    """The auto-pause that keeps ``submission`` off its ladder now, if one does."""
    return LadderPause.objects.filter(submission=submission, cleared__isnull=True).first()


def ladder_state(*, submission: Submission) -> LadderWait:
    """``ladder_wait``, except that a submission an auto-pause took off its ladder says so and
    why (state ``paused``, the pause's reason, its latest forfeited match) instead of a bare
    "not active": ``GET /api/submissions/<id>`` reads this."""
    if not submission.active:
        pause = pause_in_force(submission=submission)
        if pause is not None:
            since = pause.created.astimezone(UTC)
            return LadderWait(
                "paused",
                f"paused: off the ladder since {since:%Y-%m-%d %H:%M} UTC: {pause.reason}",
                max(pause.match_ids) if pause.match_ids else None,
            )
    if not on_ladder(submission):
        return INACTIVE
    return ladder_wait(submission=submission, flight=ranked_flight_of(submission))


def history_kinds() -> list[str]:
    """The kinds a history lists: every match kind but self-play validation."""
    return [k for k in Match.Kind.values if k != Match.Kind.VALIDATION]


def sees_everything(*, viewer: object, agent: Agent) -> bool:
    """The agent's owner and staff see all its matches."""
    user_id = getattr(viewer, "pk", None)
    return bool(user_id) and (agent.owner_id == user_id or bool(getattr(viewer, "is_staff", False)))


def _visibility(viewer: object, agent: Agent) -> Q:
    """The matches of ``agent`` that ``viewer`` may see (on ``Participant`` rows)."""
    kinds = history_kinds()
    if sees_everything(viewer=viewer, agent=agent):
        return Q(match__kind__in=kinds)
    public = Q(match__kind__in=[k for k in kinds if k in PUBLIC_KINDS])
    user_id = getattr(viewer, "pk", None)
    if not user_id:
        return public
    theirs = Participant.objects.filter(
        match_id=OuterRef("match_id"), submission__agent__owner_id=user_id
    )
    return public | (Q(match__kind=Match.Kind.CHALLENGE) & Q(Exists(theirs)))


@dataclass
class HistoryFilters:
    """What a history is narrowed to; each refused value says what is allowed."""

    kind: str = ""
    opponent: int | None = None
    result: str = ""
    since: date | None = None
    until: date | None = None
    before: int | None = None
    limit: int = HISTORY_PER_PAGE

    def check(self) -> None:
        kinds = history_kinds()
        if self.kind and self.kind not in kinds:
            raise Refused(f"kind {self.kind!r}: use one of {', '.join(kinds)}")
        if self.result and self.result not in RESULTS:
            raise Refused(f"result {self.result!r}: use one of {', '.join(RESULTS)}")
        if not 1 <= self.limit <= MAX_PER_PAGE:
            raise Refused(f"per_page must be between 1 and {MAX_PER_PAGE}")


@dataclass
class HistoryPage:
    """One page of an agent's matches, newest first, and the cursor of the next one."""

    agent: Agent
    rows: list[dict[str, Any]] = field(default_factory=list)
    next_before: int | None = None
    owner_view: bool = False


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def history_page(*, agent: Agent, viewer: object, filters: HistoryFilters) -> HistoryPage:
    """One page of ``agent``'s matches as ``viewer`` may see them (3 queries)."""
    filters.check()
    owner_view = sees_everything(viewer=viewer, agent=agent)
    submission_ids = list(Submission.objects.filter(agent=agent).values_list("pk", flat=True))
    seats = Participant.objects.filter(submission_id__in=submission_ids).filter(
        _visibility(viewer, agent)
    )
    if filters.kind:
        seats = seats.filter(match__kind=filters.kind)
    if filters.result:
        seats = seats.filter(outcome=filters.result)
    if filters.opponent is not None:
        seats = seats.filter(
            Exists(
                Participant.objects.filter(
                    match_id=OuterRef("match_id"), submission__agent_id=filters.opponent
                ).exclude(submission__agent_id=agent.pk)
            )
        )
    if filters.since is not None:
        seats = seats.filter(match__created__gte=_day_start(filters.since))
    if filters.until is not None:
        seats = seats.filter(match__created__lt=_day_start(filters.until + timedelta(days=1)))
    if filters.before is not None:
        seats = seats.filter(match_id__lt=filters.before)
    # A match where the agent holds two seats (training against itself) is listed once. Rows
    # are read as values, not models: a page is 2 x 25 seats, and building model instances
    # for them and their matches, versions, agents and owners was most of its time.
    fetch = 2 * filters.limit + 1
    found = list(seats.order_by("-match_id", "seat").values(*_SEAT_FIELDS, *_MATCH_FIELDS)[:fetch])
    mine: dict[int, dict[str, Any]] = {}
    for seat in found:
        mine.setdefault(seat["match_id"], seat)
    ids = list(mine)[: filters.limit]
    more = len(mine) > filters.limit or len(found) == fetch
    others: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
    for p in (
        Participant.objects.filter(match_id__in=ids)
        .order_by("match_id", "seat")
        .values(*_SEAT_FIELDS, *_PUBLIC_FIELDS)
    ):
        if p["id"] != mine[p["match_id"]]["id"]:
            others[p["match_id"]].append(p)
    rows = [_history_row(mine[i], others[i], owner_view) for i in ids]
    return HistoryPage(
        agent=agent, rows=rows, next_before=ids[-1] if more and ids else None, owner_view=owner_view
    )


#: What a history reads of a seat, of its match, and of the other seats' agents.
_SEAT_FIELDS = (
    "id",
    "match_id",
    "seat",
    "outcome",
    "reason",
    "detail",
    "score",
    "rating_before",
    "rating_after",
    "submission_id",
    "submission__version",
)
_MATCH_FIELDS = (
    "match__kind",
    "match__status",
    "match__game",
    "match__created",
    "match__finished",
)
_PUBLIC_FIELDS = (
    "submission__agent_id",
    "submission__agent__name",
    "submission__agent__owner__username",
)


def _seat_result(p: dict[str, Any]) -> dict[str, Any]:
    """What a seat played (the version) and how it came out, for any seat of a history row."""
    return {
        "version": p["submission__version"],
        "submission": p["submission_id"],
        "outcome": p["outcome"] or None,
        "reason": p["reason"] or None,
        "score": p["score"],
        "rating_before": p["rating_before"],
        "rating_after": p["rating_after"],
    }


def _seat_public(p: dict[str, Any]) -> dict[str, Any]:
    return {
        "seat": p["seat"],
        "agent_id": p["submission__agent_id"],
        "agent": p["submission__agent__name"],
        "owner": p["submission__agent__owner__username"],
        **_seat_result(p),
    }


def _history_row(
    mine: dict[str, Any], others: list[dict[str, Any]], owner_view: bool
) -> dict[str, Any]:
    finished = mine["match__finished"]
    row: dict[str, Any] = {
        "match": mine["match_id"],
        "kind": mine["match__kind"],
        "status": mine["match__status"],
        "game": mine["match__game"],
        "created": mine["match__created"].isoformat(),
        "finished": finished.isoformat() if finished else None,
        "seat": mine["seat"],
        **_seat_result(mine),
        "opponents": [_seat_public(o) for o in others],
    }
    if owner_view:
        row["detail"] = mine["detail"]
    return row


def head_to_head_cells(agent: Agent, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``head_to_head`` rows with what a page shows of each formatted here (links built with
    one URL reversal a kind, mean payoffs printed), not by per-cell template tags: the whole
    table is up to ``HEAD_TO_HEAD_LIMIT`` rows."""
    pair_url = url_maker("competitions:pair", agent.pk)
    match_url = url_maker("matches:detail")
    return [
        {
            **row,
            "pair_url": pair_url(row["opponent_id"]),
            "last_url": match_url(row["last_match"]),
            "last_day": (row["last_met"] or "")[:10],
            "mean_text": (
                f"{fixed(row['mean_payoff'], 2)} ({fixed(row['opponent_mean_payoff'], 2)})"
            ),
        }
        for row in rows
    ]


def head_to_head(
    *,
    agent: Agent,
    viewer: object,
    opponent: int | None = None,
    recent: int | None = None,
    limit: int = HEAD_TO_HEAD_LIMIT,
    versions: Sequence[int] | None = None,
) -> list[dict[str, Any]]:
    """Per opponent agent: matches played, wins, draws, losses, mean payoffs and when last met,
    over the finished matches ``viewer`` may count (the owner: every kind but validation;
    others: the public kinds), or only the latest ``recent`` of them. The ``limit`` most played
    first (3 queries; with ``recent``, 4, or 3 when the caller gives the agent's ``versions``,
    having read them)."""
    limit = max(0, min(limit, HEAD_TO_HEAD_LIMIT))
    kinds = history_kinds()
    if not sees_everything(viewer=viewer, agent=agent):
        kinds = [k for k in kinds if k in PUBLIC_KINDS]
    if not kinds:
        return []
    part = Participant._meta.db_table
    match = Match._meta.db_table
    sub = Submission._meta.db_table
    kind_list = ", ".join(["%s"] * len(kinds))
    seats = f"""SELECT p.match_id, p.seat, p.outcome, p.score, pm.created
        FROM {part} p JOIN {match} pm ON pm.id = p.match_id
        WHERE p.submission_id {{}} AND pm.status = %s AND pm.kind IN ({kind_list})"""  # noqa: S608 - names from the models
    params: list[Any] = []
    if recent is None:
        mine = seats.format(f"IN (SELECT id FROM {sub} WHERE agent_id = %s)")  # noqa: S608
        params += [agent.pk, Match.Status.FINISHED, *kinds]
    else:
        # The agent's latest ``recent`` countable seats: each version's read backwards through
        # the seat index (``participant_latest``) and stopped at ``recent``, then merged, so the
        # work follows ``recent`` and the versions, not the agent's whole history. (One scan
        # over "IN (its versions)" would read and sort every seat it ever had.)
        if versions is None:
            versions = list(Submission.objects.filter(agent=agent).values_list("pk", flat=True))
        if not versions:
            return []
        arm = seats.format("= %s") + " ORDER BY p.match_id DESC LIMIT %s"
        arms = " UNION ALL ".join(
            f"SELECT * FROM ({arm}) v{i}"  # noqa: S608 - built from the models' names
            for i in range(len(versions))
        )
        mine = f"SELECT * FROM ({arms}) latest ORDER BY match_id DESC LIMIT %s"  # noqa: S608
        for version in versions:
            params += [version, Match.Status.FINISHED, *kinds, recent]
        params.append(recent)
    params.append(agent.pk)
    extra = ""
    if opponent is not None:
        # The opponent's seats named too, so the database may start from the side with fewer
        # (a pair page of the busiest agent reads the pair's matches, not all of its own).
        extra = f"AND os.agent_id = %s AND o.submission_id IN (SELECT id FROM {sub} WHERE agent_id = %s)"  # noqa: S608, E501
        params += [opponent, opponent]
    agent_table, user_table = Agent._meta.db_table, User._meta.db_table
    # The opponents' names looked up per row kept (an index lookup each, on either database):
    # joined, the planner reads the whole user table to hash it once the rows are a few dozen.
    sql = f"""
        SELECT h.*,
               (SELECT a.name FROM {agent_table} a WHERE a.id = h.agent_id),
               (SELECT u.username FROM {user_table} u
                WHERE u.id = (SELECT a.owner_id FROM {agent_table} a WHERE a.id = h.agent_id))
        FROM (
        SELECT os.agent_id, COUNT(*) AS played,
               SUM(CASE WHEN me.outcome = 'win' THEN 1 ELSE 0 END),
               SUM(CASE WHEN me.outcome = 'draw' THEN 1 ELSE 0 END),
               SUM(CASE WHEN me.outcome = 'loss' THEN 1 ELSE 0 END),
               AVG(me.score), AVG(o.score), MAX(me.match_id), MAX(me.created)
        FROM ({mine}) me
        JOIN {part} o ON o.match_id = me.match_id AND o.seat <> me.seat
        JOIN {sub} os ON os.id = o.submission_id
        WHERE os.agent_id <> %s {extra}
        GROUP BY os.agent_id
        ORDER BY COUNT(*) DESC, os.agent_id
        LIMIT {int(limit)}
        ) h
        ORDER BY h.played DESC, h.agent_id
    """  # noqa: S608 - table names from the models, values as parameters
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    rows = []
    for row in found:
        opp_id, played, wins, draws, losses, mean_me, mean_opp, last_id, last_at = row[:9]
        name, owner = row[9], row[10]
        if name is None:
            continue
        if isinstance(last_at, str):  # SQLite returns the aggregate as text
            last_at = datetime.fromisoformat(last_at)
        rows.append(
            {
                "opponent_id": opp_id,
                "opponent": name,
                "owner": owner or "",
                "played": int(played),
                "wins": int(wins or 0),
                "draws": int(draws or 0),
                "losses": int(losses or 0),
                "mean_payoff": None if mean_me is None else float(mean_me),
                "opponent_mean_payoff": None if mean_opp is None else float(mean_opp),
                "last_match": int(last_id),
                "last_met": last_at.isoformat() if last_at else None,
            }
        )
    return rows


def pauses_in_force(*, agent: Agent, versions: list[Submission] | None = None) -> list[LadderPause]:
    """The ladder pauses in force on the agent's versions (``versions`` when the caller has read
    them), at most five: one a version at most."""
    mine = Q(submission__agent=agent) if versions is None else Q(submission__in=versions)
    return list(LadderPause.objects.filter(mine, cleared__isnull=True)[:5])
