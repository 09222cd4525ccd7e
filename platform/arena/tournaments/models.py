"""Tournaments, their entries, pairings and games (``docs/tournaments.md``).

A tournament pins what it plays like every match does: each entry's exact submission is frozen
at ``freeze_at``, each game's seed is stored with the game before its match exists, and each
game points at the one ``Match`` that plays it (created when the scheduler releases it).
"""

from __future__ import annotations

import math

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.deconstruct import deconstructible

from arena.matches.models import Match
from arena.submissions.models import Agent, Submission


@deconstructible
class SecondsBetween:
    """A budget in seconds within ``[low, high]`` (empty passes: the platform's default)."""

    def __init__(self, low: float, high: float, what: str) -> None:
        self.low = low
        self.high = high
        self.what = what

    @property
    def message(self) -> str:
        return f"{self.what} must be {self.low:g} to {self.high:g} seconds (empty: the platform's)"

    def problem(self, value: float | None) -> str | None:
        """What is wrong with ``value`` (``None``: nothing); NaN and infinities are refused."""
        if value is None:
            return None
        if not (math.isfinite(value) and self.low <= value <= self.high):
            return self.message
        return None

    def __call__(self, value: float | None) -> None:
        if self.problem(value) is not None:
            raise ValidationError(self.message, code="out_of_range")

    def field(self, setting: str, note: str) -> models.FloatField:  # type: ignore[type-arg]
        """An optional model field of seconds within these bounds (empty: ``setting``'s)."""
        return models.FloatField(
            null=True,
            blank=True,
            validators=[self],
            help_text=f"Seconds, {self.low:g} to {self.high:g}; empty: the platform's ({setting}). "
            + note,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SecondsBetween) and (self.low, self.high, self.what) == (
            other.low,
            other.high,
            other.what,
        )

    def __hash__(self) -> int:
        return hash((self.low, self.high, self.what))


#: The bounds of a tournament's time control: a code seat's turn and a model seat's move.
TURN_BUDGET_S = SecondsBetween(0.1, 30.0, "a code seat's turn budget")
MODEL_MOVE_BUDGET_S = SecondsBetween(1.0, 120.0, "a model seat's move budget")


class Tournament(models.Model):
    """One edition of a tournament for one game."""

    class Format(models.TextChoices):
        #: Round robin up to ``round_robin_max`` entrants, Swiss beyond.
        AUTO = "auto", "round robin, Swiss when larger"
        ROUND_ROBIN = "round_robin", "round robin"
        SWISS = "swiss", "Swiss"

    class Status(models.TextChoices):
        #: Entry window (open or not yet); nothing is played before ``freeze_at``.
        UPCOMING = "upcoming", "upcoming"
        #: Entries frozen, games being played.
        RUNNING = "running", "running"
        #: Staff paused it: no new game is released (those already running finish).
        PAUSED = "paused", "paused"
        #: Every game is over; the results wait for ``publish_at``.
        FINISHED = "finished", "finished"
        #: Standings, crosstable and replays are public.
        PUBLISHED = "published", "published"
        #: Fewer than two entrants had an accepted agent at the freeze.
        CANCELLED = "cancelled", "cancelled"

    name = models.CharField(max_length=100)
    game = models.CharField(max_length=64)
    edition = models.PositiveIntegerField(default=1)
    rerun_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="reruns"
    )
    format = models.CharField(max_length=16, choices=Format.choices, default=Format.AUTO)
    round_robin_max = models.PositiveIntegerField(default=12)
    #: Swiss rounds; empty: ``pairing.swiss_rounds_for`` the entrants at the freeze.
    swiss_rounds = models.PositiveIntegerField(null=True, blank=True)
    games_per_pairing = models.PositiveIntegerField(default=2)
    #: Each pair of games plays the same seed twice with the seats swapped (mirrored deals).
    duplicate_seats = models.BooleanField(default=True)
    #: Time control: every call within its budget (below), or no clock.
    timed = models.BooleanField(default=True)
    #: A code seat's budget per call when timed; empty: the platform's ``ARENA_TURN_TIMEOUT_S``.
    turn_budget_s = TURN_BUDGET_S.field(
        "ARENA_TURN_TIMEOUT_S", "Only when timed: an untimed tournament keeps no clock."
    )
    #: A model seat's budget per move when timed; empty: ``ARENA_LLM_MOVE_BUDGET_S``.
    model_move_budget_s = MODEL_MOVE_BUDGET_S.field("ARENA_LLM_MOVE_BUDGET_S", "Only when timed.")
    #: The game's configuration for every game of the tournament (empty: its defaults).
    config = models.JSONField(default=dict, blank=True)
    entry_opens = models.DateTimeField()
    entry_closes = models.DateTimeField()
    freeze_at = models.DateTimeField()
    publish_at = models.DateTimeField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.UPCOMING)
    status_detail = models.TextField(blank=True)
    #: What the freeze decided: the format played and its number of rounds.
    played_format = models.CharField(max_length=16, blank=True)
    rounds_total = models.PositiveIntegerField(default=0)
    #: The highest round paired so far.
    round_current = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    published = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        edition = f" (edition {self.edition})" if self.edition > 1 else ""
        return f"{self.name}{edition}"

    @property
    def is_active(self) -> bool:
        """The scheduler still has work on it."""
        return self.status in (self.Status.UPCOMING, self.Status.RUNNING, self.Status.FINISHED)


