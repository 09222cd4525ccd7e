"""Writes for tournaments: create, enter, freeze, pair, release games, pause, resume, re-run,
publish (``docs/tournaments.md``).

The scheduler (``scheduler.py``, a beat task) calls these in order under the tournament's row
lock; what it reads (standings so far, whether a round is over) is in ``selectors.py``. A game's
match is created in the same
transaction that links it to the game, so a game is played by exactly one match; the match
itself runs through the platform's match task (idempotent, ``acks_late``, swept when its worker
dies, within its attempt cap).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from arena.accounts.models import User
from arena.errors import Forbidden, NotFound, Refused
from arena.matches.models import Match
from arena.matches.services import match_create, match_lock, match_requeue
from arena.submissions.models import Agent, Submission
from arena.tournaments.events import tournament_event
from arena.tournaments.models import (
    Entry,
    Pairing,
    Tournament,
    TournamentGame,
)
from arena.tournaments.pairing import (
    PlannedPairing,
    SwissPairingError,
    round_robin,
    swiss_pair,
    swiss_rounds_for,
)
from arena.tournaments.selectors import (
    swiss_players,
    tournament_games,
    tournament_in_flight,
    tournament_problems,
)
from arena.workflows.dispatch import match_enqueue_on_commit

logger = logging.getLogger(__name__)

#: The only moves ``tournament_set_status`` allows.
ALLOWED_TRANSITIONS: dict[str, set[str]] = {
    Tournament.Status.UPCOMING: {Tournament.Status.RUNNING, Tournament.Status.CANCELLED},
    Tournament.Status.RUNNING: {Tournament.Status.PAUSED, Tournament.Status.FINISHED},
    Tournament.Status.PAUSED: {Tournament.Status.RUNNING},
    Tournament.Status.FINISHED: {Tournament.Status.PUBLISHED},
    Tournament.Status.PUBLISHED: set(),
    Tournament.Status.CANCELLED: set(),
}

#: How a tournament is played: the settings a re-run keeps from its original.
PLAY_SETTINGS = (
    "format",
    "round_robin_max",
    "swiss_rounds",
    "games_per_pairing",
    "duplicate_seats",
    "timed",
    "turn_budget_s",
    "model_move_budget_s",
    "config",
)


def tournament_set_status(*, tournament: Tournament, status: str, **fields: Any) -> Tournament:
    """Change a tournament's status (and other fields) if the transition is allowed."""
    if status not in ALLOWED_TRANSITIONS.get(tournament.status, set()):
        raise Refused(f"a {tournament.status} tournament cannot become {status}")
    tournament.status = status
    for key, value in fields.items():
        setattr(tournament, key, value)
    tournament.save(update_fields=["status", *fields])
    return tournament


def tournament_create(
    *,
    created_by: User | None,
    name: str,
    game: str,
    entry_opens: datetime,
    entry_closes: datetime,
    freeze_at: datetime,
    publish_at: datetime,
    format: str = Tournament.Format.AUTO,
    round_robin_max: int = 12,
    swiss_rounds: int | None = None,
    games_per_pairing: int = 2,
    duplicate_seats: bool = True,
    timed: bool = True,
    turn_budget_s: float | None = None,
    model_move_budget_s: float | None = None,
    config: dict[str, Any] | None = None,
) -> Tournament:
    """A new tournament; refuses settings that cannot be played, saying which and why.
    ``turn_budget_s`` and ``model_move_budget_s`` are its time control when ``timed`` (empty:
    the platform's budgets)."""
    tournament = Tournament(
        created_by=created_by,
        name=name,
        game=game,
        entry_opens=entry_opens,
        entry_closes=entry_closes,
        freeze_at=freeze_at,
        publish_at=publish_at,
        format=format,
        round_robin_max=round_robin_max,
        swiss_rounds=swiss_rounds,
        games_per_pairing=games_per_pairing,
        duplicate_seats=duplicate_seats,
        timed=timed,
        turn_budget_s=turn_budget_s,
        model_move_budget_s=model_move_budget_s,
        config=config or {},
    )
    problems = tournament_problems(tournament)
    if problems:
        raise Refused(
            "the tournament cannot be created: " + "; ".join(problems),
            details=[{"message": p} for p in problems],
        )
    tournament.name = name.strip()[:100]
    tournament.save(force_insert=True)
    return tournament


@transaction.atomic
def entry_create(*, user: User, tournament_id: int, agent_id: int) -> Entry:
    """Enter one of ``user``'s agents with an accepted version (one entry per user: entering
    again while entries are open replaces the agent)."""
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound(f"no tournament {tournament_id}")
    now = timezone.now()
    if tournament.status != Tournament.Status.UPCOMING or not (
        tournament.entry_opens <= now < tournament.entry_closes
    ):
        raise Refused(
            f"entries to {tournament.name} are open from {tournament.entry_opens:%Y-%m-%d %H:%M} "
            f"to {tournament.entry_closes:%Y-%m-%d %H:%M} UTC; they are not open now"
        )
    agent = Agent.objects.filter(pk=agent_id).first()
    if agent is None:
        raise NotFound(f"no agent {agent_id}")
    if agent.owner_id != user.pk:
        raise Forbidden("you can only enter your own agents")
    if agent.game != tournament.game:
        raise Refused(f"this tournament plays {tournament.game}; {agent.name} plays {agent.game}")
    if not agent.submissions.filter(status=Submission.Status.ACCEPTED).exists():
        raise Refused(
            f"{agent.name} has no accepted version yet: upload one and wait for its validation"
        )
    entry = Entry.objects.filter(tournament=tournament, owner=user).first()
    if entry is not None:
        entry.agent = agent
        entry.save(update_fields=["agent"])
        return entry
    seed = (tournament.entries.aggregate(m=Max("seed"))["m"] or 0) + 1
    return Entry.objects.create(tournament=tournament, owner=user, agent=agent, seed=seed)


