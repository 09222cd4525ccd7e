"""Matches, their seats and their per-call log.

Every match pins the exact submissions (through its participants), the game version, the config
and the seed, so a replay re-simulates it and a rule change never mixes into an old leaderboard.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from arena.submissions.models import Submission

#: Statuses of a match a worker will still play (or is playing).
IN_FLIGHT_STATUSES = ("queued", "running")
#: Statuses after which nothing about a match changes any more (but an admin's re-run).
DONE_STATUSES = ("finished", "error")


class MatchQuerySet(models.QuerySet["Match"]):
    """The status sets of matches, named once: ``Match.objects.in_flight()``, ``.done()``."""

    def in_flight(self) -> MatchQuerySet:
        """Queued or running."""
        return self.filter(status__in=IN_FLIGHT_STATUSES)

    def done(self) -> MatchQuerySet:
        """Finished or errored."""
        return self.filter(status__in=DONE_STATUSES)


class Match(models.Model):
    """One pairing, played by ``arena.workflows.matches.match_run`` (at least once, recorded
    exactly once)."""

    class Kind(models.TextChoices):
        #: A submission against itself; decides accepted/rejected.
        VALIDATION = "validation", "validation"
        #: Requested by an owner; unrated, prints kept.
        TRAINING = "training", "training"
        #: Paired by matchmaking; rated, prints dropped.
        RANKED = "ranked", "ranked"
        #: One user's agent against another's public agent, on request; unrated, prints kept
        #: for the challenger's seat only (docs/using.md, "Challenges").
        CHALLENGE = "challenge", "challenge"
        #: A game of a tournament (``arena.tournaments``): unrated, never touches the ladder.
        TOURNAMENT = "tournament", "tournament"

    class Status(models.TextChoices):
        #: Waiting for a worker (also between retries of a platform error).
        QUEUED = "queued", "queued"
        #: A worker is playing it.
        RUNNING = "running", "running"
        #: Played to the end (forfeits included); outcomes recorded.
        FINISHED = "finished", "finished"
        #: The platform failed it on every attempt, or an admin voided it; never rated.
        ERROR = "error", "error"

    game = models.CharField(max_length=64)
    game_version = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    timed = models.BooleanField(default=True)
    seed = models.BigIntegerField()
    config = models.JSONField(default=dict, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    attempts = models.PositiveIntegerField(default=0)
    winner_seat = models.IntegerField(null=True, blank=True)
    rounds = models.JSONField(default=list, blank=True)
    stats = models.JSONField(default=dict, blank=True)
    final_state = models.JSONField(default=dict, blank=True)
    summary = models.TextField(blank=True)
    #: Why the platform failed it, for its owners and staff (the public reads a neutral line).
    error = models.TextField(blank=True)
    #: The failure's exception and traceback (an engine bug, a sandbox failure): staff only, it
    #: may quote the game's hidden state.
    error_trace = models.TextField(blank=True)
    duration_s = models.FloatField(null=True, blank=True)
    #: Set in the same transaction that applies Elo: a redelivered task sees it and stops.
    rated = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    #: The hard time limit of an attempt (``status.match_time_limits_s``), worked out when its
    #: first attempt begins: the sweeper reads it on every pass instead of building the game.
    time_limit_s = models.FloatField(null=True, blank=True)
    #: When its task was last sent: the sweeper sends it again when it waits too long.
    enqueued = models.DateTimeField(null=True, blank=True)
    #: The Celery task id of the attempt playing it: a duplicate message skips a live attempt.
    task_id = models.CharField(max_length=64, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    #: An unranked match anyone may read from this time on (a tournament's, once published).
    public_from = models.DateTimeField(null=True, blank=True)

    objects = MatchQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["kind", "status"]),
            models.Index(fields=["game", "kind"]),
            # The challenge quota counts one user's requests of a kind in the last hour.
            models.Index(fields=["requested_by", "kind", "created"], name="match_requested_recent"),
        ]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"{self.kind} match #{self.pk} ({self.game})"

    @property
    def is_done(self) -> bool:
        """Finished or errored: nothing will change any more."""
        return self.status in DONE_STATUSES


class ParticipantQuerySet(models.QuerySet["Participant"]):
    """Seats by their match's status set, as ``MatchQuerySet`` names it:
    ``Participant.objects.in_flight()``."""

    def in_flight(self) -> ParticipantQuerySet:
        """Seats of matches queued or running."""
        return self.filter(match__status__in=IN_FLIGHT_STATUSES)


class Participant(models.Model):
    """One seat of a match: the pinned submission and how it went for it."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="participants")
    seat = models.PositiveSmallIntegerField()
    submission = models.ForeignKey(Submission, on_delete=models.PROTECT, related_name="seats")
    outcome = models.CharField(max_length=8, blank=True)
    reason = models.CharField(max_length=16, blank=True)
    detail = models.TextField(blank=True)
    score = models.FloatField(null=True, blank=True)
    rating_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField(null=True, blank=True)

    objects = ParticipantQuerySet.as_manager()

    class Meta:
        ordering = ["seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="participant_unique_seat")
        ]
        # An agent page lists the latest matches of its submissions.
        indexes = [models.Index(fields=["submission", "-match"], name="participant_latest")]

    def __str__(self) -> str:
        return f"seat {self.seat} of {self.match_id}"


class MatchEvent(models.Model):
    """One log entry of the referee (one call), written while the match runs."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    seat = models.IntegerField(null=True, blank=True)
    data = models.JSONField()

    class Meta:
        ordering = ["seq"]
        constraints = [models.UniqueConstraint(fields=["match", "seq"], name="event_unique_seq")]

    def __str__(self) -> str:
        return f"event {self.seq} of match {self.match_id}"


class MatchLog(models.Model):
    """A finished match's per-call log, stored compactly: one gzip-compressed JSON-lines blob.

    While a match runs its calls are ``MatchEvent`` rows (the page shows them live); when it
    ends they are packed into this blob and the rows are dropped (a 100-hand poker match is about
    a thousand rows). ``arena.matches.logstore`` writes and reads it.
    """

    match = models.OneToOneField(
        Match, on_delete=models.CASCADE, primary_key=True, related_name="stored_log"
    )
    #: gzip of one JSON object per line, in ``seq`` order.
    data = models.BinaryField()
    entries = models.PositiveIntegerField()
    #: Size of the JSON lines before compression.
    raw_bytes = models.PositiveBigIntegerField()
    #: Whether any entry still carries captured prints (ranked retention strips them).
    has_prints = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"log of match {self.match_id} ({self.entries} calls)"
