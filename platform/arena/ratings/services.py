"""Elo once per match, in order, under row locks; and matchmaking (docs/architecture.md)."""

from __future__ import annotations

import logging
import math
import random
import time
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Exists, F, FloatField, Func, OuterRef, Q
from django.utils import timezone

from arena.bulk import update_columns
from arena.matches.models import Match, Participant
from arena.matches.services import matches_create_ranked
from arena.ratings import bradley_terry, ladder, unified
from arena.ratings.models import (
    LadderRefit,
    PairRecord,
    Rating,
    RatingChange,
    UnifiedFit,
    UnifiedStanding,
)
from arena.ratings.pairing import Entry, pair_entries
from arena.submissions.models import Submission
from games.core import get_game_spec
from games.core.ranking import elo_interval

logger = logging.getLogger(__name__)


def rating_ensure(*, submission: Submission) -> Rating:
    """The submission's ladder row, created at 1200 the first time."""
    rating, _ = Rating.objects.get_or_create(
        submission=submission,
        defaults={"game": submission.agent.game, "game_version": submission.game_version},
    )
    return rating


def _seat_figure(stats: object, key: str, seat: int) -> float | None:
    """A per-seat figure from a match's stats, whether keyed by seat, ``p<seat>`` or listed."""
    values = stats.get(key) if isinstance(stats, dict) else None
    if isinstance(values, list) and seat < len(values):
        value = values[seat]
    elif isinstance(values, dict):
        value = values.get(str(seat), values.get(f"p{seat}"))
    else:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _seat_figures(rating: Rating, participant: Participant, stats: object) -> dict[str, float]:
    """The game's ladder figures this seat reported in a match's stats."""
    found = {
        figure.key: _seat_figure(stats, figure.key, participant.seat)
        for figure in get_game_spec(rating.game).ladder_figures
    }
    return {key: value for key, value in found.items() if value is not None}


def _pair_record(match: Match, seat0: Participant, seat1: Participant) -> None:
    """Count the match in its pair's results (both rating rows are locked: no race)."""
    (first, second), wins, draws = ladder.pair_record_counts(
        (seat0.submission_id, seat0.outcome), (seat1.submission_id, seat1.outcome)
    )
    updated = PairRecord.objects.filter(first_id=first, second_id=second).update(
        matches=F("matches") + 1, first_wins=F("first_wins") + wins, draws=F("draws") + draws
    )
    if not updated:
        PairRecord.objects.create(
            game=match.game,
            game_version=match.game_version,
            first_id=first,
            second_id=second,
            matches=1,
            first_wins=wins,
            draws=draws,
        )


def rating_apply(*, match: Match) -> None:
    """Apply a finished ranked match to both ratings. Call inside the transaction that locked it.

    Exactly once: ``match.rated`` and the unique (rating, match) change rows are set in the same
    transaction, and a match already rated is skipped. The two rating rows are locked in id
    order, so concurrent matches of one agent serialise instead of losing an update. The
    aggregates a leaderboard row shows change in the same transaction as Elo.
    """
    if match.rated or match.kind != Match.Kind.RANKED or match.status != Match.Status.FINISHED:
        return
    seats = list(match.participants.select_related("submission__agent").order_by("seat"))
    if len(seats) != 2:
        raise ValueError(f"the ladder rates two-seat matches; match {match.pk} has {len(seats)}")
    for p in seats:
        rating_ensure(submission=p.submission)
    locked = {
        r.submission_id: r
        for r in Rating.objects.select_for_update()
        .filter(submission_id__in=[p.submission_id for p in seats])
        .order_by("id")
    }
    a, b = (locked[p.submission_id] for p in seats)
    (new_a, dev_a), (new_b, dev_b) = ladder.rate_pair(a, b, seats[0].outcome)
    at = match.finished or timezone.now()
    changes = []
    for participant, rating, new, deviation, other in (
        (seats[0], a, new_a, dev_a, seats[1]),
        (seats[1], b, new_b, dev_b, seats[0]),
    ):
        changes.append(RatingChange(rating=rating, match=match, before=rating.rating, after=new))
        participant.rating_before, participant.rating_after = rating.rating, new
        participant.save(update_fields=["rating_before", "rating_after"])
        ladder.fold_result(
            rating,
            rating=new,
            deviation=deviation,
            outcome=participant.outcome,
            payoff=participant.score or 0.0,
            figures=_seat_figures(rating, participant, match.stats),
            opponent=other.submission_id,
            at=at,
        )
        ladder.settle(rating)
        rating.save()
    RatingChange.objects.bulk_create(changes)
    _pair_record(match, seats[0], seats[1])
    match.rated = True
    match.save(update_fields=["rated"])


