"""A server-rendered SVG line chart of a rating history (no JavaScript, no CDN), with both axes
drawn and labelled: Elo up the left, rated games along the bottom."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

#: Room left of the plot for the Elo labels, and below it for the games labels.
LEFT_PX, BOTTOM_PX, TOP_PX, RIGHT_PX = 48, 34, 10, 12


def _ticks(low: float, high: float, count: int) -> list[float]:
    """``count`` evenly spaced values from ``low`` to ``high`` (both included)."""
    if count < 2 or high == low:
        return [low]
    return [low + (high - low) * i / (count - 1) for i in range(count)]


#: At most this many steps between labels along the games axis (it must read on a phone).
MAX_GAME_STEPS = 6


def game_axis_ticks(games: int) -> list[int]:
    """Where the games axis is labelled: 0, then every ``step`` games (1, 2 or 5 times a power
    of ten, at most ``MAX_GAME_STEPS`` steps), and the last game when it is more than half a
    step past the last multiple (nearer, the two labels would touch). No label in the run is
    skipped: rounding evenly spaced fractions (0, 1.25, 2.5, 3.75, 5) gave 0 1 2 4 5."""
    if games <= 0:
        return [0]
    step = 1
    while games / step > MAX_GAME_STEPS:
        step = _next_step(step)
    ticks = list(range(0, games + 1, step))
    if games - ticks[-1] > step / 2:
        ticks.append(games)
    return ticks


def _next_step(step: int) -> int:
    """The next of 1, 2, 5, 10, 20, 50, ..."""
    digits = str(step)
    lead, zeros = int(digits[0]), len(digits) - 1
    return int({1: 2, 2: 5, 5: 10}[lead] * 10**zeros)


def rating_chart_svg(
    ratings: Sequence[float], *, width: int = 640, height: int = 220
) -> SafeString:
    """A polyline of ``ratings`` (the first point is the rating before any game) over axes:
    Elo ticks on the left (lowest, middle, highest), rated-game ticks along the bottom. It
    scales down to its container's width (a phone)."""
    if len(ratings) < 2:
        return mark_safe("")
    games = len(ratings) - 1
    low, high = min(ratings), max(ratings)
    if high - low < 20.0:  # a flat history still gets a readable scale
        middle = (high + low) / 2
        low, high = middle - 10.0, middle + 10.0
    plot_w = width - LEFT_PX - RIGHT_PX
    plot_h = height - TOP_PX - BOTTOM_PX
    bottom = TOP_PX + plot_h

    def x(game: float) -> float:
        return LEFT_PX + game / games * plot_w

    def y(value: float) -> float:
        return bottom - (value - low) / (high - low) * plot_h

    points = " ".join(f"{x(i):.1f},{y(r):.1f}" for i, r in enumerate(ratings))
    y_ticks = format_html_join(
        "",
        '<line x1="{}" y1="{}" x2="{}" y2="{}" class="grid"/>'
        '<text x="{}" y="{}" class="label" text-anchor="end">{}</text>',
        (
            (LEFT_PX, f"{y(v):.1f}", width - RIGHT_PX, f"{y(v):.1f}")
            + (LEFT_PX - 5, f"{y(v) + 4:.1f}", f"{v:.0f}")
            for v in _ticks(low, high, 3)
        ),
    )
    game_ticks = game_axis_ticks(games)
    x_ticks = format_html_join(
        "",
        '<line x1="{}" y1="{}" x2="{}" y2="{}" class="axis"/>'
        '<text x="{}" y="{}" class="label" text-anchor="middle">{}</text>',
        (
            (f"{x(g):.1f}", bottom, f"{x(g):.1f}", bottom + 4)
            + (f"{x(g):.1f}", bottom + 16, str(g))
            for g in game_ticks
        ),
    )
    return format_html(
        '<svg class="chart" role="img" aria-label="Elo rating over {} rated games" '
        'viewBox="0 0 {} {}" width="{}" height="{}">'
        "{}{}"
        '<line x1="{}" y1="{}" x2="{}" y2="{}" class="axis" data-axis="y"/>'
        '<line x1="{}" y1="{}" x2="{}" y2="{}" class="axis" data-axis="x"/>'
        '<polyline fill="none" stroke="currentColor" stroke-width="2" points="{}"/>'
        '<text x="12" y="{}" class="label axis-title" transform="rotate(-90 12 {})" '
        'text-anchor="middle">Elo</text>'
        '<text x="{}" y="{}" class="label axis-title" text-anchor="middle">rated games</text>'
        "</svg>",
        games,
        width,
        height,
        width,
        height,
        y_ticks,
        x_ticks,
        LEFT_PX,
        TOP_PX,
        LEFT_PX,
        bottom,
        LEFT_PX,
        bottom,
        width - RIGHT_PX,
        bottom,
        points,
        TOP_PX + plot_h / 2,
        TOP_PX + plot_h / 2,
        LEFT_PX + plot_w / 2,
        height - 2,
    )
