"""The Celery app. Configuration comes from Django settings (``CELERY_*``)."""

from __future__ import annotations

import logging
import os

from celery import Celery
from celery.signals import worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

logger = logging.getLogger(__name__)


@worker_ready.connect
def _remove_orphans(**_: object) -> None:
    """A worker that died mid-match leaves agent containers behind: clean them up on start."""
    from arena.matches.sandboxing import remove_orphaned_agents

    removed = remove_orphaned_agents()
    if removed:
        logger.warning("removed %d orphaned agent sandboxes", removed)
