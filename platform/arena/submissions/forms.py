"""The upload and training forms."""

from __future__ import annotations

from django import forms


class UploadForm(forms.Form):
    """agent.py and an optional name; the game comes from the file's ``GAME``."""

    file = forms.FileField(label="agent.py")
    name = forms.CharField(
        required=False, max_length=64, help_text="Optional; defaults to the file's name."
    )


class TrainingForm(forms.Form):
    """Opponent (house:<bot> or one of the owner's submission ids) and the clock."""

    opponent = forms.ChoiceField()
    timed = forms.BooleanField(required=False, initial=True, help_text="2 s a turn, as ranked")

    def __init__(self, *args: object, opponents: list[tuple[str, str]], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        opponent = self.fields["opponent"]
        assert isinstance(opponent, forms.ChoiceField)
        opponent.choices = opponents
