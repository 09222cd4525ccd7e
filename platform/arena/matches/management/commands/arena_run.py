"""``make run``: the embedded platform in one command (DESIGN.md §6).

Migrates, loads the demo data once (house bots on every ladder), then starts a Celery worker with
an embedded beat and the web server on http://127.0.0.1:8000. The broker is kombu's filesystem
transport unless ``REDIS_URL`` is set. Ctrl-C (or any child dying) stops everything.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from arena.matches.sandboxing import PROCESS_WARNING, detected_backend


class Command(BaseCommand):
    """Run web, worker and beat together."""

    help = "Start the whole platform (web, worker, beat) on one machine; Ctrl-C stops it."

    def add_arguments(self, parser: Any) -> None:
        """``--addr`` and ``--concurrency``."""
        parser.add_argument("--addr", default="127.0.0.1:8000", help="where the web server listens")
        parser.add_argument("--concurrency", type=int, default=2, help="worker processes")

    def handle(self, *args: Any, **options: Any) -> None:
        """Start, watch, stop."""
        root = Path(settings.ROOT_DIR)
        Path(settings.BROKER_DIR, "queue").mkdir(parents=True, exist_ok=True)
        Path(settings.BROKER_DIR, "processed").mkdir(parents=True, exist_ok=True)
        call_command("arena_setup")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(root / "platform"), str(root), env.get("PYTHONPATH", "")]
        ).rstrip(os.pathsep)
        env.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
        backend = settings.ARENA_SANDBOX_BACKEND
        if backend == "auto":
            backend = detected_backend()
            env["ARENA_SANDBOX_BACKEND"] = backend
        if backend == "process":
            env["ARENA_ALLOW_PROCESS_SANDBOX"] = "1"
            self.stderr.write(
                self.style.WARNING("!" * 100 + "\n" + PROCESS_WARNING + "\n" + "!" * 100)
            )
        broker = (
            "Redis at REDIS_URL" if settings.REDIS_URL else f"filesystem ({settings.BROKER_DIR})"
        )
        self.stdout.write(
            f"sandbox: {backend}; broker: {broker}; database: "
            f"{settings.DATABASES['default']['NAME']}"
        )
        commands = {
            "worker": [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "arena.celery_app",
                "worker",
                "-B",
                "-Q",
                ",".join(settings.ARENA_WORKER_QUEUES),
                "--concurrency",
                str(options["concurrency"]),
                "--loglevel",
                "INFO",
                "-s",
                settings.CELERY_BEAT_SCHEDULE_FILENAME,
            ],
            "web": [
                sys.executable,
                str(root / "manage.py"),
                "runserver",
                options["addr"],
                "--noreload",
                "--insecure",
            ],
        }
        children = {
            name: subprocess.Popen(cmd, env=env, cwd=root) for name, cmd in commands.items()
        }
        self.stdout.write(
            self.style.SUCCESS(
                f"Agent Arena is up on http://{options['addr']}/ "
                "(Ctrl-C stops web, worker and beat)"
            )
        )
        try:
            while all(child.poll() is None for child in children.values()):
                time.sleep(0.5)
            dead = [n for n, c in children.items() if c.poll() is not None]
            self.stderr.write(f"{', '.join(dead)} stopped; stopping the rest")
        except KeyboardInterrupt:
            self.stdout.write("stopping…")
        finally:
            _stop(list(children.values()))


def _stop(children: list[subprocess.Popen[bytes]]) -> None:
    for child in children:
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 15
    for child in children:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
