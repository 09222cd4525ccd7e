"""Pure arithmetic of a ladder row (no Django): mean payoff with its interval, recent load,
recent opponents. ``services.rating_apply`` calls it inside the Elo transaction; the scale and
quality benches call it too.

``games.core`` is to gain a shared ranking helper (issue 13); until it lands, the small
statistics below are the platform's own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

#: "Recent" as matchmaking means it: a game counts exp(-age / RECENT) of a game.
RECENT = timedelta(hours=24)
#: How many latest opponents a row remembers (no immediate rematch; vary opponents).
RECENT_OPPONENTS_KEPT = 16
#: Two-sided 95 % normal quantile for the payoff interval.
Z_95 = 1.959963984540054


@dataclass(frozen=True)
class PayoffSummary:
    """Mean payoff per match with its 95 % interval half-width (None below two matches)."""

    mean: float | None
    half_width: float | None
    matches: int


def payoff_summary(total: float, squares: float, matches: int) -> PayoffSummary:
    """Mean of ``matches`` payoffs given their sum and sum of squares, with a normal 95 %
    confidence interval of the mean (sample standard deviation)."""
    if matches <= 0:
        return PayoffSummary(None, None, 0)
    mean = total / matches
    if matches < 2:
        return PayoffSummary(mean, None, matches)
    variance = max(0.0, (squares - matches * mean * mean) / (matches - 1))
    return PayoffSummary(mean, Z_95 * math.sqrt(variance / matches), matches)


def decayed_load(load: float, since: datetime | None, now: datetime) -> float:
    """``load`` (valid at ``since``) as seen at ``now``: each game fades as exp(-age / RECENT)."""
    if since is None or load <= 0.0:
        return 0.0
    age_s = max(0.0, (now - since).total_seconds())
    return load * math.exp(-age_s / RECENT.total_seconds())


def opponents_after(recent: list[int], opponent: int) -> list[int]:
    """The recent-opponents list (newest first) after a match against ``opponent``."""
    return [opponent, *recent][:RECENT_OPPONENTS_KEPT]
