"""Agent Arena's Django project: settings, urls, the Celery app and the apps."""

from arena.celery_app import app as celery_app

__all__ = ["celery_app"]
