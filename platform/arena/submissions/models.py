"""Agents (a named bot per owner and game) and their immutable submissions."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Agent(models.Model):
    """A named bot of one owner for one game; its code lives in numbered submissions."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="agents"
    )
    game = models.CharField(max_length=64)
    name = models.CharField(max_length=64)
    created = models.DateTimeField(auto_now_add=True)
    #: Archived: off the ladder and out of the owner's default list; its matches stay.
    archived = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["owner", "game", "name"], name="agent_unique_name")
        ]
        ordering = ["game", "name"]

    def __str__(self) -> str:
        return f"{self.owner}/{self.name}"


class Submission(models.Model):
    """One immutable version of an agent's code.

    Status moves ``pending`` → ``accepted`` | ``rejected`` once, through
    ``services.submission_set_status``. House bots are submissions of the ``house`` user whose
    ``house_bot`` names the bot class; they run in-process (trusted code), never in a sandbox.
    """

    class Status(models.TextChoices):
        #: Uploaded; the self-play validation has not finished yet.
        PENDING = "pending", "pending"
        #: Finished a game against itself: may train and play ranked.
        ACCEPTED = "accepted", "accepted"
        #: Failed its self-play; ``validation_log`` says why.
        REJECTED = "rejected", "rejected"

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="submissions")
    version = models.PositiveIntegerField()
    source = models.TextField()
    sha256 = models.CharField(max_length=64)
    game_version = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    status_detail = models.TextField(blank=True)
    house_bot = models.CharField(max_length=64, blank=True)
    active = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["agent", "version"], name="submission_unique_version")
        ]
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.agent.name} v{self.version}"

    @property
    def label(self) -> str:
        """``name v3`` as pages show it."""
        return f"{self.agent.name} v{self.version}"

    @property
    def game(self) -> str:
        """The game id, from the agent."""
        return self.agent.game
