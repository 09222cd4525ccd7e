"""Long-lived processes freeze what they built at start-up (arena.ops.process): each in a
process of its own, as the freeze cannot be undone in the test process's collector."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _run(code: str) -> str:
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'platform'}{os.pathsep}{ROOT}",
        "DJANGO_SETTINGS_MODULE": "arena.settings",
    }
    done = subprocess.run(  # noqa: S603 - our own code
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def test_a_started_process_freezes_what_it_built() -> None:
    out = _run(
        "import gc, django; django.setup(); assert gc.get_freeze_count() == 0\n"
        "from arena.ops.process import freeze_startup_objects\n"
        "frozen = freeze_startup_objects()\n"
        "print(frozen, gc.get_freeze_count(), len(gc.get_objects()))"
    )
    frozen, count, tracked = (int(x) for x in out.split())
    # Django's apps and models alone are tens of thousands of objects; few remain tracked.
    assert frozen == count > 20_000
    assert tracked < frozen / 10


def test_a_celery_pool_process_freezes_after_its_start() -> None:
    out = _run(
        "import gc, django; django.setup()\n"
        "from arena.matches import sandboxing\n"
        "sandboxing.start_pool = lambda: None  # no sandbox engine needed here\n"
        "import importlib\n"
        "importlib.import_module('arena.celery_app')._on_worker_process_init()\n"
        "print(gc.get_freeze_count())"
    )
    assert int(out) > 20_000


def test_a_gunicorn_worker_freezes_once_it_loaded_the_application() -> None:
    conf = ROOT / "deploy" / "gunicorn.conf.py"
    out = _run(
        "import gc, runpy, django; django.setup()\n"
        f"hooks = runpy.run_path({str(conf)!r})\n"
        "hooks['post_worker_init'](None)\n"
        "print(gc.get_freeze_count())"
    )
    assert int(out) > 20_000
