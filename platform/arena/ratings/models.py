"""Ladder standings (Elo and the aggregates a leaderboard row shows) and their history."""

from __future__ import annotations

from django.db import models

from arena.matches.models import Match
from arena.submissions.models import Submission


class Rating(models.Model):
    """The ladder standing of one submission in its game version (docs/architecture.md).

    Everything a leaderboard row shows is kept here and changed in the transaction that applies
    Elo (``services.rating_apply``), so a page of the ladder costs a bounded number of queries
    whatever the number of matches. What matchmaking needs about an entry's past (when it last
    played, whom it met lately) is kept here too, so a pass reads one row per entry.
    """

    submission = models.OneToOneField(Submission, on_delete=models.CASCADE, related_name="rating")
    game = models.CharField(max_length=64)
    game_version = models.PositiveIntegerField()
    rating = models.FloatField(default=1200.0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    #: Sum and sum of squares of the payoff (the seat's final score) over rated matches: mean
    #: payoff and its confidence interval for games ranked by it (``Game.ranking``).
    payoff_sum = models.FloatField(default=0.0)
    payoff_squares = models.FloatField(default=0.0)
    #: ``payoff_sum / games``, stored so the ladder can be ordered (and indexed) by it.
    mean_payoff = models.FloatField(null=True, blank=True)
    #: The game's own ladder figures (``GamePackage.ladder_figures``, e.g. poker's BB/100):
    #: per figure key, ``[sum, matches]`` over the rated matches that reported it.
    figure_sums = models.JSONField(default=dict, blank=True)
    #: When the last rated match of this entry finished.
    last_played = models.DateTimeField(null=True, blank=True)
    #: Recent games, each weighing exp(-age / 24 h): "fewest recent games first" without
    #: counting matches at pairing time. Valid as of ``last_played``.
    recent_load = models.FloatField(default=0.0)
    #: Submission ids of the latest opponents, newest first (capped): no immediate rematch,
    #: and opponents met least often and least recently are preferred.
    recent_opponents = models.JSONField(default=list, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            models.Index(fields=["game", "game_version", "-rating", "id"], name="rating_by_elo"),
            # A mean-payoff ladder's head in its order (``selectors._ordered_ids``).
            models.Index(
                fields=["game", "game_version", "-mean_payoff", "-rating", "id"],
                name="rating_by_payoff",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.submission} {self.rating:.0f}"

    def figure(self, key: str) -> float | None:
        """The mean of ladder figure ``key`` over the rated matches that reported it, else None."""
        return figure_mean(self.figure_sums, key)


def figure_mean(figure_sums: object, key: str) -> float | None:
    """The mean of ``key`` in a row's ``figure_sums`` (``None`` when no match reported it)."""
    entry = figure_sums.get(key) if isinstance(figure_sums, dict) else None
    if not isinstance(entry, list) or len(entry) != 2 or not entry[1]:
        return None
    total, matches = entry
    return float(total) / float(matches)


class RatingChange(models.Model):
    """One match's effect on one rating; unique per (rating, match), so it is applied once."""

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="changes")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    before = models.FloatField()
    after = models.FloatField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["rating", "match"], name="rating_change_once")
        ]
        # An agent page reads the latest changes of one rating.
        indexes = [models.Index(fields=["rating", "-id"], name="rating_change_latest")]

    def __str__(self) -> str:
        return f"{self.before:.0f} → {self.after:.0f} in match {self.match_id}"
