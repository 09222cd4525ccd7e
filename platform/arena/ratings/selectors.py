"""Reads for ratings: leaderboards and an agent's rating history."""

from __future__ import annotations

from typing import Any

from arena.matches.models import Participant
from arena.ratings import elo
from arena.ratings.models import Rating, RatingChange
from arena.submissions.models import Agent
from games.core import get_game_spec


def leaderboard(*, game: str) -> list[dict[str, Any]]:
    """The ladder of ``game``'s current version, best first, with rank and W/L/D."""
    version = get_game_spec(game).version
    rows = (
        Rating.objects.filter(game=game, game_version=version)
        .select_related("submission__agent__owner")
        .order_by("-rating", "id")
    )
    board = []
    for rank, r in enumerate(rows, start=1):
        board.append(
            {
                "rank": rank,
                "agent": r.submission.label,
                "agent_id": r.submission.agent_id,
                "submission": r.submission_id,
                "owner": r.submission.agent.owner.username,
                "rating": round(r.rating, 1),
                "games": r.games,
                "wins": r.wins,
                "losses": r.losses,
                "draws": r.draws,
                "provisional": elo.is_provisional(r.games),
                "active": r.submission.active,
                "bb_per_100": _bb_per_100(r.submission_id),
            }
        )
    return board


def _seat_stat(stats: dict[str, Any], key: str, seat: int) -> float | None:
    """A per-seat figure from a match's stats, whether keyed by seat, ``p<seat>`` or listed."""
    values = stats.get(key)
    if isinstance(values, list) and seat < len(values):
        value = values[seat]
    elif isinstance(values, dict):
        value = values.get(str(seat), values.get(f"p{seat}", values.get(seat)))  # type: ignore[call-overload]
    else:
        return None
    return float(value) if isinstance(value, int | float) else None


def _bb_per_100(submission_id: int) -> float | None:
    """Mean big blinds per 100 hands over the submission's ranked matches (poker), else None."""
    figures = [
        f
        for seat, stats in Participant.objects.filter(
            submission_id=submission_id, match__kind="ranked", match__status="finished"
        ).values_list("seat", "match__stats")
        if (f := _seat_stat(stats or {}, "bb_per_100", seat)) is not None
    ]
    return round(sum(figures) / len(figures), 1) if figures else None


def rating_history(*, agent: Agent) -> list[dict[str, Any]]:
    """Every rating change of the agent's submissions, oldest first."""
    return [
        {
            "match": c.match_id,
            "version": c.rating.submission.version,
            "before": c.before,
            "after": c.after,
            "at": c.created,
        }
        for c in RatingChange.objects.filter(rating__submission__agent=agent)
        .select_related("rating__submission")
        .order_by("id")
    ]
