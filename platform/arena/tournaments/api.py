"""The API's tournament endpoints: the list, one's results, entering and withdrawing."""

from __future__ import annotations

import datetime
from typing import Any, Literal

from django.http import HttpRequest
from ninja import Router, Schema, Status
from pydantic import ConfigDict

from arena.api_base import ERRORS, Id, PathId, caller, optional_auth, user_of
from arena.tournaments import selectors as tournament_selectors
from arena.tournaments import services as tournament_services

router = Router()


class StandingOut(Schema):
    rank: int
    entry: int
    agent_id: int
    agent: str
    owner: str
    submission: int | None
    score: float
    #: The 95 % interval of the score (see docs/tournaments.md).
    score_low: float
    score_high: float
    games: int
    wins: int
    draws: int
    losses: int
    byes: int
    buchholz: float
    sonneborn_berger: float


class TournamentOut(Schema):
    model_config = ConfigDict(extra="allow")

    id: int
    name: str
    edition: int
    game: str
    status: Literal["upcoming", "running", "paused", "finished", "published", "cancelled"]
    format: str
    games_per_pairing: int
    duplicate_seats: bool
    timed: bool
    #: The time control when ``timed`` (seconds): a code seat's budget a turn and a model
    #: seat's a move, the platform's where the tournament chose none.
    turn_budget_s: float
    model_move_budget_s: float
    entry_opens: datetime.datetime
    entry_closes: datetime.datetime
    freeze_at: datetime.datetime
    publish_at: datetime.datetime
    entrants: int
    #: Whether this caller sees standings, crosstable and games (everyone once published;
    #: before, staff and the entrants' owners).
    results_visible: bool
    rerun_of: int | None = None
    played_format: str | None = None
    rounds: int | None = None
    published: datetime.datetime | None = None
    #: The rest only when ``results_visible``.
    progress: dict[str, int] | None = None
    standings: list[StandingOut] | None = None
    #: Per entry (standings order): points scored against each opponent's entry id.
    crosstable: list[dict[str, Any]] | None = None
    #: Every game: round, board, seats (entry ids), status, points, its match and replay.
    games: list[dict[str, Any]] | None = None
    byes: list[dict[str, int]] | None = None
    dropped: list[dict[str, Any]] | None = None


@router.get(
    "/tournaments",
    auth=optional_auth,
    response={200: list[TournamentOut], **ERRORS},
    exclude_unset=True,
    summary="The tournaments, newest first",
    operation_id="arena_api_tournaments",
)
def tournament_list(request: HttpRequest) -> Any:
    """Settings, schedule and status of each (the latest 200); results are on each one's own
    endpoint."""
    user = caller(request)
    rows = tournament_selectors.tournaments_list()[:200]
    results = {"progress", "standings", "crosstable", "games", "byes", "dropped"}
    return [
        {
            k: v
            for k, v in tournament_selectors.tournament_as_dict(t, user, results=False).items()
            if k not in results
        }
        for t in rows
    ]


@router.get(
    "/tournaments/{tournament_id}",
    auth=optional_auth,
    response={200: TournamentOut, **ERRORS},
    exclude_unset=True,
    summary="A tournament: standings, crosstable and games once published",
    operation_id="arena_api_tournament_detail",
)
def tournament_get(request: HttpRequest, tournament_id: PathId) -> Any:
    """Standings carry score, a 95 % interval (``score_low``..``score_high``), Buchholz and
    Sonneborn-Berger; each game links its replay."""
    tournament = tournament_selectors.tournament_get(tournament_id=tournament_id)
    return tournament_selectors.tournament_as_dict(tournament, caller(request))


class EntryIn(Schema):
    agent: Id


class EntryOut(Schema):
    tournament: int
    entry: int
    agent: int


@router.post(
    "/tournaments/{tournament_id}/entry",
    response={201: EntryOut, **ERRORS},
    summary="Enter one of your agents",
    operation_id="arena_api_tournament_enter",
)
def entry_create(request: HttpRequest, tournament_id: PathId, body: EntryIn) -> Any:
    """One entry per user (entering again replaces the agent) while entries are open; the
    agent's latest accepted version at the freeze is the one that plays."""
    entry = tournament_services.entry_create(
        user=user_of(request), tournament_id=tournament_id, agent_id=body.agent
    )
    return Status(201, {"tournament": tournament_id, "entry": entry.pk, "agent": entry.agent_id})


@router.delete(
    "/tournaments/{tournament_id}/entry",
    response={204: None, **ERRORS},
    summary="Withdraw your entry",
    operation_id="arena_api_tournament_withdraw",
)
def entry_withdraw(request: HttpRequest, tournament_id: PathId) -> Any:
    """Only while entries are open."""
    tournament_services.entry_withdraw(user=user_of(request), tournament_id=tournament_id)
    return Status(204, None)
