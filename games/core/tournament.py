"""Seeded round robins between house bots: the ladder test, ``arena strength`` and its tables.

Every pair of bots plays ``matches_per_pair`` matches in-process, untimed. Matches come in twins:
match ``2k`` and ``2k+1`` share the seed ``seed + k`` with the seats swapped, so both bots get the
same cards, dice or codes from both seats and the seat advantage cancels. The result ranks the bots
by the game's own ladder measure (``Game.ranking``): mean payoff per match against the field, or
Elo on win/draw/loss, applied in the order the matches were played, round after round.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from games.core.agent import InProcessAgentHandle
from games.core.ranking import (
    DEFAULT_MIN_MATCHES,
    ELO_START,
    PayoffSummary,
    elo_ratings,
    payoff_summary,
    rank_by_mean_payoff,
)
from games.core.referee import MatchSettings, play_match
from games.core.registry import get_game_spec, offline_judge


@dataclass
class PairResult:
    """Head-to-head figures of ``a`` against ``b`` (``a_wins`` counts wins of ``a``)."""

    a: str
    b: str
    matches: int = 0
    a_wins: int = 0
    b_wins: int = 0
    draws: int = 0
    a_score_total: float = 0.0
    b_score_total: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON, with mean scores per match."""
        n = max(self.matches, 1)
        return {
            "a": self.a,
            "b": self.b,
            "matches": self.matches,
            "a_wins": self.a_wins,
            "b_wins": self.b_wins,
            "draws": self.draws,
            "a_win_rate": round(self.a_wins / n, 3),
            "a_mean_score": round(self.a_score_total / n, 3),
            "b_mean_score": round(self.b_score_total / n, 3),
        }


@dataclass
class RoundRobin:
    """Everything a round robin produced."""

    game: str
    version: int
    ranking: str
    seed: int
    matches_per_pair: int
    bots: list[str]
    pairs: list[PairResult] = field(default_factory=list)
    #: Each bot's own score in every match it played, in match order.
    payoffs: dict[str, list[float]] = field(default_factory=dict)
    #: ``(a, b, score of a)`` per match in the order played, for Elo.
    results: list[tuple[str, str, float]] = field(default_factory=list)

    def elo(self) -> dict[str, float]:
        """Elo of every bot after the round robin, in match order."""
        ratings = elo_ratings(self.results)
        return {bot: ratings.get(bot, ELO_START) for bot in self.bots}

    def standings(self, min_matches: int = DEFAULT_MIN_MATCHES) -> list[dict[str, Any]]:
        """The bots in ladder order by the game's measure, each row with Elo beside it."""
        elo = self.elo()
        record = {bot: [0, 0, 0] for bot in self.bots}  # wins, draws, losses
        for a, b, score in self.results:
            slot = 0 if score == 1 else 1 if score == 0.5 else 2
            record[a][slot] += 1
            record[b][2 - slot] += 1
        rows = []
        if self.ranking == "mean_payoff":
            for standing in rank_by_mean_payoff(self.payoffs, min_matches=min_matches):
                rows.append(_row(standing.agent, standing.rank, elo, record, standing.summary))
        else:
            order = sorted(self.bots, key=lambda b: (-elo[b], b))
            for place, bot in enumerate(order, start=1):
                summary = payoff_summary(self.payoffs.get(bot, []), min_matches=min_matches)
                rows.append(_row(bot, place, elo, record, summary))
        return rows


def _row(
    bot: str,
    rank: int | None,
    elo: dict[str, float],
    record: dict[str, list[int]],
    summary: PayoffSummary,
) -> dict[str, Any]:
    half = summary.half_width
    return {
        "bot": bot,
        "rank": rank,
        "mean_payoff": round(summary.mean, 3),
        "ci95": None if half is None else round(half, 3),
        "matches": summary.matches,
        "elo": round(elo[bot], 1),
        "wins": record[bot][0],
        "draws": record[bot][1],
        "losses": record[bot][2],
    }


def play_round_robin(
    game_id: str,
    bots: Sequence[str] | None = None,
    *,
    matches_per_pair: int,
    seed: int = 0,
    on_match: Callable[[str, str, int], None] | None = None,
) -> RoundRobin:
    """Play every pair of ``bots`` (default: all house bots) ``matches_per_pair`` times.

    ``on_match(a, b, index)`` is called before each match (progress for long tables). Raises
    ``RuntimeError`` if a match fails on the platform's side: a table must never hide one.
    """
    spec = get_game_spec(game_id)
    names = list(bots) if bots is not None else list(spec.bots)
    for name in names:
        if name not in spec.bots:
            raise KeyError(f"{game_id} has no house bot {name!r}; its bots: {', '.join(spec.bots)}")
    if matches_per_pair < 1:
        raise ValueError("matches_per_pair must be at least 1")
    robin = RoundRobin(
        game=game_id,
        version=spec.version,
        ranking=spec.ranking,
        seed=seed,
        matches_per_pair=matches_per_pair,
        bots=names,
        payoffs={name: [] for name in names},
    )
    pairs = [PairResult(a, b) for a, b in combinations(names, 2)]
    robin.pairs = pairs
    settings = MatchSettings(timed=False, keep_stdout=False)
    for index in range(matches_per_pair):
        for pair in pairs:
            if on_match is not None:
                on_match(pair.a, pair.b, index)
            seats = [pair.a, pair.b] if index % 2 == 0 else [pair.b, pair.a]
            match_seed = seed + index // 2
            record = play_match(
                game_id,
                [InProcessAgentHandle(spec.bots[name], name) for name in seats],
                seed=match_seed,
                judge=offline_judge(game_id),
                settings=settings,
            )
            if record.platform_error:
                raise RuntimeError(
                    f"{game_id} {seats[0]} vs {seats[1]}, seed {match_seed}: "
                    f"{record.platform_error}"
                )
            score = {seats[i]: record.seats[i].score for i in range(2)}
            winner = None if record.winner is None else seats[record.winner]
            pair.matches += 1
            pair.a_score_total += score[pair.a]
            pair.b_score_total += score[pair.b]
            if winner is None:
                pair.draws += 1
            elif winner == pair.a:
                pair.a_wins += 1
            else:
                pair.b_wins += 1
            robin.payoffs[pair.a].append(score[pair.a])
            robin.payoffs[pair.b].append(score[pair.b])
            robin.results.append(
                (pair.a, pair.b, 0.5 if winner is None else 1.0 if winner == pair.a else 0.0)
            )
    return robin
