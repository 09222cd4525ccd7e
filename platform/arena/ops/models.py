"""What operators look at: each worker's heartbeat and what maintenance did lately."""

from __future__ import annotations

from django.db import models


class WorkerHeartbeat(models.Model):
    """One Celery worker node, as it last reported itself (every ``ARENA_WORKER_HEARTBEAT_S``)."""

    hostname = models.CharField(max_length=255, unique=True)
    queues = models.JSONField(default=list)
    #: The ids of the matches its processes were playing at its last beat.
    running_matches = models.JSONField(default=list)
    concurrency = models.PositiveIntegerField(default=0)
    pid = models.PositiveIntegerField(default=0)
    started = models.DateTimeField()
    last_seen = models.DateTimeField(db_index=True)
    #: It received SIGTERM (warm shutdown): it finishes or hands back its matches, takes no more.
    stopping = models.BooleanField(default=False)

    def __str__(self) -> str:
        return str(self.hostname)


class MaintenanceRun(models.Model):
    """One pass of a maintenance task (sweeper, reaper, matchmaking) that did something or
    failed; quiet passes are not stored. Old rows are pruned as new ones come."""

    task = models.CharField(max_length=32)
    at = models.DateTimeField(db_index=True)
    #: What it did: ``{"requeued": 1, ...}``, or ``{}`` with ``error`` set.
    counts = models.JSONField(default=dict)
    error = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["-at"]

    def __str__(self) -> str:
        return f"{self.task} at {self.at:%H:%M:%S}"
