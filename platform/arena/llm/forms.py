"""The model-entrant form."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from games.core import available_game_ids


class ModelEntrantForm(forms.Form):
    """A registered model, the game, a name, and the entrant's own settings."""

    model = forms.ChoiceField(help_text="A model the operator offers.")
    game = forms.ChoiceField()
    name = forms.CharField(max_length=64, help_text="Letters, digits, '-' or '_'.")
    system_prompt_addition = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="Optional: your instructions, appended to the game's own system prompt.",
    )
    temperature = forms.FloatField(required=False, min_value=0, max_value=2)
    top_p = forms.FloatField(required=False, min_value=0, max_value=1)
    max_tokens = forms.IntegerField(required=False, min_value=1)
    json_output = forms.BooleanField(
        required=False,
        initial=True,
        help_text="Ask the endpoint for JSON matching the game's action schema.",
    )

    def __init__(self, *args: Any, models: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["model"].choices = models  # type: ignore[attr-defined]
        self.fields["game"].choices = [(g, g) for g in available_game_ids()]  # type: ignore[attr-defined]
        limit = settings.ARENA_LLM_SYSTEM_PROMPT_MAX_CHARS
        self.fields["system_prompt_addition"].max_length = limit  # type: ignore[attr-defined]


class AgentModelsFields(forms.Form):
    """The models a code agent's version may call through its sandbox's gateway, its budgets:
    the fields of ``AgentModelsForm`` and of the upload form (``submissions.forms``)."""

    models = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Models the operator lets agents call; your agent's calls are metered to you.",
    )
    match_budget_usd = forms.DecimalField(
        min_value=0, max_value=1000, decimal_places=4, initial=0, label="Budget per match (USD)"
    )
    day_budget_usd = forms.DecimalField(
        min_value=0, max_value=1000, decimal_places=4, initial=0, label="Budget per day (USD)"
    )

    def __init__(self, *args: Any, models: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["models"].choices = models  # type: ignore[attr-defined]


class AgentModelsForm(AgentModelsFields):
    """The owner's form for one version: its models and budgets."""
