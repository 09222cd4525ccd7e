"""Elo ratings of ladder entries and their history."""

from __future__ import annotations

from django.db import models

from arena.matches.models import Match
from arena.submissions.models import Submission


class Rating(models.Model):
    """The ladder standing of one submission in its game version (DESIGN.md §7)."""

    submission = models.OneToOneField(Submission, on_delete=models.CASCADE, related_name="rating")
    game = models.CharField(max_length=64)
    game_version = models.PositiveIntegerField()
    rating = models.FloatField(default=1200.0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["game", "game_version", "-rating"])]

    def __str__(self) -> str:
        return f"{self.submission} {self.rating:.0f}"


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

    def __str__(self) -> str:
        return f"{self.before:.0f} → {self.after:.0f} in match {self.match_id}"
