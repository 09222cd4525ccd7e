"""Pure arithmetic of a ladder row (no Django): recent load and recent opponents.
``services.rating_apply`` calls it inside the Elo transaction; the scale and quality benches
call it too. The measures themselves (Elo, mean payoff with its interval, from a row's running
sums) are ``games.core.ranking``'s.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

#: "Recent" as matchmaking means it: a game counts exp(-age / RECENT) of a game.
RECENT = timedelta(hours=24)
#: How many latest opponents a row remembers (no immediate rematch; vary opponents).
RECENT_OPPONENTS_KEPT = 16


def decayed_load(load: float, since: datetime | None, now: datetime) -> float:
    """``load`` (valid at ``since``) as seen at ``now``: each game fades as exp(-age / RECENT)."""
    return load_after(load, None if since is None else (now - since).total_seconds())


def load_after(load: float, age_s: float | None) -> float:
    """``load`` as seen ``age_s`` seconds after it was valid (None: it never was)."""
    if age_s is None or load <= 0.0:
        return 0.0
    return load * math.exp(-max(0.0, age_s) / RECENT.total_seconds())


def idle_s(last_played: datetime | None, now: datetime) -> float:
    """Seconds since the last rated game ended (infinite when there was none)."""
    return idle_after(None if last_played is None else (now - last_played).total_seconds())


def idle_after(age_s: float | None) -> float:
    """``idle_s`` of an entry whose last rated game ended ``age_s`` seconds ago (None: none)."""
    return math.inf if age_s is None else max(0.0, age_s)


def opponents_after(recent: list[int], opponent: int) -> list[int]:
    """The recent-opponents list (newest first) after a match against ``opponent``."""
    return [opponent, *recent][:RECENT_OPPONENTS_KEPT]
