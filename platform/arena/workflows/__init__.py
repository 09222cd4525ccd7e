"""Workflows that cross apps, one layer above them (docs/architecture.md).

The apps depend on each other one way only (accounts ← submissions ← matches ← ratings ←
catalog); whatever needs several of them (upload → validate; play → record → rate;
void → recompute; pair → enqueue) lives here, and the Celery tasks (``tasks.py``) call it.
"""