@transaction.atomic
def entry_withdraw(*, user: User, tournament_id: int) -> None:
    """Take ``user``'s entry out while entries are open."""
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound(f"no tournament {tournament_id}")
    if tournament.status != Tournament.Status.UPCOMING or timezone.now() >= tournament.entry_closes:
        raise Refused("entries are closed: an entry can no longer be withdrawn")
    tournament.entries.filter(owner=user).delete()


def entries_freeze(*, tournament: Tournament) -> list[Entry]:
    """Pin each entry's version: its agent's latest submission accepted by ``freeze_at`` (an
    entry already pinned, as in a re-run, keeps its own). Entries without one are dropped."""
    playing: list[Entry] = []
    for entry in tournament.entries.select_related("agent").order_by("seed", "id"):
        if entry.submission_id is None:
            latest = (
                entry.agent.submissions.filter(
                    status=Submission.Status.ACCEPTED, created__lte=tournament.freeze_at
                )
                .order_by("-version")
                .first()
            )
            if latest is None:
                entry.dropped = "no accepted version at the freeze"
                entry.save(update_fields=["dropped"])
                continue
            entry.submission = latest
            entry.save(update_fields=["submission"])
        if not entry.dropped:
            playing.append(entry)
    return playing


def tournament_start(*, tournament: Tournament) -> bool:
    """Freeze the entries, choose the format and pair the first round (all rounds of a round
    robin); cancel it when fewer than two can play. Returns whether it started."""
    playing = entries_freeze(tournament=tournament)
    if len(playing) < 2:
        tournament_set_status(
            tournament=tournament,
            status=Tournament.Status.CANCELLED,
            status_detail=f"{len(playing)} entrant(s) had an accepted agent at the freeze; "
            "a tournament needs two",
            finished=timezone.now(),
        )
        tournament_event(tournament=tournament, event="cancelled")
        return False
    played = tournament.format
    if played == Tournament.Format.AUTO:
        played = (
            Tournament.Format.ROUND_ROBIN
            if len(playing) <= tournament.round_robin_max
            else Tournament.Format.SWISS
        )
    ids = [e.pk for e in playing]
    if played == Tournament.Format.ROUND_ROBIN:
        schedule = round_robin(ids)
        rounds_total = len(schedule)
    else:
        schedule = []
        rounds_total = tournament.swiss_rounds or swiss_rounds_for(len(playing))
        rounds_total = min(rounds_total, len(playing) - 1 + len(playing) % 2)
    tournament_set_status(
        tournament=tournament,
        status=Tournament.Status.RUNNING,
        played_format=played,
        rounds_total=rounds_total,
        started=timezone.now(),
    )
    if played == Tournament.Format.ROUND_ROBIN:
        for number, planned in enumerate(schedule, start=1):
            pairings_store(tournament=tournament, round_no=number, planned=planned)
        tournament.round_current = rounds_total
        tournament.save(update_fields=["round_current"])
    else:
        swiss_pair_next(tournament=tournament)
    tournament_event(tournament=tournament, event="started")
    return True


def pairings_store(
    *, tournament: Tournament, round_no: int, planned: Sequence[PlannedPairing]
) -> list[Pairing]:
    """Store one round's pairings and their games (seats and seeds fixed now): with duplicate
    seats, games 2k and 2k+1 play one seed with the seats swapped."""
    stored = []
    for board, p in enumerate(planned, start=1):
        key = (
            f"bye-{round_no}-{p.first}"
            if p.second is None
            else f"{min(p.first, p.second)}-{max(p.first, p.second)}"
        )
        pairing = Pairing.objects.create(
            tournament=tournament,
            round=round_no,
            board=board,
            first_id=p.first,
            second_id=p.second,
            key=key,
        )
        stored.append(pairing)
        if p.second is None:
            continue
        games = []
        seed = 0
        for leg in range(tournament.games_per_pairing):
            swapped = leg % 2 == 1
            if not tournament.duplicate_seats or not swapped:
                seed = secrets.randbelow(2**31)
            games.append(
                TournamentGame(
                    pairing=pairing,
                    leg=leg,
                    seat0_id=p.second if swapped else p.first,
                    seat1_id=p.first if swapped else p.second,
                    seed=seed,
                )
            )
        TournamentGame.objects.bulk_create(games)
    return stored


