"""Forms: the history filters and an agent's challenge settings."""

from __future__ import annotations

from django import forms

from arena.competitions.selectors import RESULTS, history_kinds


class HistoryFilterForm(forms.Form):
    """GET filters of an agent's match history."""

    kind = forms.ChoiceField(required=False)
    opponent = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
    result = forms.ChoiceField(required=False, choices=[("", "any")] + [(r, r) for r in RESULTS])
    since = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    until = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    before = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["kind"].choices = [("", "any")] + [(k, k) for k in history_kinds()]  # type: ignore[attr-defined]


class ChallengePolicyForm(forms.Form):
    """Whether an agent accepts challenges, and from which rating up."""

    accepts = forms.BooleanField(required=False)
    min_rating = forms.FloatField(required=False, min_value=-10_000, max_value=10_000)
