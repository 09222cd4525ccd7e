"""What the ratings' pages print: the rows the selectors read, formatted once here (numbers as
the site prints them, links built with one URL reversal a kind), so a template only places
strings and 50 rows cost no per-cell filter or tag.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from html import escape
from typing import Any

from django.utils.safestring import SafeString, mark_safe

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


_RANGE_OPEN = (
    '<span class="muted rank-range" title="the places this entry may hold given the 95 % '
    'intervals">'
)
_PROVISIONAL = ' <abbr title="provisional: fewer than 20 rated games">?</abbr>'


def leaderboard_rows_html(
    cells: list[dict[str, Any]], *, ranking: str, min_matches: int, me: str
) -> SafeString:
    # ``html.escape`` (quotes too) is what Django's ``escape`` calls, without its lazy-string
    # wrapper and a SafeString per value: every value here is a plain str.
    """The game page's table rows (``cells`` as ``leaderboard_cells`` made them), for the
    visitor ``me`` ("" signed out), every text escaped.

    Written here rather than looped in the template: the template engine resolved ~800 variables
    and tags for a page of 50 rows, 3-5 ms of a page of about 28 ms on a large ladder
    (docs/architecture.md, "At scale"); this is the same markup in 0.3-0.5 ms.
    """
    payoff = ranking == "mean_payoff"
    unranked = escape(f"fewer than {min_matches} rated matches: not ranked yet")
    out: list[str] = []
    for row in cells:
        rank = escape(row["rank_text"])
        if row["ranked"]:
            rank_cell = rank
            spread = row["rank_range_text"]
            if spread and spread != row["rank_text"]:
                rank_cell += f" {_RANGE_OPEN}{escape(spread)}</span>"
        else:
            rank_cell = f'<abbr title="{unranked}">({rank})</abbr>'
        mine = bool(me) and row["owner"] == me
        agent_cell = f'<a href="{escape(row["url"])}">{escape(row["agent"])}</a>'
        if row["model"]:
            agent_cell += (
                ' <span class="model-mark" title="a language model entrant">'
                f"model: {escape(row['model'])}</span>"
            )
        if row["provisional"]:
            agent_cell += _PROVISIONAL
        if mine:
            agent_cell += ' <span class="you">yours</span>'
        classes = ("" if row["active"] else "inactive") + (" mine" if mine else "")
        payoff_cell = ""
        if payoff:
            shown = escape(row["mean_payoff_text"])
            if row["interval_shown"]:
                shown += f' <span class="muted">± {escape(row["interval_text"])}</span>'
            payoff_cell = f"<td>{shown}</td>"
        figures = "".join(f"<td>{escape(text)}</td>" for text in row["figure_texts"])
        out.append(
            f'<tr class="{classes}"><td>{rank_cell}</td><td>{agent_cell}</td>'
            f"<td>{escape(row['owner'])}</td>{payoff_cell}"
            f'<td>{escape(row["rating_text"])} <span class="muted" title="95 % interval: '
            f'{escape(str(row["rating_low"]))} to {escape(str(row["rating_high"]))}">± '
            f"{escape(row['rating_interval_text'])}</span></td><td>{escape(row['games_text'])}</td>"
            f"<td>{escape(row['record'])}</td>{figures}</tr>\n"
        )
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped


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
