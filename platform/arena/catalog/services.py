"""Demo data: the house bots of every registered game on its ladder, loaded once."""

from __future__ import annotations

from django.db import transaction

from arena.ratings.services import rating_ensure
from arena.submissions.services import house_submission_ensure
from games.core import available_game_ids, get_game_spec


@transaction.atomic
def demo_data_load() -> int:
    """Put every house bot of every game on its ladder; returns how many were added now."""
    added = 0
    for game in available_game_ids():
        for bot in sorted(get_game_spec(game).bots):
            submission = house_submission_ensure(game=game, bot=bot, active=True)
            if not hasattr(submission, "rating"):
                added += 1
            rating_ensure(submission=submission)
    return added
