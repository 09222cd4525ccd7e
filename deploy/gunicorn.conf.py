"""gunicorn settings for the web image; every value can be overridden from the environment."""

import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "3"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
# gunicorn's threaded worker, except that a graceful stop (a restart, a reload) serves the
# connections it already accepted instead of resetting them (arena/ops/webworker.py).
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "arena.ops.webworker.DrainingThreadWorker")
# Uploads are small (256 KiB) and matches run on workers, so requests are short.
timeout = int(os.environ.get("GUNICORN_TIMEOUT_S", "30"))
accesslog = "-"
errorlog = "-"
forwarded_allow_ips = os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "127.0.0.1")


def post_worker_init(worker: object) -> None:
    """Once the worker has loaded the application: what it built is frozen out of the cyclic
    collector's way (``arena.ops.process``; gunicorn loads this file on its own, so the two
    lines are here)."""
    import gc

    gc.collect()
    gc.freeze()
