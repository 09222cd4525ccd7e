"""Reads for tournaments: who may see what, standings, crosstable, games
(``docs/tournaments.md``).

Before publication the public sees that a tournament exists, its settings, its schedule and its
status (and how many entered); the owners of its entries and staff also see its progress
(standings so far, crosstable, games, each owner reading their own matches). From publication
on, everyone sees everything, and every match of it is readable by anyone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, QuerySet

from arena.errors import NotFound
from arena.matches.clock import MatchClock, clock_with
from arena.matches.models import Match
from arena.tournaments.models import (
    MODEL_MOVE_BUDGET_S,
    TURN_BUDGET_S,
    Entry,
    Tournament,
    TournamentGame,
)
from arena.tournaments.pairing import SwissPlayer
from arena.tournaments.standings import GameResult, Standing, points_of, standings_compute
from games.core import UnknownGameError, get_game_spec

#: Games per pairing at most (a pairing of many games belongs in a match's own config).
MAX_GAMES_PER_PAIRING = 20


def tournaments_list() -> QuerySet[Tournament]:
    """Every tournament, newest first, with its entry count."""
    return Tournament.objects.annotate(entrants=Count("entries")).order_by("-id")


def tournament_get(*, tournament_id: int) -> Tournament:
    """A tournament or ``NotFound``."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFound(f"no tournament {tournament_id}")
    return tournament


def tournament_clock(tournament: Tournament) -> MatchClock:
    """The budgets of a tournament's timed games: its own, the platform's where left empty."""
    return clock_with(
        turn_budget_s=tournament.turn_budget_s,
        model_move_budget_s=tournament.model_move_budget_s,
    )


def time_control_text(tournament: Tournament) -> str:
    """The time control in words: ``timed · 1 s a turn (models 10 s)``, or ``untimed``."""
    if not tournament.timed:
        return "untimed"
    clock = tournament_clock(tournament)
    return f"timed · {clock.turn_budget_s:g} s a turn (models {clock.model_move_budget_s:g} s)"


def tournament_match_clock(match: Match) -> MatchClock | None:
    """The clock of a tournament's game (one query); ``None``, without a query, for any other
    match. ``arena.matches.clock`` asks it (``TournamentsConfig.ready`` adds it)."""
    if match.kind != Match.Kind.TOURNAMENT or match.pk is None:
        return None
    budgets = (
        Tournament.objects.filter(pairings__games__match_id=match.pk)
        .values_list("turn_budget_s", "model_move_budget_s")
        .first()
    )
    if budgets is None:
        return None
    return clock_with(turn_budget_s=budgets[0], model_move_budget_s=budgets[1])


def progress_visible(tournament: Tournament, user: object) -> bool:
    """Whether ``user`` may see standings, crosstable and games now: everyone once published;
    before, staff and the owners of its entries."""
    if tournament.status == Tournament.Status.PUBLISHED:
        return True
    user_id = getattr(user, "pk", None)
    if not user_id:
        return False
    if getattr(user, "is_staff", False):
        return True
    return tournament.entries.filter(owner_id=user_id).exists()


@dataclass(frozen=True)
class GameRow:
    """One game as the pages and the API list it."""

    round: int
    board: int
    leg: int
    seat0: int
    seat1: int
    match_id: int | None
    status: str
    #: Points of seat 0 and seat 1 (``None`` until finished).
    points: tuple[float, float] | None
    void: bool


@dataclass
class Results:
    """Everything a tournament's page shows once visible."""

    entries: dict[int, Entry]
    standings: list[Standing]
    games: list[GameRow]
    byes: list[tuple[int, int]]  # (round, entry)
    #: entry → opponent → points scored against them (summed over games), in standings order.
    crosstable: dict[int, dict[int, float]]
    played: int
    total: int


