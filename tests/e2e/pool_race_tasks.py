"""Tasks of the pool-race test (tests/e2e/test_pool_race.py), loaded by its worker with
``--include``: each says which pool process took it and when it ended, in files under
``ARENA_VAR_DIR/pool-race``."""

from __future__ import annotations

import os
import time
from pathlib import Path

from arena.celery_app import app


def _folder() -> Path:
    folder = Path(os.environ["ARENA_VAR_DIR"]) / "pool-race"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@app.task(name="pool_race.hold")
def hold(token: str, seconds: float) -> None:
    """Say this process took ``token`` (``<token>.<pid>.start``), hold it ``seconds``, say it
    ended (``<token>.<pid>.done``)."""
    folder = _folder()
    pid = os.getpid()
    _say(folder / f"{token}.{pid}.start")
    time.sleep(seconds)
    _say(folder / f"{token}.{pid}.done")


def _say(path: Path) -> None:
    """Write the time into ``path`` whole: aside, then renamed (the test reads it at once)."""
    draft = path.with_name(path.name + ".tmp")
    draft.write_text(str(time.time()))
    draft.replace(path)
