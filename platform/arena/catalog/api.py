"""The API's catalog endpoints: the games, and one page of a game's ladder."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest
from ninja import Path, Query, Router, Schema
from pydantic import ConfigDict

from arena.api_base import ERRORS, known_game
from arena.ratings.selectors import MAX_PER_PAGE, PER_PAGE, leaderboard_page
from games.core import available_game_ids, get_game_spec

router = Router()


class GameOut(Schema):
    id: str
    title: str
    version: str | int
    house_bots: list[str]


@router.get(
    "/games",
    auth=None,
    response={200: list[GameOut], **ERRORS},
    summary="The games",
    operation_id="arena_api_games",
)
def game_list(request: HttpRequest) -> Any:
    """Every game on this platform, with its version and house bots."""
    items = []
    for game_id in available_game_ids():
        spec = get_game_spec(game_id)
        items.append(
            {
                "id": game_id,
                "title": spec.title,
                "version": spec.version,
                "house_bots": sorted(spec.bots),
            }
        )
    return items


class LadderFigureOut(Schema):
    key: str
    label: str
    description: str


class LeaderboardRow(Schema):
    model_config = ConfigDict(extra="allow")

    rank: int
    agent: str
    agent_id: int
    submission: int
    owner: str
    #: "model" for a language-model entrant (``model`` names it), else "code".
    kind: Literal["code", "model"] = "code"
    model: str | None = None
    rating: float
    #: The rating's 95 % interval and its half-width (``rating`` ± ``rating_interval``).
    rating_low: float
    rating_high: float
    rating_interval: float
    #: The places the entry may hold given the intervals ("3–5"); None where it takes no part
    #: in the ranking (a mean-payoff ladder's entry below ``min_matches``).
    rank_best: int | None = None
    rank_worst: int | None = None
    games: int
    wins: int
    losses: int
    draws: int
    provisional: bool
    active: bool
    #: The game's own figures by key (``figures`` of the page says what each is), e.g. poker's
    #: ``bb_per_100``; empty for a game that declares none.
    figures: dict[str, float | None]
    mean_payoff: float | None
    #: Half-width of the 95 % interval of the mean payoff, and its bounds.
    payoff_interval: float | None
    payoff_low: float | None = None
    payoff_high: float | None = None
    #: False on a mean-payoff ladder while the entry has fewer than ``min_matches``.
    ranked: bool


class LeaderboardPage(Schema):
    game: str
    version: int
    #: The measure that orders the ladder (``Game.ranking``).
    ranking: Literal["elo", "mean_payoff"]
    measure: str
    min_matches: int | None
    page: int
    pages: int
    per_page: int
    total: int
    search: str
    #: The game's own ladder figures: ``key``, ``label``, ``description``.
    figures: list[LadderFigureOut]
    #: The ``kind`` filter applied: "" (all), "code" or "model".
    kind: str = ""
    rows: list[LeaderboardRow]


@router.get(
    "/leaderboard/{game}",
    auth=None,
    response={200: LeaderboardPage, **ERRORS},
    summary="One page of a game's ladder and the measure that ranks it",
    operation_id="arena_api_leaderboard_view",
)
def leaderboard_get(
    request: HttpRequest,
    game: Annotated[str, Path(max_length=100)],
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    per_page: Annotated[int, Query(ge=1, le=MAX_PER_PAGE)] = PER_PAGE,
    q: Annotated[str, Query(max_length=64, description="agent name or owner contains")] = "",
    kind: Annotated[
        Literal["", "code", "model"], Query(description="only uploaded code, or only models")
    ] = "",
) -> Any:
    """Best first; rows keep their rank on the whole ladder when searching."""
    return leaderboard_page(
        game=known_game(game), page=page, per_page=per_page, search=q, kind=kind
    ).as_dict()
