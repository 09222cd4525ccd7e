"""Model entrants: create → validate (a short self-play) → the same ladder as code agents."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from pydantic import ValidationError

from arena.accounts.models import User
from arena.llm import services as llm_services
from arena.matches.models import Match
from arena.submissions.models import Submission
from arena.workflows.dispatch import match_schedule
from arena.workflows.submissions import upload_throttle_check
from games.core import get_game_spec

#: A model's self-play proves the endpoint answers and the seat plays; it need not be long.
#: Applied to the config fields a game has (number of games, hands, rounds, plies).
VALIDATION_SHORT: dict[str, int] = {"games": 1, "hands": 2, "rounds": 1, "max_plies": 8}


def validation_config(game: str) -> dict[str, Any]:
    """The game's own validation overrides (``GameConfig.validation_overrides``), each value of
    ``VALIDATION_SHORT`` over them where the config accepts it (a persuasion game's rounds come
    in pairs: one round is refused, its two stay)."""
    config_class = get_game_spec(game).config_class
    config = dict(config_class.validation_overrides)
    for key, value in VALIDATION_SHORT.items():
        if key not in config_class.model_fields:
            continue
        try:
            config_class(**{**config, key: value})
        except ValidationError:
            continue
        config[key] = value
    return config


@transaction.atomic
def model_entrant_submit(*, owner: User, **fields: Any) -> Submission:
    """Store a new model-entrant version and queue its short self-play validation.

    ``fields`` are ``model_entrant_create``'s. Throttled like uploads (same quota and cap on
    validations in flight).
    """
    upload_throttle_check(owner=owner)
    submission = llm_services.model_entrant_create(owner=owner, **fields)
    match = match_schedule(
        kind=Match.Kind.VALIDATION, submissions=[submission, submission], timed=True
    )
    Match.objects.filter(pk=match.pk).update(config=validation_config(submission.agent.game))
    return submission
