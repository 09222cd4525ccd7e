"""Hooks through which the platform counts what the sandbox does, without the sandbox knowing
the platform (imports flow one way): container starts and warm-pool takes. Observers never
break the sandbox: whatever one raises is logged and dropped."""

from __future__ import annotations

import logging
from collections.abc import Callable

logger = logging.getLogger(__name__)

#: Called with (seconds to create and start a container, whether it was for the warm pool).
ContainerStartObserver = Callable[[float, bool], None]
#: Called with True when the warm pool handed out a ready sandbox, False when it had none.
PoolTakeObserver = Callable[[bool], None]

_container_start: list[ContainerStartObserver] = []
_pool_take: list[PoolTakeObserver] = []


def on_container_start(observer: ContainerStartObserver) -> None:
    """Register ``observer`` for every container start (once per observer)."""
    if observer not in _container_start:
        _container_start.append(observer)


def on_pool_take(observer: PoolTakeObserver) -> None:
    """Register ``observer`` for every take from a warm pool (once per observer)."""
    if observer not in _pool_take:
        _pool_take.append(observer)


def container_started(seconds: float, *, pool: bool) -> None:
    for observer in list(_container_start):
        try:
            observer(seconds, pool)
        except Exception:
            logger.debug("container start observer failed", exc_info=True)


def pool_taken(*, hit: bool) -> None:
    for observer in list(_pool_take):
        try:
            observer(hit)
        except Exception:
            logger.debug("pool take observer failed", exc_info=True)
