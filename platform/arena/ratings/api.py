"""The ratings' JSON API (a django-ninja ``Router`` mounted by ``arena.api`` under /api/ratings/):
downloads of every board with its intervals, and the boards across games.

Public reads (no token). Thin: the tables come from ``export.py`` and ``unified.py``. A refusal
raises ``arena.errors`` exceptions, which the API turns into its error shape.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Path, Router, Schema

from arena.api_base import known_game
from arena.ratings import export, unified
from arena.ratings.model_card import model_card

router = Router(tags=["ratings"])

Board = Literal["models", "users"]
GameId = Annotated[str, Path(max_length=100)]


class RefusalOut(Schema):
    error: str
    details: list[dict[str, Any]] = []


def _csv_response(columns: Any, rows: Any, name: str) -> HttpResponse:
    response = HttpResponse(export.as_csv(columns, rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return response


_CSV_DOC = {
    "responses": {
        "200": {
            "description": "a header line, then one line a row (UTF-8 CSV)",
            "content": {"text/csv": {"schema": {"type": "string"}}},
        }
    }
}


class LadderTableOut(Schema):
    game: str
    version: int
    ranking: Literal["elo", "mean_payoff"]
    #: Of every interval in the table.
    confidence: float
    columns: list[str]
    #: Best first; ``rating_low``/``rating_high`` bound the Elo rating, ``payoff_low``/
    #: ``payoff_high`` the mean payoff; ``rank_best``–``rank_worst`` the places the entry may
    #: hold given the intervals (None where it takes no part in the ranking).
    rows: list[dict[str, Any]]


@router.get(
    "/leaderboards/{game}/export.json",
    auth=None,
    response={200: LadderTableOut, 400: RefusalOut, 404: RefusalOut},
    url_name="ratings_leaderboard_json",
    summary="A game's whole ladder with 95 % intervals and rank ranges",
)
def leaderboard_json(request: HttpRequest, game: GameId) -> Any:
    """Every entry of the game's current ladder, best first."""
    return export.ladder_table(game=known_game(game))


@router.get(
    "/leaderboards/{game}/export.csv",
    auth=None,
    response={400: RefusalOut, 404: RefusalOut},
    openapi_extra=_CSV_DOC,
    url_name="ratings_leaderboard_csv",
    summary="A game's whole ladder with 95 % intervals and rank ranges, as CSV",
)
def leaderboard_csv(request: HttpRequest, game: GameId) -> HttpResponse:
    """The columns of the JSON download, one line per entry."""
    table = export.ladder_table(game=known_game(game))
    return _csv_response(table["columns"], table["rows"], f"{game}-v{table['version']}")


class UnifiedRowOut(Schema):
    key: str
    label: str
    rank: int
    rank_best: int
    rank_worst: int
    #: Bradley-Terry strength over every game, on the Elo scale, with its 95 % interval.
    rating: float
    rating_low: float
    rating_high: float
    #: Rated matches behind the row, all games together.
    matches: int
    #: Per game: the entry that stands for the row there, its Elo and interval and matches.
    per_game: dict[str, dict[str, Any]]


class UnifiedBoardOut(Schema):
    board: Board
    #: When the boards were last fitted (None: never yet).
    fitted: str | None
    matches: int
    games: list[str]
    rows: list[UnifiedRowOut]


@router.get(
    "/unified/{board}",
    auth=None,
    response={200: UnifiedBoardOut, 400: RefusalOut},
    url_name="ratings_unified",
    summary="The board across games (models, or users by their best agent per game)",
    operation_id="arena_ratings_api_unified_view",
)
def unified_get(request: HttpRequest, board: Board) -> Any:
    """Best first, as last fitted (the fit runs on the maintenance queue)."""
    return unified.unified_board(board=board).as_dict()


class UnifiedTableOut(Schema):
    board: Board
    fitted: str | None
    matches: int
    games: list[str]
    confidence: float
    columns: list[str]
    rows: list[dict[str, Any]]


@router.get(
    "/unified/{board}/export.json",
    auth=None,
    response={200: UnifiedTableOut, 400: RefusalOut},
    url_name="ratings_unified_json",
    summary="The whole board across games as a table, per-game columns flattened",
)
def unified_json(request: HttpRequest, board: Board) -> Any:
    """Every row, best first."""
    return export.unified_table(board=board)


@router.get(
    "/unified/{board}/export.csv",
    auth=None,
    response={400: RefusalOut},
    openapi_extra=_CSV_DOC,
    url_name="ratings_unified_csv",
    summary="The whole board across games, as CSV",
)
def unified_csv(request: HttpRequest, board: Board) -> HttpResponse:
    """The columns of the JSON download, one line per row."""
    table = export.unified_table(board=board)
    return _csv_response(table["columns"], table["rows"], f"unified-{board}")


@router.get(
    "/models/{name}",
    auth=None,
    response={200: dict[str, Any], 400: RefusalOut, 404: RefusalOut},
    url_name="ratings_model_card",
    summary="A language model's card: ratings per game and across games, play, latency, cost",
    operation_id="arena_ratings_api_model_card_view",
)
def model_card_get(request: HttpRequest, name: Annotated[str, Path(max_length=64)]) -> Any:
    """Every configuration of the registered model ``name`` on the ladders."""
    return model_card(name=name)
