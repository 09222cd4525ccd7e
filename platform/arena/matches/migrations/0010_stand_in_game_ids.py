"""The three judge-free stand-ins get ids of their own, so that the judged games can take theirs.

``nil-recruitment``, ``nuclear-war`` and ``passcode`` were played here by judge-free stand-ins
(sealed bids, brinkmanship, bulls and cows) until the judged games were built under those ids.
Every agent, rating, match and tournament of a stand-in moves to the stand-in's new id, its
history and ratings with it; the agents' sources (which still say ``GAME = "<old id>"``) keep
running there (``Game.former_ids``). Reversible.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

#: Old id -> the stand-in's own id.
RENAMED = {
    "nil-recruitment": "sealed-bid-recruitment",
    "nuclear-war": "brinkmanship",
    "passcode": "bulls-and-cows",
}
MODELS = (
    ("submissions", "Agent"),
    ("ratings", "Rating"),
    ("ratings", "PairRecord"),
    ("matches", "Match"),
    ("tournaments", "Tournament"),
)


def _rename(apps: Any, mapping: dict[str, str]) -> None:
    for app_label, model_name in MODELS:
        model = apps.get_model(app_label, model_name)
        for old, new in mapping.items():
            model.objects.filter(game=old).update(game=new)


def forward(apps: Any, schema_editor: Any) -> None:
    _rename(apps, RENAMED)


def backward(apps: Any, schema_editor: Any) -> None:
    _rename(apps, {new: old for old, new in RENAMED.items()})


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0009_match_time_limit_s"),
        ("ratings", "0006_pair_records"),
        ("submissions", "0002_agent_archived"),
        ("tournaments", "0002_tournament_time_control"),
    ]

    operations = [migrations.RunPython(forward, backward)]