@transaction.atomic
def ratings_recompute(*, game: str, game_version: int) -> int:
    """Rebuild one ladder from the matches that still count, in the order they were applied.

    Elo depends on the path: when an administrator voids a rated match, every later update of
    the agents involved would differ, so the ladder is replayed from 1200 rather than patched
    (the aggregates, recent games and recent opponents with it). Returns how many matches
    were applied again.
    """
    ratings = list(
        Rating.objects.select_for_update()
        .filter(game=game, game_version=game_version)
        .order_by("id")
    )
    changes = RatingChange.objects.filter(rating__in=ratings)
    PairRecord.objects.filter(game=game, game_version=game_version).delete()
    applied_order = list(dict.fromkeys(changes.order_by("id").values_list("match_id", flat=True)))
    changes.delete()
    # The replay is Elo's from 1200: the next pass of ``ladders_refit`` fits it again.
    LadderRefit.objects.filter(game=game, game_version=game_version).delete()
    fresh = Rating()
    reset = [f.name for f in Rating._meta.concrete_fields if f.has_default()]
    for rating in ratings:
        for name in reset:
            setattr(rating, name, getattr(fresh, name))
        rating.mean_payoff, rating.last_played = None, None
        rating.payoff_low, rating.payoff_high = None, None
    Rating.objects.bulk_update(
        ratings, [*reset, "mean_payoff", "last_played", "payoff_low", "payoff_high"]
    )
    Participant.objects.filter(match_id__in=applied_order).update(
        rating_before=None, rating_after=None
    )
    Match.objects.filter(pk__in=applied_order).update(rated=False)
    matches = Match.objects.in_bulk(applied_order)
    replayed = 0
    for match_id in applied_order:
        match = matches[match_id]
        if match.status == Match.Status.FINISHED:
            rating_apply(match=match)
            replayed += 1
    logger.info("recomputed the %s v%s ladder from %d matches", game, game_version, replayed)
    return replayed


def ladder_refit(*, game: str, game_version: int) -> LadderRefit | None:
    """Fit one ladder's rated results again (``bradley_terry.ladder_fit``: Bradley-Terry under a
    prior at the spread of the ladder's own population) and store each row's rating, deviation
    and 95 % interval; None when nothing was played since the last fit.

    Why (docs/architecture.md, "Intervals"): Elo's estimate lags behind a strength it has not
    yet reached by more than its own noise, so no interval drawn around it covers the truth
    as often as it says; the fit of all results at once has no lag, and its posterior's
    covariance is the interval. Between two refits ``rating_apply`` moves the fitted rating
    and its deviation match by match.

    The fit runs outside any lock, on the pair results and row snapshot read first; then the
    ladder's rows are locked (in id order, as ``rating_apply`` locks two) and a row is written
    only if it has played no match since the snapshot: one that has keeps its own update (its
    new match is not in the fit) until the next pass.
    """
    started = time.monotonic()
    ladder_rows = Rating.objects.filter(game=game, game_version=game_version)
    snapshot = {
        submission: (games, rating)
        for submission, games, rating in ladder_rows.filter(games__gt=0).values_list(
            "submission_id", "games", "rating"
        )
    }
    # Each rated match counts on both of its rows.
    matches = sum(games for games, _ in snapshot.values()) // 2
    last = LadderRefit.objects.filter(game=game, game_version=game_version).first()
    if not snapshot or (last is not None and last.matches == matches):
        return None
    results = [
        (first, second, float(played), wins + draws / 2)
        for first, second, played, wins, draws in PairRecord.objects.filter(
            game=game, game_version=game_version
        ).values_list("first_id", "second_id", "matches", "first_wins", "draws")
    ]
    fitted = bradley_terry.ladder_fit(
        results, start={submission: rating for submission, (_, rating) in snapshot.items()}
    ).of()
    with transaction.atomic():
        rows = list(
            ladder_rows.select_for_update()
            .filter(submission_id__in=list(fitted))
            .order_by("id")
            .only("id", "submission_id", "games", "rating", "deviation")
        )
        written = []
        for row in rows:
            if snapshot.get(row.submission_id, (None, None))[0] != row.games:
                continue
            rating, deviation = fitted[row.submission_id]
            interval = elo_interval(rating, deviation)
            row.rating, row.deviation = rating, deviation
            row.rating_low, row.rating_high = interval.low, interval.high
            written.append(row)
        update_columns(
            Rating,
            [row.pk for row in written],
            {
                name: [getattr(row, name) for row in written]
                for name in ("rating", "deviation", "rating_low", "rating_high")
            },
        )
        refit, _ = LadderRefit.objects.update_or_create(
            game=game,
            game_version=game_version,
            defaults={
                "matches": matches,
                "entries": len(written),
                "skipped": len(rows) - len(written),
                "seconds": time.monotonic() - started,
            },
        )
    logger.info(
        "refitted the %s v%s ladder: %d matches, %d rows in %.2f s",
        game,
        game_version,
        matches,
        len(written),
        refit.seconds,
    )
    return refit


