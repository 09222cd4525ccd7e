"""Pure arithmetic of a ladder row (no Django): mean payoff with its interval, recent load,
recent opponents. ``services.rating_apply`` calls it inside the Elo transaction; the scale and
quality benches call it too.

``games.core.ranking`` holds the measure's statistics over a list of payoffs; a ladder row
keeps only their sum, sum of squares and count, so the same Student-t interval is computed here
from those.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from games.core.ranking import DEFAULT_CONFIDENCE, student_t_quantile

#: "Recent" as matchmaking means it: a game counts exp(-age / RECENT) of a game.
RECENT = timedelta(hours=24)
#: How many latest opponents a row remembers (no immediate rematch; vary opponents).
RECENT_OPPONENTS_KEPT = 16
#: Two-sided confidence of the payoff interval (as ``games.core.ranking``).
CONFIDENCE = DEFAULT_CONFIDENCE


@dataclass(frozen=True)
class PayoffSummary:
    """Mean payoff per match with its 95 % interval half-width (None below two matches)."""

    mean: float | None
    half_width: float | None
    matches: int


def payoff_summary(total: float, squares: float, matches: int) -> PayoffSummary:
    """Mean of ``matches`` payoffs given their sum and sum of squares, with the Student-t 95 %
    confidence interval of the mean that ``games.core.ranking.payoff_summary`` gives."""
    if matches <= 0:
        return PayoffSummary(None, None, 0)
    mean = total / matches
    if matches < 2:
        return PayoffSummary(mean, None, matches)
    variance = max(0.0, (squares - matches * mean * mean) / (matches - 1))
    quantile = student_t_quantile(0.5 + CONFIDENCE / 2, matches - 1)
    return PayoffSummary(mean, quantile * math.sqrt(variance / matches), matches)


def decayed_load(load: float, since: datetime | None, now: datetime) -> float:
    """``load`` (valid at ``since``) as seen at ``now``: each game fades as exp(-age / RECENT)."""
    if since is None or load <= 0.0:
        return 0.0
    age_s = max(0.0, (now - since).total_seconds())
    return load * math.exp(-age_s / RECENT.total_seconds())


def idle_s(last_played: datetime | None, now: datetime) -> float:
    """Seconds since the last rated game ended (infinite when there was none)."""
    if last_played is None:
        return math.inf
    return max(0.0, (now - last_played).total_seconds())


def opponents_after(recent: list[int], opponent: int) -> list[int]:
    """The recent-opponents list (newest first) after a match against ``opponent``."""
    return [opponent, *recent][:RECENT_OPPONENTS_KEPT]
