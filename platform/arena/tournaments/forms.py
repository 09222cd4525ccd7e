"""Forms: a staff member creates a tournament; a user enters an agent."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from arena.submissions.models import Agent, Submission
from arena.tournaments.models import MODEL_MOVE_BUDGET_S, TURN_BUDGET_S, SecondsBetween, Tournament
from games.core import available_game_ids


def _bounds(seconds: SecondsBetween) -> dict[str, Any]:
    return {"min": seconds.low, "max": seconds.high, "step": "any"}


class TournamentForm(forms.Form):
    """The settings of a new tournament (times in UTC)."""

    name = forms.CharField(max_length=100)
    game = forms.ChoiceField(choices=())
    format = forms.ChoiceField(choices=Tournament.Format.choices, initial=Tournament.Format.AUTO)
    round_robin_max = forms.IntegerField(min_value=2, max_value=64, initial=12)
    swiss_rounds = forms.IntegerField(
        min_value=1, max_value=64, required=False, help_text="empty: ceil(log2 n) + 2"
    )
    games_per_pairing = forms.IntegerField(min_value=1, max_value=20, initial=2)
    duplicate_seats = forms.BooleanField(required=False, initial=True)
    timed = forms.BooleanField(required=False, initial=True, label="Timed (a move clock)")
    turn_budget_s = forms.FloatField(
        required=False,
        label="Code seats' budget a turn (s)",
        validators=[TURN_BUDGET_S],
        widget=forms.NumberInput(attrs=_bounds(TURN_BUDGET_S)),
    )
    model_move_budget_s = forms.FloatField(
        required=False,
        label="Model seats' budget a move (s)",
        validators=[MODEL_MOVE_BUDGET_S],
        widget=forms.NumberInput(attrs=_bounds(MODEL_MOVE_BUDGET_S)),
    )
    entry_opens = forms.DateTimeField(widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    entry_closes = forms.DateTimeField(widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    freeze_at = forms.DateTimeField(widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    publish_at = forms.DateTimeField(widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(g, g) for g in available_game_ids()]  # type: ignore[attr-defined]
        for name, seconds, default_s in (
            ("turn_budget_s", TURN_BUDGET_S, settings.ARENA_TURN_TIMEOUT_S),
            ("model_move_budget_s", MODEL_MOVE_BUDGET_S, settings.ARENA_LLM_MOVE_BUDGET_S),
        ):
            self.fields[name].help_text = (
                f"{seconds.low:g} to {seconds.high:g} s; empty: the platform's {default_s:g} s. "
                "Only when timed: an untimed tournament keeps no clock."
            )


class EntryForm(forms.Form):
    """Which of the user's agents (with an accepted version) enters."""

    agent = forms.ModelChoiceField(queryset=Agent.objects.none())

    def __init__(self, *args: Any, user: Any, game: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["agent"].queryset = Agent.objects.filter(  # type: ignore[attr-defined]
            owner=user, game=game, submissions__status=Submission.Status.ACCEPTED
        ).distinct()
        self.fields["agent"].label_from_instance = lambda agent: agent.name  # type: ignore[attr-defined]
