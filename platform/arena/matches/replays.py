"""A match's replay as the person watching may see it: the game's own presenter (through its
spec, so no game is named here) applied to the log as ``match_log`` filters it."""

from __future__ import annotations

from typing import Any

from arena.matches.models import Match
from arena.matches.selectors import match_log, owned_seats
from games.core import get_game_spec
from games.core.presenter import ReplayInput, with_own_calls


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
    replay = spec.presenter(
        ReplayInput(
            entries=entries, names=names, viewer_seats=mine, finished=match.is_done, config=config
        )
    )
    # The owner follows their own agent in the player too: timings, prints, refusals per move.
    replay = with_own_calls(replay, entries, mine)
    return replay.packed(max(0, min(start, len(replay.frames))))