def tournament_results(tournament: Tournament) -> Results:
    """Standings, crosstable and games of a tournament from its stored results, in a constant
    number of queries."""
    entries = {e.pk: e for e in tournament.entries.select_related("agent", "owner", "submission")}
    playing = [e.pk for e in entries.values() if not e.dropped]
    games = list(
        TournamentGame.objects.filter(pairing__tournament=tournament)
        .select_related("pairing", "match")
        .prefetch_related("match__participants")
        .order_by("pairing__round", "pairing__board", "leg")
    )
    rows: list[GameRow] = []
    results: list[GameResult] = []
    for g in games:
        points: tuple[float, float] | None = None
        match = g.match
        if match is not None and match.status == Match.Status.FINISHED and not g.void:
            seats = {p.seat: points_of(p.outcome) for p in match.participants.all()}
            if seats.get(0) is not None and seats.get(1) is not None:
                points = (float(seats[0] or 0.0), float(seats[1] or 0.0))
                results.append(GameResult(g.seat0_id, g.seat1_id, points[0], points[1]))
        rows.append(
            GameRow(
                round=g.pairing.round,
                board=g.pairing.board,
                leg=g.leg,
                seat0=g.seat0_id,
                seat1=g.seat1_id,
                match_id=g.match_id,
                status="void" if g.void else (match.status if match else "waiting"),
                points=points,
                void=g.void,
            )
        )
    byes = list(tournament.pairings.filter(second__isnull=True).values_list("round", "first_id"))
    bye_count: dict[int, int] = {}
    for _, entry_id in byes:
        bye_count[entry_id] = bye_count.get(entry_id, 0) + 1
    standings = standings_compute(
        playing, results, byes=bye_count, bye_points=float(tournament.games_per_pairing)
    )
    cross: dict[int, dict[int, float]] = {s.entrant: {} for s in standings}
    for s in standings:
        for opponent, pts in s.results:
            cross[s.entrant][opponent] = cross[s.entrant].get(opponent, 0.0) + pts
    return Results(
        entries=entries,
        standings=standings,
        games=rows,
        byes=byes,
        crosstable=cross,
        played=sum(1 for r in rows if r.points is not None or r.void),
        total=len(rows),
    )


def tournament_as_dict(
    tournament: Tournament, user: object = None, *, results: bool = True
) -> dict[str, Any]:
    """A tournament for the API: its settings and status always; its results when ``user``
    may see them (``progress_visible``) and ``results`` asks for them."""
    # ``tournaments_list`` annotates the count; a tournament read alone counts its own.
    entrants = getattr(tournament, "entrants", None)
    if not isinstance(entrants, int):
        entrants = tournament.entries.count()
    clock = tournament_clock(tournament)
    out: dict[str, Any] = {
        "id": tournament.pk,
        "name": tournament.name,
        "edition": tournament.edition,
        "rerun_of": tournament.rerun_of_id,
        "game": tournament.game,
        "status": tournament.status,
        "format": tournament.format,
        "played_format": tournament.played_format or None,
        "rounds": tournament.rounds_total or None,
        "games_per_pairing": tournament.games_per_pairing,
        "duplicate_seats": tournament.duplicate_seats,
        "timed": tournament.timed,
        # The effective budgets (the platform's where the tournament left them empty); they
        # apply only when ``timed``.
        "turn_budget_s": clock.turn_budget_s,
        "model_move_budget_s": clock.model_move_budget_s,
        "entry_opens": tournament.entry_opens,
        "entry_closes": tournament.entry_closes,
        "freeze_at": tournament.freeze_at,
        "publish_at": tournament.publish_at,
        "published": tournament.published,
        "entrants": entrants,
        "results_visible": progress_visible(tournament, user),
    }
    if not out["results_visible"] or not results:
        return out
    res = tournament_results(tournament)

    def who(entry_id: int) -> dict[str, Any]:
        e = res.entries[entry_id]
        return {
            "entry": e.pk,
            "agent_id": e.agent_id,
            "agent": e.agent.name,
            "owner": e.owner.username,
            "submission": e.submission_id,
        }

    out["progress"] = {"games_over": res.played, "games": res.total}
    out["standings"] = [
        {
            **who(s.entrant),
            "rank": s.rank,
            "score": s.score,
            "score_low": round(s.score_low, 3),
            "score_high": round(s.score_high, 3),
            "games": s.games,
            "wins": s.wins,
            "draws": s.draws,
            "losses": s.losses,
            "byes": s.byes,
            "buchholz": s.buchholz,
            "sonneborn_berger": s.sonneborn_berger,
        }
        for s in res.standings
    ]
    out["crosstable"] = [
        {"entry": s.entrant, "against": {str(o): p for o, p in res.crosstable[s.entrant].items()}}
        for s in res.standings
    ]
    out["games"] = [
        {
            "round": g.round,
            "board": g.board,
            "game": g.leg + 1,
            "seat0": g.seat0,
            "seat1": g.seat1,
            "match": g.match_id,
            "replay": f"/matches/{g.match_id}/" if g.match_id else None,
            "status": g.status,
            "points": list(g.points) if g.points else None,
        }
        for g in res.games
    ]
    out["byes"] = [{"round": r, "entry": e} for r, e in res.byes]
    out["dropped"] = [{**who(e.pk), "reason": e.dropped} for e in res.entries.values() if e.dropped]
    return out


