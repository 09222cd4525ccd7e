"""Ladder standings (Elo and the aggregates a leaderboard row shows) and their history."""

from __future__ import annotations

from django.db import models

from arena.matches.models import Match
from arena.submissions.models import Submission
from games.core.ranking import ELO_START, ELO_START_DEVIATION, Z_95


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
    #: What the ladder shows and orders by: the last Bradley-Terry refit of the ladder
    #: (``services.ladder_refit``), moved by Elo (``games.core.ranking.elo_update``) for each
    #: match applied since; Elo alone until the first refit.
    rating = models.FloatField(default=1200.0)
    #: The standard error of ``rating`` (rating points): the fit's, carried along each Elo
    #: update since (``games.core.ranking.elo_deviation_update``); the 95 % interval around
    #: ``rating`` is stored beside it (``rating_low``, ``rating_high``) so rank ranges are
    #: counted on an index.
    deviation = models.FloatField(default=ELO_START_DEVIATION)
    rating_low = models.FloatField(default=ELO_START - Z_95 * ELO_START_DEVIATION)
    rating_high = models.FloatField(default=ELO_START + Z_95 * ELO_START_DEVIATION)
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
    #: The 95 % Student-t interval of ``mean_payoff`` (None below two matches), stored for the
    #: rank ranges of a mean-payoff ladder.
    payoff_low = models.FloatField(null=True, blank=True)
    payoff_high = models.FloatField(null=True, blank=True)
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
            # Rank ranges (``intervals.rank_ranges``): how many intervals lie wholly above or
            # below a page's, counted on these without reading the rows.
            models.Index(fields=["game", "game_version", "rating_low"], name="rating_by_low"),
            models.Index(fields=["game", "game_version", "rating_high"], name="rating_by_high"),
            models.Index(
                fields=["game", "game_version", "payoff_low", "games"], name="rating_by_payoff_low"
            ),
            models.Index(
                fields=["game", "game_version", "payoff_high", "games"],
                name="rating_by_payoff_high",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.submission} {self.rating:.0f}"

    @property
    def interval_half_width(self) -> float:
        """The "±" of the rating's 95 % interval (rating points)."""
        return (self.rating_high - self.rating_low) / 2

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


class UnifiedFit(models.Model):
    """One refit of the boards across games (``services.unified_refit``): when, from how many
    matches, in how long. The boards' pages read the latest one and its standings."""

    fitted = models.DateTimeField(auto_now_add=True)
    matches = models.PositiveIntegerField(default=0)
    #: Games (ladders) that contributed, each weighted equally.
    games = models.JSONField(default=list)
    seconds = models.FloatField(default=0.0)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"unified fit {self.pk} ({self.matches} matches)"


class UnifiedStanding(models.Model):
    """One row of a board across games: a model and configuration, or a user (their best
    agent in each game), with its Bradley-Terry strength on the Elo scale and 95 % interval."""

    class Board(models.TextChoices):
        MODELS = "models", "models (one row per model and configuration)"
        USERS = "users", "users (their best agent in each game)"

    fit = models.ForeignKey(UnifiedFit, on_delete=models.CASCADE, related_name="standings")
    board = models.CharField(max_length=8, choices=Board.choices)
    #: ``model:<name>:<configuration hash>`` or ``user:<id>``: stable across refits.
    key = models.CharField(max_length=120)
    label = models.CharField(max_length=300)
    rank = models.PositiveIntegerField()
    rank_best = models.PositiveIntegerField()
    rank_worst = models.PositiveIntegerField()
    rating = models.FloatField()
    rating_low = models.FloatField()
    rating_high = models.FloatField()
    matches = models.PositiveIntegerField()
    #: Per game: ``{"rating", "low", "high", "matches", "agent_id", "submission"}`` of the entry
    #: that stands for this row there (its own ladder's Elo and interval).
    per_game = models.JSONField(default=dict)

    class Meta:
        ordering = ["rank", "id"]
        indexes = [models.Index(fields=["fit", "board", "rank"], name="unified_by_rank")]
        constraints = [
            models.UniqueConstraint(fields=["fit", "board", "key"], name="unified_once_per_fit")
        ]

    def __str__(self) -> str:
        return f"{self.board} #{self.rank} {self.label}"


class PairRecord(models.Model):
    """The rated results between two entries of one ladder, kept by ``rating_apply``: what the
    boards across games are fitted on, read without counting matches (``unified.py``).

    ``first`` is the entry with the lower submission id; a draw counts in ``draws``, not in
    either side's wins.
    """

    game = models.CharField(max_length=64)
    game_version = models.PositiveIntegerField()
    first = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="+")
    matches = models.PositiveIntegerField(default=0)
    first_wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["first", "second"], name="pair_record_once")]
        indexes = [models.Index(fields=["game", "game_version"], name="pair_record_ladder")]

    def __str__(self) -> str:
        return f"{self.first_id} v {self.second_id}: {self.matches} matches"


class LadderRefit(models.Model):
    """The last Bradley-Terry refit of one ladder (``services.ladder_refit``): the ratings
    and intervals its rows show were set by it, then moved by the matches played since."""

    game = models.CharField(max_length=64)
    game_version = models.PositiveIntegerField()
    fitted = models.DateTimeField(auto_now=True)
    #: Rated matches behind the fit: the next pass refits only when the ladder has more (or
    #: fewer: a match voided) than this.
    matches = models.PositiveIntegerField(default=0)
    #: Rows the fit set; rows that played while it ran keep their own update until the next.
    entries = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    seconds = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "game_version"], name="ladder_refit_once")
        ]

    def __str__(self) -> str:
        return f"{self.game} v{self.game_version} refit ({self.matches} matches)"