def ladders_refit() -> int:
    """``ladder_refit`` of every current ladder that played since its last fit; returns the
    rated matches behind the fits made."""
    done = 0
    for game, version in unified.current_ladders().items():
        refit = ladder_refit(game=game, game_version=version)
        done += refit.matches if refit else 0
    return done


def unified_refit() -> UnifiedFit:
    """Fit the boards across games again from every current ladder's rated results and store
    their rows (``unified.py``); earlier fits are removed. Bounded time: the results are
    aggregated per pair in the database and the fit runs on that table."""
    started = time.monotonic()
    ladders = unified.current_ladders()
    results = unified.pair_results(ladders)
    rows = unified.entrants(ladders)
    # The last fit's ratings warm-start this one: a few results more move it little.
    previous: dict[str, dict[str, float]] = {}
    for board, key, rating in UnifiedStanding.objects.values_list("board", "key", "rating"):
        previous.setdefault(board, {})[key] = rating
    boards = {
        board: unified.fit_board(board, results, rows, previous.get(board))
        for board in UnifiedStanding.Board.values
    }
    played = sorted({results.game_names[g] for g in set(results.games.tolist())})
    with transaction.atomic():
        fit = UnifiedFit.objects.create(
            matches=results.total,
            games=played,
            seconds=0.0,
        )
        UnifiedStanding.objects.bulk_create(
            UnifiedStanding(fit=fit, board=board, **row)
            for board, fitted in boards.items()
            for row in unified.standing_rows(fitted)
        )
        UnifiedFit.objects.filter(id__lt=fit.id).delete()
        fit.seconds = time.monotonic() - started
        fit.save(update_fields=["seconds"])
    logger.info("refitted the boards across games: %d matches in %.2f s", fit.matches, fit.seconds)
    return fit


