"""A match's replay as the person watching may see it: the game's own presenter (through its
spec, so no game is named here) applied to the log as ``match_log`` filters it."""

from __future__ import annotations

import logging
from typing import Any

from arena.matches.models import Match
from arena.matches.selectors import match_log, owned_seats
from games.core import get_game_spec
from games.core.presenter import Replay, ReplayInput, generic_present, with_own_calls

logger = logging.getLogger(__name__)


def match_replay(match: Match, user: object, *, start: int = 0) -> dict[str, Any]:
    """The frames from ``start`` on (packed: see ``Replay.packed``), summary and downloads."""
    spec = get_game_spec(match.game)
    names = [p.submission.label for p in match.participants.select_related("submission__agent")]
    try:
        config = spec.make_config(match.config).model_dump(mode="json")
    except ValueError:  # an old config the current rules refuse: show what was stored
        config = dict(match.config or {})
    entries = match_log(match, user)
    mine = frozenset(owned_seats(match, user))
    given = ReplayInput(
        entries=entries, names=names, viewer_seats=mine, finished=match.is_done, config=config
    )
    try:
        replay = spec.presenter(given)
    except Exception:
        # A presenter bug (or a log it did not expect) must not take the match page down: the
        # turn log is still there, and the plain transcript usually is too.
        logger.exception("the %s presenter failed on match %s", match.game, match.pk)
        try:
            replay = generic_present(given)
        except Exception:
            logger.exception("the generic presenter failed on match %s", match.pk)
            replay = Replay()
    # The owner follows their own agent in the player too: timings, prints, refusals per move.
    replay = with_own_calls(replay, entries, mine)
    return replay.packed(max(0, min(start, len(replay.frames))))
