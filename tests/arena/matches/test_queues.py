"""Queues and worker pools: ranked, training, validation and maintenance each have a queue of
their own, named after the instance; a queued match says what it waits for."""

from __future__ import annotations

from typing import Any

import pytest
from arena.celery_app import app
from arena.matches import queues
from arena.matches.models import Match
from arena.matches.services import match_create
from arena.submissions.services import house_submission_ensure
from django.conf import settings
from django.test import Client

MAINTENANCE_TASKS = [entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()]


def _routed_queue(task: str) -> str:
    route = app.amqp.router.route({}, task, args=(), kwargs={})
    return str(route["queue"].name)


def test_every_queue_carries_the_instance_and_maintenance_has_its_own() -> None:
    instance = settings.ARENA_INSTANCE_ID
    assert {
        role: f"{instance}.{role}"
        for role in ("matches", "training", "validation", "tournament", "llm", "maintenance")
    } == settings.ARENA_QUEUES
    # Every periodic task (matchmaking, sweeper, reaper, log upkeep) goes to maintenance.
    assert MAINTENANCE_TASKS and {_routed_queue(t) for t in MAINTENANCE_TASKS} == {
        f"{instance}.maintenance"
    }
    assert _routed_queue("arena.workflows.tasks.match_run_task") == f"{instance}.matches"
    # A worker without -Q consumes this instance's queues only.
    assert {q.name for q in app.amqp.queues.values()} >= set(settings.ARENA_QUEUES.values())
    assert all(q.name.startswith(f"{instance}.") for q in app.amqp.queues.values())


@pytest.mark.django_db
def test_each_kind_of_match_goes_to_its_own_queue() -> None:
    bots = [house_submission_ensure(game="simple-card", bot=b) for b in ("random", "highest")]
    for kind, role in (
        ("ranked", "matches"),
        ("training", "training"),
        ("validation", "validation"),
        ("challenge", "training"),
        ("tournament", "tournament"),
    ):
        match = match_create(kind=kind, submissions=bots)
        assert queues.match_queue(match) == settings.ARENA_QUEUES[role]


def test_the_worker_pools_of_make_run_cover_every_queue_and_name_their_nodes() -> None:
    from arena.ops.management.commands.arena_worker import POOLS, worker_argv

    roles = [role for pool in POOLS.values() for role in pool]
    assert sorted(roles) == sorted(settings.ARENA_QUEUES)  # each queue in exactly one pool
    argv = worker_argv(roles=["training", "validation"], concurrency=1)
    instance = settings.ARENA_INSTANCE_ID
    assert argv[argv.index("-Q") + 1] == f"{instance}.training,{instance}.validation"
    assert argv[argv.index("-n") + 1] == f"{instance}-training-validation@%h"
    with pytest.raises(ValueError, match="the roles: matches, training"):
        worker_argv(roles=["ranked"])


@pytest.mark.django_db
def test_a_queued_match_page_says_how_many_matches_of_its_queue_are_ahead(
    make_user: Any,
) -> None:
    bots = [house_submission_ensure(game="simple-card", bot=b) for b in ("random", "highest")]
    owner = make_user("tess")
    owner.is_staff = True  # sees every seat of a training match (these are house bots')
    owner.save()
    for _ in range(3):  # ranked matches queued first: another queue, not ahead of training
        match_create(kind="ranked", submissions=bots)
    first = match_create(kind="training", submissions=bots, requested_by=owner)
    match_create(kind="training", submissions=bots, requested_by=owner)
    last = match_create(kind="training", submissions=bots, requested_by=owner)
    Match.objects.filter(pk=first.pk).update(status=Match.Status.RUNNING)  # no longer waiting
    client = Client()
    client.force_login(owner)
    page = client.get(f"/matches/{last.pk}/").content.decode()
    assert "Queued: 1 match ahead of it on the training queue." in page
    first_ranked = Match.objects.filter(kind="ranked").order_by("id").first()
    assert first_ranked is not None
    page = client.get(f"/matches/{first_ranked.pk}/").content.decode()
    assert "Queued: next on the ranked queue, waiting for a free worker slot." in page
    # The live head (htmx) says it too, and nothing once the match runs.
    live = client.get(f"/matches/{last.pk}/live/").content.decode()
    assert "1 match ahead of it on the training queue" in live
    Match.objects.filter(pk=last.pk).update(status=Match.Status.RUNNING)
    assert 'id="match-queue-wait"' not in client.get(f"/matches/{last.pk}/").content.decode()