def _lock_ladder(game: str, version: int) -> None:
    """Serialise passes over one ladder (a beat that fires twice, a manual run).

    PostgreSQL: a transaction-scoped advisory lock, rather than locking every entry row (which
    would also hold up the Elo updates of running matches). SQLite serialises writers itself:
    a second pass that read before the first one wrote fails its write instead of pairing
    twice.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(hashtext(%s))", [f"ladder:{game}:{version}"]
            )


#: A pass bounded by ``ARENA_MATCHMAKING_QUEUE_MAX`` reads this many user entries per seat it
#: may fill (those who waited longest), not the whole ladder.
MATCHMAKING_CANDIDATES_PER_SEAT = 4


class EpochSeconds(Func):
    """A timestamp as seconds since 1970, a float: read for thousands of rows, a number costs a
    fraction of a parsed datetime."""

    output_field = FloatField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(
            compiler, connection, template="date_part('epoch', %(expressions)s)", **extra
        )

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        # Django keeps an aware datetime in SQLite as UTC text, which julianday() reads.
        return self.as_sql(
            compiler,
            connection,
            template="(julianday(%(expressions)s) - 2440587.5) * 86400.0",
            **extra,
        )


def _wait_order(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """Sort key of a ``ladder_pair`` row: users never played, then by when they last played,
    then the house bots; rating id within each."""
    rating_id, _, _, house_bot, _, _, last_played, _, _ = row
    if house_bot:
        return (1, False, None, rating_id)
    return (0, last_played is not None, last_played, rating_id)


def ladder_pair(*, game: str) -> list[Match]:
    """Pair the free entries of one game's ladder and store their ranked matches (call inside
    a transaction; the matchmaking workflow enqueues them).

    The rules are ``pairing.pair_entries``'s. The same few queries whatever the size of the
    ladder: the pass lock, the queue's counts, the free entries, and two bulk inserts.
    """
    version = get_game_spec(game).version
    _lock_ladder(game, version)
    in_flight = Participant.objects.in_flight().filter(
        match__game=game, match__kind=Match.Kind.RANKED
    )
    # The queue of this ladder, counted in the database: how many ranked matches wait for a
    # worker, and whether a user's (not only house bots') is among them. Neither reads the
    # seats of the matches in flight.
    queue = in_flight.filter(match__status=Match.Status.QUEUED).aggregate(
        matches=Count("match_id", distinct=True),
        user_seats=Count("id", filter=Q(submission__house_bot="")),
    )
    # House bots play each other only when no user's ranked match is waiting for a worker.
    users_waiting = queue["user_seats"] > 0
    # Pairings made long before a worker is free are played on stale ratings: keep the queue
    # of this ladder to a bound, serving those who have played least lately first.
    cap = settings.ARENA_MATCHMAKING_QUEUE_MAX
    max_pairs = max(0, cap - queue["matches"]) if cap else None
    if max_pairs == 0:
        return []  # the queue is full: nothing to read
    # Entries with a ranked match in flight sit out: left out by the database, so they cost
    # this pass nothing however many they are.
    ladder_rows = Rating.objects.filter(
        game=game,
        game_version=version,
        submission__active=True,
        submission__status=Submission.Status.ACCEPTED,
    ).filter(~Exists(in_flight.filter(submission_id=OuterRef("submission_id"))))
    fields = (
        "id",
        "submission_id",
        "submission__agent__owner_id",
        "submission__house_bot",
        "rating",
        "recent_load",
        "last_played_s",
        "recent_opponents",
        "deviation",
    )
    if max_pairs is not None:
        # A bounded pass reads the entries it can serve, not the whole ladder: the users who
        # have waited longest (a few candidates per seat it may fill, so each still finds a
        # near-rated opponent; chosen on the narrow rows before the wide ones are read), plus
        # the house bots. Its cost follows the pairs it may make.
        longest_waiting = (
            ladder_rows.filter(submission__house_bot="")
            .order_by(F("last_played").asc(nulls_first=True), "id")
            .values("id")[: MATCHMAKING_CANDIDATES_PER_SEAT * 2 * max_pairs]
        )
        ladder_rows = ladder_rows.filter(Q(id__in=longest_waiting) | ~Q(submission__house_bot=""))
    rows = list(
        ladder_rows.annotate(last_played_s=EpochSeconds("last_played")).values_list(*fields)
    )
    if len(rows) < 2:
        return []
    # One order whatever plan the database chose (pairing breaks ties with its random
    # generator, from this order): users who waited longest first, then the house bots.
    rows.sort(key=_wait_order)
    now_s = timezone.now().timestamp()
    entries = [
        Entry(
            id=submission,
            owner=owner,
            rating=rating,
            load=ladder.load_after(load, None if played_s is None else now_s - played_s),
            opponents=tuple(opponents or ()),
            house=bool(house_bot),
            idle_s=ladder.idle_after(None if played_s is None else now_s - played_s),
            deviation=deviation,
        )
        for _, submission, owner, house_bot, rating, load, played_s, opponents, deviation in rows
    ]
    pairs = pair_entries(
        entries,
        rng=random.Random(),
        house_play=not users_waiting,
        house_load_cap=settings.ARENA_HOUSE_GAMES_PER_DAY,
        max_pairs=max_pairs,
        rematch_cooldown_s=settings.ARENA_REMATCH_COOLDOWN_S,
    )
    if not pairs:
        return []
    return matches_create_ranked(game=game, pairs=[(a.id, b.id) for a, b in pairs])
