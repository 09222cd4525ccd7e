"""Which instance of the platform a sandbox container belongs to.

Several deployments may share one Docker engine: a second ``make run``, the test suite, a staging
site, a CI job, ``arena play``. Each is an *instance* with its own identity, and every container
the sandbox makes carries it: the label ``arena.instance=<id>`` and a name that starts with
``arena-<id>-`` (``arena-<id>-pool-…`` or ``arena-<id>-agent-…`` when created,
``arena-<id>-match-<match>-<container id[:12]>`` once bound to a match). Everything that lists,
sweeps or drains containers selects on the label of its own instance, so nothing one instance
cleans up is ever another's.

The sandbox never decides an instance from the environment: the caller passes it as a value (the
platform passes its ``ARENA_INSTANCE_ID`` setting; ``arena play`` passes ``CLI_INSTANCE``). A
caller that passes none gets ``PROCESS_INSTANCE``, made up when this module is first imported:
a process of its own that no other process shares (a forked child inherits it), so the sandbox
tests, the benches and scripts can neither touch nor lose anyone else's containers.

Containers made before instances existed carry no instance label. No sweep removes them; an
operator does, once no old deployment runs (``manage.py arena_sandboxes --remove-unlabelled``).
"""

from __future__ import annotations

import re
import secrets

#: Label naming the instance that made a container.
INSTANCE_LABEL = "arena.instance"
#: Lowercase letters, digits and dashes, 1 to 32 of them: it is part of container names.
INSTANCE_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,31}")
#: The instance of ``arena play`` on a participant's machine.
CLI_INSTANCE = "cli"
#: The instance of a process that names none (see above).
PROCESS_INSTANCE = f"local-{secrets.token_hex(4)}"


def checked_instance(instance: str) -> str:
    """``instance`` when it is a valid identity; ``ValueError`` saying what is valid."""
    if not INSTANCE_PATTERN.fullmatch(instance):
        raise ValueError(
            f"sandbox instance {instance!r}: use 1-32 lowercase letters, digits or dashes, "
            "starting with a letter or digit"
        )
    return instance


def name_prefix(instance: str) -> str:
    """The start of every container name of ``instance``."""
    return f"arena-{instance}-"


def match_name_prefix(instance: str) -> str:
    """The start of the names of ``instance``'s containers bound to a match."""
    return f"{name_prefix(instance)}match-"
