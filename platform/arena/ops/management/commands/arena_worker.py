"""``manage.py arena_worker``: one Celery worker node, on every queue the settings declare or on
the queues of the roles given with ``--role`` (``matches``, ``training``, ``validation``,
``maintenance``: deploy/README.md, "Queues and worker pools").

What each worker host runs (deploy/README.md), and what ``make run`` starts (one node per pool,
with beat). Options after ``--`` go to ``celery worker`` unchanged, e.g.
``manage.py arena_worker -n match1@%h``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from arena.celery_app import worker_queues


def child_env() -> dict[str, str]:
    """The environment of a platform child process: this one, with ``platform/`` importable."""
    root = Path(settings.ROOT_DIR)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(root / "platform"), str(root), env.get("PYTHONPATH", "")]
    ).rstrip(os.pathsep)
    env.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    return env


#: The worker pools ``make run`` and deploy/compose.yaml start: name, the queue roles it
#: consumes. Training and validation have slots of their own, so they never wait behind the
#: ranked (house-v-house) games; maintenance keeps its period when every match slot is busy.
POOLS: dict[str, tuple[str, ...]] = {
    # Tournament games share the ranked slots; the scheduler caps how many it releases at once.
    "worker": ("matches", "tournament"),
    "interactive worker": ("training", "validation"),
    "maintenance worker": ("maintenance",),
    # Matches with a language-model seat wait on a provider most of the time: threads keep many
    # calls in flight without a process each (docs/llm-seats.md).
    "model worker": ("llm",),
}
#: Extra ``celery worker`` arguments of a pool.
POOL_EXTRA: dict[str, tuple[str, ...]] = {"model worker": ("--pool", "threads")}
#: Environment variables a pool gets on top of the platform's: maintenance plays no match, and a
#: model match's code seat is cold-started rarely enough, so no warm pool of agent containers.
POOL_ENV: dict[str, dict[str, str]] = {
    "maintenance worker": {"ARENA_SANDBOX_POOL_SIZE": "0"},
    "model worker": {"ARENA_SANDBOX_POOL_SIZE": "0"},
}


def role_queues(roles: list[str] | tuple[str, ...]) -> list[str]:
    """The broker's queue names of ``roles`` (``settings.ARENA_QUEUES``); an unknown role is a
    ``ValueError`` naming the known ones."""
    unknown = [r for r in roles if r not in settings.ARENA_QUEUES]
    if unknown:
        raise ValueError(
            f"no queue role {', '.join(unknown)}; the roles: {', '.join(settings.ARENA_QUEUES)}"
        )
    return [settings.ARENA_QUEUES[r] for r in roles]


def pool_node_name(roles: list[str] | tuple[str, ...]) -> str:
    """A Celery node name unique per instance, pool and host (``<instance>-<roles>@%h``)."""
    return f"{settings.ARENA_INSTANCE_ID}-{'-'.join(roles)}@%h"


#: ``python -m celery`` on the platform's app, as this interpreter runs it.
CELERY = (sys.executable, "-m", "celery", "-A", "arena.celery_app")


def celery_argv(command: str, *args: str) -> list[str]:
    """``celery COMMAND ARGS`` on the platform's app, logging at ``$ARENA_LOG_LEVEL``."""
    return [*CELERY, command, *args, "--loglevel", settings.ARENA_LOG_LEVEL]


def worker_argv(
    *,
    concurrency: int | None = None,
    node_name: str | None = None,
    extra: list[str] | tuple[str, ...] = (),
    roles: list[str] | tuple[str, ...] = (),
) -> list[str]:
    """The ``celery worker`` command line: the queues of ``roles`` (none: every declared
    queue), prefetch 1. Without ``concurrency`` the settings' ``CELERY_WORKER_CONCURRENCY``
    (else Celery's default, one per core) applies. Beat is never embedded (``-B``): it runs as
    a process of its own (``beat_argv``), so a worker restart neither loses nor doubles it."""
    queues = role_queues(roles) if roles else worker_queues()
    argv = celery_argv("worker", "-Q", ",".join(queues), "--prefetch-multiplier", "1")
    if concurrency:
        argv += ["--concurrency", str(concurrency)]
    if node_name or roles:
        argv += ["-n", node_name or pool_node_name(roles)]
    return [*argv, *extra]


def beat_argv(*, schedule: str) -> list[str]:
    """The ``celery beat`` command line (one in the whole cluster), its schedule in ``schedule``."""
    return celery_argv("beat", "-s", schedule)


class Command(BaseCommand):
    """Replace this process with a Celery worker on every declared queue (or ``--role``'s)."""

    help = (
        "Run one Celery worker node on every queue the settings declare "
        "(arguments after -- go to `celery worker`)."
    )

    def add_arguments(self, parser: Any) -> None:
        """``--concurrency``, ``-n/--node-name`` and pass-through arguments."""
        parser.add_argument(
            "--concurrency",
            type=int,
            default=None,
            help="worker processes (default: the settings' CELERY_WORKER_CONCURRENCY)",
        )
        parser.add_argument(
            "-n", "--node-name", default=None, help="Celery node name, unique per host: name@%%h"
        )
        parser.add_argument(
            "--role",
            action="append",
            default=[],
            choices=list(settings.ARENA_QUEUES),
            help="consume only this role's queue (repeatable; default: every queue)",
        )
        parser.add_argument("celery_args", nargs="*", help="more `celery worker` options")

    def handle(self, *args: Any, **options: Any) -> None:
        """Exec the worker (signals then reach Celery directly)."""
        argv = worker_argv(
            concurrency=options["concurrency"],
            node_name=options["node_name"],
            extra=options["celery_args"],
            roles=options["role"],
        )
        sys.stdout.flush()
        os.execve(argv[0], argv, child_env())  # noqa: S606 - our own argv, no shell
