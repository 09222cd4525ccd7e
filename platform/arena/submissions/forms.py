"""The upload and training forms."""

from __future__ import annotations

from typing import Any

from django import forms

from arena.llm.forms import AgentModelsFields


class UploadForm(AgentModelsFields):
    """agent.py and an optional name; the game comes from the file's ``GAME``. Where the
    operator lets agents call models, the models this version may call and its budgets, set
    with the upload so its self-play already may call them (none ticked: the previous
    version's choice, changed later on the version's models page)."""

    field_order = ["file", "name", "models", "match_budget_usd", "day_budget_usd"]

    file = forms.FileField(label="agent.py")
    name = forms.CharField(
        required=False, max_length=64, help_text="Optional; defaults to the file's name."
    )

    def __init__(self, *args: Any, models: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, models=models, **kwargs)
        if not models:
            for field in ("models", "match_budget_usd", "day_budget_usd"):
                del self.fields[field]
            return
        self.fields["models"].label = "Models it may call (optional)"
        self.fields["models"].help_text = (
            "Through its sandbox's gateway, metered to you. None ticked: the previous "
            "version's choice."
        )
        for field in ("match_budget_usd", "day_budget_usd"):
            self.fields[field].required = False

    def agent_models(self) -> dict[str, Any]:
        """The choice of models as ``submission_upload`` takes it (nothing when none ticked)."""
        chosen = self.cleaned_data.get("models")
        if not chosen:
            return {}
        return {
            "agent_models": list(chosen),
            "match_budget_usd": self.cleaned_data.get("match_budget_usd") or 0,
            "day_budget_usd": self.cleaned_data.get("day_budget_usd") or 0,
        }


class TrainingForm(forms.Form):
    """Opponent (house:<bot> or one of the owner's submission ids) and the clock."""

    opponent = forms.ChoiceField()
    timed = forms.BooleanField(required=False, initial=True, help_text="2 s a turn, as ranked")

    def __init__(self, *args: object, opponents: list[tuple[str, str]], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        opponent = self.fields["opponent"]
        assert isinstance(opponent, forms.ChoiceField)
        opponent.choices = opponents
