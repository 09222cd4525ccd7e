"""What the ratings' pages print: the rows the selectors read, formatted once here (numbers as
the site prints them, links built with one URL reversal a kind), so a template only places
strings and 50 rows cost no per-cell filter or tag.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from arena.ratings.links import agent_url_maker, url_maker
from games.core.presenter import number
from games.core.ranking import RankRange
from games.core.record import reason_text


def fixed(value: float | None, places: int) -> str:
    """``value`` with ``places`` decimals, rounded half up as the ``floatformat`` filter does;
    an en dash for none."""
    if value is None:
        return "–"
    rounded = Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return str(abs(rounded) if rounded == 0 else rounded)


def _range_text(row: dict[str, Any]) -> str:
    best, worst = row.get("rank_best"), row.get("rank_worst")
    if best is None or worst is None:
        return ""
    return str(RankRange(best, worst))


def leaderboard_cells(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What each leaderboard row (``selectors.leaderboard_page``, ``leaderboard_tops``) shows:
    the game page's table and the home page's tops."""
    url = agent_url_maker()
    return [
        {
            **row,
            "url": url(row["agent_id"]),
            "rating_text": fixed(row["rating"], 0),
            "mean_payoff_text": fixed(row["mean_payoff"], 2),
            "mean_payoff_short": fixed(row["mean_payoff"], 1),
            "interval_text": None
            if row["payoff_interval"] is None
            else fixed(row["payoff_interval"], 2),
            "record": f"{row['wins']}/{row['losses']}/{row['draws']}",
            "rank_text": str(row["rank"]),
            # "3–5" where intervals overlap (the rank itself when the range is known to be one
            # place or is not known).
            "rank_range_text": _range_text(row),
            "rating_interval_text": fixed(row["rating_interval"], 0),
            "games_text": str(row["games"]),
            # The interval beside a ranked entry's mean payoff.
            "interval_shown": row["ranked"]
            and row["mean_payoff"] is not None
            and row["payoff_interval"] is not None,
            "figure_texts": ["–" if v is None else str(v) for v in row.get("figure_values", ())],
        }
        for row in rows
    ]


def agent_ranked_cells(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The agent page's ranked matches (``selectors.agent_ranked_rows``) as its table prints
    them: the agent's seat and its opponents, with their links."""
    match_url, agent_url = url_maker("matches:detail"), agent_url_maker()
    return [
        {
            "match_id": str(row["match_id"]),
            "url": match_url(row["match_id"]),
            "status": row["status"],
            "seat": str(row["seat"]),
            "version": str(row["version"]),
            "opponents": [
                {
                    "url": agent_url(o["agent_id"]),
                    "label": f"{o['name']} v{o['version']}",
                    "owner": o["owner"],
                }
                for o in row["opponents"]
            ],
            "outcome": row["outcome"] or "",
            "reason": "" if (row["reason"] or "normal") == "normal" else reason_text(row["reason"]),
            "score": number(row["score"]),
            "elo": ""
            if row["rating_after"] is None
            else f"{fixed(row['rating_before'], 0)} → {fixed(row['rating_after'], 0)}",
        }
        for row in rows
    ]
