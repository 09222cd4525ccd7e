"""The ``docker`` backend, by the names it had when it was one module.

The backend is made of parts with one job each; import from them:

* ``sandbox/engine.py``: the Docker client of this process, its fresh start after a fork, the
  threads that remove and rename containers in the background (``docker_client``,
  ``docker_ready``, ``wait_for_removals``);
* ``sandbox/container_config.py``: ``SandboxLimits`` and an instance turned into a container's
  configuration, labels and name;
* ``sandbox/docker_handle.py``: the agent handle and the bookkeeping of its freezes
  (``DockerAgentHandle``, ``confirm_freezes``);
* ``sandbox/reaper.py``: an instance's containers bound to matches, its orphans, and the
  operator's clean-ups;
* ``sandbox/pool.py``: the warm pool, and ``own_containers`` for leak checks.

This module only re-exports those names for code written against the old module; it holds
nothing of its own and nothing in the sandbox imports it.
"""

from __future__ import annotations

from sandbox.container_config import (
    EXPIRES_LABEL,
    HARNESS_COMMAND,
    LABEL,
    OWNER_LABEL,
    POOL_LABEL,
    container_config,
    owner,
)
from sandbox.docker_handle import FREEZE_ATTEMPTS, DockerAgentHandle, confirm_freezes
from sandbox.engine import EXIT_WAIT_S, docker_client, docker_ready, wait_for_removals
from sandbox.pool import own_containers
from sandbox.reaper import (
    containers_by_instance,
    instance_filters,
    match_containers,
    remove_containers,
    remove_orphan_containers,
    remove_unlabelled_containers,
)

__all__ = [
    "EXIT_WAIT_S",
    "EXPIRES_LABEL",
    "FREEZE_ATTEMPTS",
    "HARNESS_COMMAND",
    "LABEL",
    "OWNER_LABEL",
    "POOL_LABEL",
    "DockerAgentHandle",
    "confirm_freezes",
    "container_config",
    "containers_by_instance",
    "docker_client",
    "docker_ready",
    "instance_filters",
    "match_containers",
    "own_containers",
    "owner",
    "remove_containers",
    "remove_orphan_containers",
    "remove_unlabelled_containers",
    "wait_for_removals",
]
