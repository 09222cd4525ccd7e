"""Pair → enqueue: matchmaking for every game's ladder."""

from __future__ import annotations

from django.db import transaction

from arena.llm.judging import judge_status
from arena.llm.services import model_entrants_pause_over_budget
from arena.matches.models import Match
from arena.ratings.services import ladder_pair
from arena.workflows.dispatch import matches_enqueue_on_commit
from games.core import available_game_ids


def matchmaking_run() -> list[Match]:
    """Pair free ladder entries of every game; their ranked matches are enqueued per game as
    each game's pairing commits."""
    created: list[Match] = []
    # A model entrant without the budget for a match leaves the ladder first (with the reason).
    model_entrants_pause_over_budget()
    for game in available_game_ids():
        if not judge_status(game).ok:
            continue  # a judged game without its judge schedules nothing (its page says why)
        with transaction.atomic():
            paired = ladder_pair(game=game)
            matches_enqueue_on_commit(paired)
        created.extend(paired)
    return created
