"""A language model's card: how it stands and how it plays, from stored rows.

For a registered model (``LanguageModel.name``): its entrants' ratings with their 95 % intervals
per game, its rows on the models board across games (one per configuration), its ranked games
timed and untimed apart, how often it needed re-asking (calls with ``attempt`` > 0 per move, the
referee's illegal-move retries) and forfeited, its latency (p50/p95 of its latest calls), tokens
and cost per match from the ledger (``arena.llm.models.ModelCall``), and links to its latest
games. A fixed number of queries whatever the model's history: the latency percentiles are read
from the latest ``LATENCY_SAMPLE`` calls.
"""

from __future__ import annotations

import statistics
from decimal import Decimal
from typing import Any

from django.db.models import Count, Q, Sum

from arena.errors import NotFound
from arena.llm.models import LanguageModel, ModelCall
from arena.matches.models import Match, Participant
from arena.ratings.models import Rating, UnifiedFit, UnifiedStanding
from arena.ratings.unified import current_ladders

#: Latency percentiles are taken over this many of the model's latest calls.
LATENCY_SAMPLE = 5000
#: Latest games linked from the card.
LATEST_GAMES = 20
#: Why a seat lost that counts as a forfeit (the referee's reasons).
FORFEIT_REASONS = ("timeout", "illegal", "crash", "init_error")


def _percentile(values: list[float], share: float) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(share * 100) - 1]


def model_card(*, name: str) -> dict[str, Any]:
    """The card of the registered model ``name`` (``NotFound`` when none is)."""
    model = LanguageModel.objects.filter(name=name).values("id", "name", "display_name").first()
    if model is None:
        raise NotFound(f"no registered model is named {name!r}: see /llm/ for the models")
    ladders = current_ladders()
    entrants = list(
        Rating.objects.filter(submission__model_entrant__model_id=model["id"])
        .order_by("game", "-rating", "id")
        .values(
            "game",
            "game_version",
            "rating",
            "rating_low",
            "rating_high",
            "games",
            "wins",
            "losses",
            "draws",
            "submission_id",
            "submission__version",
            "submission__agent_id",
            "submission__agent__name",
            "submission__agent__owner__username",
        )
    )
    per_game = [
        {
            "game": r["game"],
            "agent": f"{r['submission__agent__name']} v{r['submission__version']}",
            "agent_id": r["submission__agent_id"],
            "owner": r["submission__agent__owner__username"],
            "rating": round(r["rating"], 1),
            "rating_low": round(r["rating_low"], 1),
            "rating_high": round(r["rating_high"], 1),
            "games": r["games"],
            "wins": r["wins"],
            "losses": r["losses"],
            "draws": r["draws"],
        }
        for r in entrants
        if ladders.get(r["game"]) == r["game_version"]
    ]
    seats = Participant.objects.filter(
        submission__model_entrant__model_id=model["id"],
        match__kind=Match.Kind.RANKED,
        match__status=Match.Status.FINISHED,
    )
    play = {
        row["match__timed"]: row
        for row in seats.values("match__timed")
        .annotate(
            games=Count("id"),
            wins=Count("id", filter=Q(outcome="win")),
            losses=Count("id", filter=Q(outcome="loss")),
            draws=Count("id", filter=Q(outcome="draw")),
            forfeits=Count("id", filter=Q(outcome="loss", reason__in=FORFEIT_REASONS)),
        )
        .order_by()
    }
    calls = ModelCall.objects.filter(
        model_id=model["id"], submission__model_entrant__model_id=model["id"]
    )
    ledger = calls.aggregate(
        calls=Count("id"),
        moves=Count("id", filter=Q(attempt=0)),
        reasks=Count("id", filter=Q(attempt__gt=0)),
        matches=Count("match_id", distinct=True),
        prompt_tokens=Sum("prompt_tokens"),
        completion_tokens=Sum("completion_tokens"),
        cost_usd=Sum("cost_usd"),
    )
    latencies = sorted(
        calls.filter(outcome="answered")
        .order_by("-id")
        .values_list("latency_ms", flat=True)[:LATENCY_SAMPLE]
    )
    matches = ledger["matches"] or 0
    tokens = (ledger["prompt_tokens"] or 0) + (ledger["completion_tokens"] or 0)
    cost = ledger["cost_usd"] or Decimal(0)
    fit = UnifiedFit.objects.order_by("-id").values_list("id", flat=True).first()
    unified_rows = (
        list(
            UnifiedStanding.objects.filter(
                fit_id=fit,
                board=UnifiedStanding.Board.MODELS,
                key__startswith=f"model:{model['name']}:",
            )
            .order_by("rank")
            .values("key", "label", "rank", "rank_best", "rank_worst", "rating", "rating_low",
                    "rating_high", "matches")
        )
        if fit is not None
        else []
    )  # fmt: skip
    latest = list(
        seats.order_by("-match_id").values_list("match_id", "match__game", "outcome")[:LATEST_GAMES]
    )
    all_play = list(play.values())
    forfeits = sum(p["forfeits"] for p in all_play)
    games = sum(p["games"] for p in all_play)

    def played(timed: bool) -> dict[str, int]:
        row = play.get(timed)
        keys = ("games", "wins", "losses", "draws", "forfeits")
        return {k: int(row[k]) if row else 0 for k in keys}

    return {
        "model": model["name"],
        "display_name": model["display_name"],
        "unified": unified_rows,
        "per_game": per_game,
        "timed": played(True),
        "untimed": played(False),
        "reasks_per_move": round(ledger["reasks"] / ledger["moves"], 4)
        if ledger["moves"]
        else None,
        "forfeit_rate": round(forfeits / games, 4) if games else None,
        "latency_ms_p50": _percentile(latencies, 0.5),
        "latency_ms_p95": _percentile(latencies, 0.95),
        "latency_calls": len(latencies),
        "tokens_per_match": round(tokens / matches, 1) if matches else None,
        "cost_usd_per_match": float(cost / matches) if matches else None,
        "cost_usd_total": float(cost),
        "latest_games": [
            {"match": match_id, "game": game, "outcome": outcome}
            for match_id, game, outcome in latest
        ],
    }
