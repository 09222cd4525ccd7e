"""Start-up of a long-lived process (gunicorn's workers, Celery's pool processes and nodes).

What a process builds while it starts (Django's apps, models, URL patterns, templates, Celery's
app: about 150,000 tracked objects) lives as long as the process. Python's cyclic collector
still walks all of it in every full collection: measured on the scale ladder
(``bench/scale.py``), each one took about 100 ms, landing in whichever request or matchmaking
pass happened to allocate at that moment. ``gc.freeze`` moves those objects out of the
collector's generations once they are built, and a full collection then walks only what came
after (about 20 ms). Frozen objects are never collected, which is right for objects that live as
long as the process. (It also keeps the collector from writing to pages a forked child shares
with its parent.)
"""

from __future__ import annotations

import gc


def freeze_startup_objects() -> int:
    """Collect the garbage start-up left, then freeze what remains; how many objects are frozen
    now."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
