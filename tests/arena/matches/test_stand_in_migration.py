"""The data migration that gives the judge-free stand-ins ids of their own moves their agents,
ratings, matches and tournaments, and back."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("matches", "0009_match_time_limit_s")
AFTER = ("matches", "0010_stand_in_game_ids")


def _migrate(target: tuple[str, str]) -> Any:
    """Every app at its latest migration but ``matches`` at ``target``."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    leaves = [n for n in executor.loader.graph.leaf_nodes() if n[0] != "matches"]
    executor.migrate([target])
    executor = MigrationExecutor(connection)
    return executor.loader.project_state([*leaves, target]).apps


def test_the_stand_ins_move_to_their_own_ids_with_their_history() -> None:
    apps = _migrate(BEFORE)
    User = apps.get_model("accounts", "User")
    Agent = apps.get_model("submissions", "Agent")
    Submission = apps.get_model("submissions", "Submission")
    Rating = apps.get_model("ratings", "Rating")
    Match = apps.get_model("matches", "Match")
    owner = User.objects.create(username="old-timer")
    ids = {}
    for old in ("nil-recruitment", "nuclear-war", "passcode", "chess"):
        agent = Agent.objects.create(owner=owner, game=old, name=f"a-{old}")
        sub = Submission.objects.create(
            agent=agent, version=1, source="", sha256=old, game_version=1
        )
        Rating.objects.create(submission=sub, game=old, game_version=1, rating=1300.0)
        Match.objects.create(game=old, game_version=1, kind="ranked", seed=1)
        ids[old] = agent.pk
    apps = _migrate(AFTER)
    Agent = apps.get_model("submissions", "Agent")
    Rating = apps.get_model("ratings", "Rating")
    Match = apps.get_model("matches", "Match")
    moved = {
        "nil-recruitment": "sealed-bid-recruitment",
        "nuclear-war": "brinkmanship",
        "passcode": "bulls-and-cows",
        "chess": "chess",
    }
    for old, new in moved.items():
        assert Agent.objects.get(pk=ids[old]).game == new
        assert Rating.objects.get(submission__agent_id=ids[old]).rating == 1300.0
        assert Rating.objects.get(submission__agent_id=ids[old]).game == new
        assert Match.objects.filter(game=new).count() == 1
    assert not Match.objects.filter(game__in=["nil-recruitment", "nuclear-war", "passcode"])
    apps = _migrate(BEFORE)
    Agent = apps.get_model("submissions", "Agent")
    assert Agent.objects.get(pk=ids["passcode"]).game == "passcode"
    _migrate(AFTER)
