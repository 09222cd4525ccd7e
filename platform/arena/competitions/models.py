"""Challenge settings of an agent, and the auto-pauses that took agents off their ladder."""

from __future__ import annotations

from django.db import models

from arena.submissions.models import Agent, Submission


class ChallengePolicy(models.Model):
    """Whether an agent accepts challenges, and from whom; without a row it accepts all."""

    agent = models.OneToOneField(
        Agent, on_delete=models.CASCADE, primary_key=True, related_name="challenge_policy"
    )
    accepts = models.BooleanField(default=True)
    #: Only challengers whose ladder rating is at least this (None: anyone).
    min_rating = models.FloatField(null=True, blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "challenge policies"

    def __str__(self) -> str:
        return f"challenge policy of agent {self.agent_id}"


class LadderPause(models.Model):
    """A submission taken off its ladder after forfeiting ranked matches in a row."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="pauses")
    reason = models.TextField()
    #: The ranked matches whose forfeits caused it, newest first.
    match_ids = models.JSONField(default=list)
    created = models.DateTimeField(auto_now_add=True)
    #: Set when its owner put it back on the ladder.
    cleared = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"pause of submission {self.submission_id}"
