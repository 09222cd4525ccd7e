"""``manage.py arena_worker``: one Celery worker node on every queue the settings declare.

What each worker host runs (deploy/README.md), and what ``make run`` starts (with beat). Options
after ``--`` go to ``celery worker`` unchanged, e.g. ``manage.py arena_worker -n match1@%h``.
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


def worker_argv(
    *,
    concurrency: int | None = None,
    node_name: str | None = None,
    extra: list[str] | tuple[str, ...] = (),
) -> list[str]:
    """The ``celery worker`` command line: every declared queue, prefetch 1. Without
    ``concurrency`` the settings' ``CELERY_WORKER_CONCURRENCY`` (else Celery's default, one per
    core) applies. Beat is never embedded (``-B``): it runs as a process of its own
    (``beat_argv``), so a worker restart neither loses nor doubles it."""
    argv = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "arena.celery_app",
        "worker",
        "-Q",
        ",".join(worker_queues()),
        "--prefetch-multiplier",
        "1",
        "--loglevel",
        os.environ.get("ARENA_LOG_LEVEL", "INFO"),
    ]
    if concurrency:
        argv += ["--concurrency", str(concurrency)]
    if node_name:
        argv += ["-n", node_name]
    return [*argv, *extra]


def beat_argv(*, schedule: str) -> list[str]:
    """The ``celery beat`` command line (one in the whole cluster), its schedule in ``schedule``."""
    return [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "arena.celery_app",
        "beat",
        "-s",
        schedule,
        "--loglevel",
        os.environ.get("ARENA_LOG_LEVEL", "INFO"),
    ]


class Command(BaseCommand):
    """Replace this process with a Celery worker on every declared queue."""

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
        parser.add_argument("celery_args", nargs="*", help="more `celery worker` options")

    def handle(self, *args: Any, **options: Any) -> None:
        """Exec the worker (signals then reach Celery directly)."""
        argv = worker_argv(
            concurrency=options["concurrency"],
            node_name=options["node_name"],
            extra=options["celery_args"],
        )
        sys.stdout.flush()
        os.execve(argv[0], argv, child_env())  # noqa: S606 - our own argv, no shell