def swiss_pair_next(*, tournament: Tournament) -> list[Pairing]:
    """Pair the next Swiss round from the standings so far; when no round without a repeat
    pairing exists any more, the Swiss ends after the rounds played (and says so)."""
    round_no = tournament.round_current + 1
    try:
        planned = swiss_pair(swiss_players(tournament=tournament))
    except SwissPairingError as exc:
        tournament.rounds_total = tournament.round_current
        tournament.status_detail = f"ended after round {tournament.round_current}: {exc}"
        tournament.save(update_fields=["rounds_total", "status_detail"])
        return []
    stored = pairings_store(tournament=tournament, round_no=round_no, planned=planned)
    tournament.round_current = round_no
    tournament.save(update_fields=["round_current"])
    return stored


def games_release(*, tournament: Tournament) -> int:
    """Create and enqueue (on commit) matches for unplayed games, earliest round first, while
    fewer than ``ARENA_TOURNAMENT_IN_FLIGHT`` tournament matches are queued or running."""
    room = settings.ARENA_TOURNAMENT_IN_FLIGHT - tournament_in_flight()
    if room <= 0:
        return 0
    waiting = list(
        tournament_games(tournament)
        .filter(match__isnull=True, void=False)
        .select_related("seat0__submission__agent", "seat1__submission__agent")
        .order_by("pairing__round", "pairing__board", "leg")[:room]
    )
    for game in waiting:
        assert game.seat0.submission is not None and game.seat1.submission is not None
        match = match_create(
            kind=Match.Kind.TOURNAMENT,
            submissions=[game.seat0.submission, game.seat1.submission],
            timed=tournament.timed,
            seed=game.seed,
        )
        if tournament.config:
            match.config = tournament.config
            match.save(update_fields=["config"])
        game.match = match
        game.save(update_fields=["match"])
        match_enqueue_on_commit(match.pk)
    return len(waiting)


def games_rerun_failed(*, tournament: Tournament) -> int:
    """Queue again the matches the platform failed (``error``) up to
    ``ARENA_TOURNAMENT_GAME_RERUNS`` times each; after that the game is void (counts for
    nobody: a platform failure is never a forfeit)."""
    rerun = 0
    failed = tournament_games(tournament).filter(match__status=Match.Status.ERROR, void=False)
    for game in failed:
        if game.reruns >= settings.ARENA_TOURNAMENT_GAME_RERUNS:
            game.void = True
            game.save(update_fields=["void"])
            continue
        match = match_lock(match_id=game.match_id) if game.match_id else None
        if match is None or match.status != Match.Status.ERROR:
            continue
        match_requeue(match=match)
        match_enqueue_on_commit(match.pk)
        game.reruns += 1
        game.save(update_fields=["reruns"])
        rerun += 1
    return rerun


def tournament_publish(*, tournament: Tournament) -> Tournament:
    """Make the results public: the tournament's page and API show standings, crosstable and
    matches to everyone, and every one of its matches becomes readable by anyone."""
    now = timezone.now()
    Match.objects.filter(tournament_game__pairing__tournament=tournament).update(public_from=now)
    tournament_set_status(tournament=tournament, status=Tournament.Status.PUBLISHED, published=now)
    tournament_event(tournament=tournament, event="published")
    return tournament


# --- Staff controls ---------------------------------------------------------------------------


@transaction.atomic
def tournament_pause(*, tournament_id: int) -> Tournament:
    """Release no more games (those queued or running finish)."""
    tournament = _locked(tournament_id)
    return tournament_set_status(tournament=tournament, status=Tournament.Status.PAUSED)


@transaction.atomic
def tournament_resume(*, tournament_id: int) -> Tournament:
    """Release games again from the next tick."""
    tournament = _locked(tournament_id)
    return tournament_set_status(tournament=tournament, status=Tournament.Status.RUNNING)


@transaction.atomic
def tournament_rerun(*, tournament_id: int, created_by: User | None) -> Tournament:
    """A new edition with the same settings and entrants (each with the version frozen for
    the original), frozen now and published as long after its freeze as the original was."""
    original = _locked(tournament_id)
    if original.status in (Tournament.Status.UPCOMING, Tournament.Status.CANCELLED):
        raise Refused("only a tournament that has frozen its entries and started can be re-run")
    now = timezone.now()
    edition = (
        Tournament.objects.filter(name=original.name, game=original.game).aggregate(
            m=Max("edition")
        )["m"]
        or 1
    ) + 1
    copy = Tournament.objects.create(
        name=original.name,
        game=original.game,
        edition=edition,
        rerun_of=original,
        **{field: getattr(original, field) for field in PLAY_SETTINGS},
        entry_opens=now,
        entry_closes=now,
        freeze_at=now,
        publish_at=now + (original.publish_at - original.freeze_at),
        created_by=created_by,
    )
    Entry.objects.bulk_create(
        Entry(
            tournament=copy,
            owner_id=e.owner_id,
            agent_id=e.agent_id,
            submission_id=e.submission_id,
            seed=e.seed,
        )
        for e in original.entries.filter(dropped="")
    )
    return copy


def _locked(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound(f"no tournament {tournament_id}")
    return tournament