class Entry(models.Model):
    """One user's agent in a tournament; ``submission`` is the version frozen at the freeze."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="tournament_entries")
    submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.PROTECT, related_name="entries"
    )
    #: Entry order (1 = first): Swiss places equal scores by it.
    seed = models.PositiveIntegerField(default=0)
    #: Set when the freeze found no accepted version: the entry plays nothing.
    dropped = models.CharField(max_length=200, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "entries"
        ordering = ["seed", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "owner"], name="entry_one_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.agent} in {self.tournament}"


class Pairing(models.Model):
    """Two entries meeting in a round (``second`` empty: a bye), at most once a tournament."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="pairings")
    round = models.PositiveIntegerField()
    board = models.PositiveIntegerField()
    first = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    #: ``<lower entry id>-<higher entry id>`` (a bye: ``bye-<round>-<entry id>``): unique, so the
    #: database itself refuses a second pairing of the same two entries.
    key = models.CharField(max_length=64)

    class Meta:
        ordering = ["round", "board"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "key"], name="pairing_once"),
            models.UniqueConstraint(
                fields=["tournament", "round", "board"], name="pairing_unique_board"
            ),
        ]

    def __str__(self) -> str:
        return f"round {self.round} board {self.board} of {self.tournament_id}"


class TournamentGame(models.Model):
    """One game of a pairing: its seats and seed, fixed when the pairing is made; ``match`` is
    the one match that plays it, created when the scheduler releases the game."""

    pairing = models.ForeignKey(Pairing, on_delete=models.CASCADE, related_name="games")
    leg = models.PositiveIntegerField()
    seat0 = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    seat1 = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="+")
    seed = models.BigIntegerField()
    match = models.OneToOneField(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="tournament_game"
    )
    #: Times its match ended in a platform error and was queued again.
    reruns = models.PositiveIntegerField(default=0)
    #: Set when the platform could not play it after every re-run: it counts for nobody.
    void = models.BooleanField(default=False)

    class Meta:
        # The table keeps the name it had when the class was ``Game`` (renamed so it is never
        # mistaken for ``games.core.Game``, the engine).
        db_table = "tournaments_game"
        ordering = ["pairing_id", "leg"]
        constraints = [models.UniqueConstraint(fields=["pairing", "leg"], name="game_unique_leg")]

    def __str__(self) -> str:
        return f"game {self.leg} of pairing {self.pairing_id}"
