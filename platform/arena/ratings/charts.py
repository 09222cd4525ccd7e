"""A server-rendered SVG line chart of a rating history (no JavaScript, no CDN)."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe


def rating_chart_svg(
    ratings: Sequence[float], *, width: int = 640, height: int = 200
) -> SafeString:
    """A polyline of ``ratings`` (the first point is the start) with the min/max labelled."""
    if len(ratings) < 2:
        return mark_safe("")
    pad = 30
    low, high = min(ratings), max(ratings)
    span = max(high - low, 20.0)
    step = (width - 2 * pad) / (len(ratings) - 1)

    def y(value: float) -> float:
        return height - pad - (value - low) / span * (height - 2 * pad)

    points = " ".join(f"{pad + i * step:.1f},{y(r):.1f}" for i, r in enumerate(ratings))
    return format_html(
        '<svg class="chart" role="img" aria-label="Elo rating over {} rated games" '
        'viewBox="0 0 {} {}" width="{}" height="{}">'
        '<line x1="{}" y1="{}" x2="{}" y2="{}" class="axis"/>'
        '<polyline fill="none" stroke="currentColor" stroke-width="2" points="{}"/>'
        '<text x="2" y="{}" class="label">{}</text><text x="2" y="{}" class="label">{}</text>'
        "</svg>",
        len(ratings) - 1,
        width,
        height,
        width,
        height,
        pad,
        height - pad,
        width - pad,
        height - pad,
        points,
        y(high) + 4,
        f"{high:.0f}",
        y(low) + 4,
        f"{low:.0f}",
    )