def entry_of(tournament: Tournament, user: object) -> Entry | None:
    """``user``'s entry in ``tournament``, if any."""
    user_id = getattr(user, "pk", None)
    if not user_id:
        return None
    return tournament.entries.select_related("agent").filter(owner_id=user_id).first()


# --- What the scheduler reads --------------------------------------------------------------


def tournament_problems(tournament: Tournament) -> list[str]:
    """What makes a tournament's settings unplayable, one sentence each (empty: none); the
    tournament may be unsaved."""
    problems: list[str] = []
    try:
        get_game_spec(tournament.game)
    except UnknownGameError:
        problems.append(f"unknown game {tournament.game!r}")
    if not (
        tournament.entry_opens
        < tournament.entry_closes
        <= tournament.freeze_at
        <= tournament.publish_at
    ):
        problems.append(
            "the times must come in this order: entry opens < entry closes <= freeze <= publish"
        )
    if tournament.format not in Tournament.Format.values:
        problems.append(f"format must be one of {', '.join(Tournament.Format.values)}")
    if not 1 <= tournament.games_per_pairing <= MAX_GAMES_PER_PAIRING:
        problems.append(f"games per pairing must be 1 to {MAX_GAMES_PER_PAIRING}")
    elif tournament.duplicate_seats and tournament.games_per_pairing % 2:
        problems.append("duplicate seats play each seed twice: games per pairing must be even")
    if tournament.round_robin_max < 2:
        problems.append("round robin needs room for at least 2 entrants")
    if tournament.swiss_rounds is not None and tournament.swiss_rounds < 1:
        problems.append("a Swiss plays at least one round (leave it empty to size it)")
    for bounds, value in (
        (TURN_BUDGET_S, tournament.turn_budget_s),
        (MODEL_MOVE_BUDGET_S, tournament.model_move_budget_s),
    ):
        problem = bounds.problem(value)
        if problem:
            problems.append(problem)
    if not tournament.name.strip():
        problems.append("give the tournament a name")
    return problems


def swiss_players(*, tournament: Tournament) -> list[SwissPlayer]:
    """Each playing entry's score, opponents and seats so far, from the stored results."""
    entries = list(tournament.entries.filter(dropped="").order_by("seed", "id"))
    score = {e.pk: 0.0 for e in entries}
    opponents: dict[int, set[int]] = {e.pk: set() for e in entries}
    balance = dict.fromkeys(score, 0)
    last_seat: dict[int, int | None] = dict.fromkeys(score)
    had_bye = dict.fromkeys(score, False)
    for pairing in tournament.pairings.all():
        if pairing.second_id is None:
            had_bye[pairing.first_id] = True
            score[pairing.first_id] += tournament.games_per_pairing
        else:
            opponents[pairing.first_id].add(pairing.second_id)
            opponents[pairing.second_id].add(pairing.first_id)
    games = (
        TournamentGame.objects.filter(pairing__tournament=tournament)
        .select_related("match")
        .prefetch_related("match__participants")
        .order_by("pairing__round", "leg")
    )
    for game in games:
        balance[game.seat0_id] += 1
        balance[game.seat1_id] -= 1
        last_seat[game.seat0_id], last_seat[game.seat1_id] = 0, 1
        if game.match is None or game.match.status != Match.Status.FINISHED or game.void:
            continue
        for p in game.match.participants.all():
            entry_id = game.seat0_id if p.seat == 0 else game.seat1_id
            score[entry_id] += points_of(p.outcome) or 0.0
    return [
        SwissPlayer(
            id=e.pk,
            score=score[e.pk],
            seed=e.seed,
            opponents=frozenset(opponents[e.pk]),
            seat_balance=balance[e.pk],
            last_seat=last_seat[e.pk],
            had_bye=had_bye[e.pk],
        )
        for e in entries
    ]


def tournament_games(tournament: Tournament) -> QuerySet[TournamentGame]:
    """Every game paired in the tournament so far."""
    return TournamentGame.objects.filter(pairing__tournament=tournament)


def round_complete(*, tournament: Tournament, round_no: int) -> bool:
    """Every game of the round is over (finished, or void after its re-runs)."""
    games = tournament_games(tournament).filter(pairing__round=round_no)
    return not games.exclude(void=True).exclude(match__status=Match.Status.FINISHED).exists()


def all_games_over(*, tournament: Tournament) -> bool:
    """Every game paired so far is over."""
    games = tournament_games(tournament)
    return not games.exclude(void=True).exclude(match__status=Match.Status.FINISHED).exists()


def tournament_in_flight() -> int:
    """Tournament matches queued or running now, over all tournaments (the share's count)."""
    return Match.objects.in_flight().filter(kind=Match.Kind.TOURNAMENT).count()
