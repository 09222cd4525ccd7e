"""The one place that turns a submission into an ``AgentHandle`` (docs/sandbox.md).

House bots are trusted code and run in-process. Uploaded code runs in the sandbox backend the
settings choose: ``ARENA_SANDBOX_BACKEND`` = ``auto`` (docker when an engine answers, else
process), ``docker`` or ``process``. The process backend does not isolate, so it is refused
unless ``DEBUG`` is on or ``ARENA_ALLOW_PROCESS_SANDBOX`` says so, and it is announced loudly.

Docker sandboxes come from the worker process's warm pool (``ARENA_SANDBOX_POOL_SIZE`` per
process): started when the worker process starts (``celery_app`` connects ``start_pool`` to
``worker_process_init``), refilled in the background, drained (idle containers removed) when the
worker process shuts down. A process without a pool (eager tasks, ``manage.py`` commands) starts
each container when its match needs it. Waiting agents
are frozen through the cgroup freezer where the worker can write it (``ARENA_SANDBOX_FREEZE``,
``ARENA_SANDBOX_CGROUP_ROOT``), else ``docker pause``.

An active, accepted submission's container may serve its next matches on the same worker process
(``ARENA_SANDBOX_REUSE``, on by default; ``sandbox/reuse.py``): its key is the submission's id,
so two submissions never share one; a submission no longer active or accepted gets a container of
its own for each match and its idle ones are removed when it next plays here (the rest go after
``ARENA_SANDBOX_REUSE_IDLE_S``).

Every container carries this deployment's ``ARENA_INSTANCE_ID`` (a label and its name), and the
reaper, the orphan sweep and the pool drain touch this instance's containers only: another
deployment on the same Docker engine (a second ``make run``, the tests, staging) keeps its own.
"""

from __future__ import annotations

import logging
from functools import cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from arena import metrics
from arena.llm.gateways import agent_gateway
from arena.llm.seats import model_seat
from arena.llm.selectors import model_entrant_of
from arena.matches.models import DONE_STATUSES, Match
from arena.submissions.checks import declared_game
from arena.submissions.models import Submission
from games.core import AgentHandle, UnknownGameError, get_game_spec, house_bot_class
from games.core.agent import DeclaredGameHandle
from sandbox import (
    SandboxLimits,
    configure_reuse,
    containers_by_instance,
    create_handle,
    detect_backend,
    discard_reused,
    drain_reused,
    drain_warm_pool,
    match_containers,
    observe,
    remove_containers,
    remove_orphans,
    remove_process_containers,
    remove_unlabelled_containers,
    start_warm_pool,
    trusted_handle,
)
from sandbox import pool as warm_pool  # this process's pool

logger = logging.getLogger(__name__)


def _count_container_start(seconds: float, pool: bool) -> None:
    metrics.observe(metrics.CONTAINER_START, seconds)


def _count_pool_take(hit: bool) -> None:
    metrics.inc(metrics.POOL_TAKES, result="hit" if hit else "miss")


# The sandbox reports its container starts and warm-pool takes to the platform's metrics.
observe.on_container_start(_count_container_start)
observe.on_pool_take(_count_pool_take)

PROCESS_WARNING = (
    "AGENTS RUN IN THE PROCESS SANDBOX: uploaded code is NOT isolated from this machine. "
    "Fine on your own laptop with your own agents; never expose this server to others. "
    "Start a Docker engine and build the sandbox image (`make image`) for the docker sandbox."
)


@cache
def sandbox_backend() -> str:
    """The backend for uploaded code: ``docker`` or ``process`` (decided once per process)."""
    wanted = settings.ARENA_SANDBOX_BACKEND
    if wanted not in {"auto", "docker", "process"}:
        raise ImproperlyConfigured(f"ARENA_SANDBOX_BACKEND={wanted!r}: use auto, docker or process")
    backend = detected_backend() if wanted == "auto" else wanted
    if backend == "process":
        if not settings.ARENA_ALLOW_PROCESS_SANDBOX:
            raise ImproperlyConfigured(
                "the process sandbox does not isolate agents and is refused when DEBUG is off; "
                "run a Docker engine with the sandbox image, or set "
                "ARENA_ALLOW_PROCESS_SANDBOX=1 if you accept the risk"
            )
        logger.warning(PROCESS_WARNING)
    elif not _image_current():
        logger.error(STALE_IMAGE, settings.ARENA_SANDBOX_IMAGE)
    return backend


STALE_IMAGE = (
    "the sandbox image %s is missing or was built from another sandbox/harness.py than this "
    "checkout's: every match fails as a platform error until `make image` builds it"
)


def _image_current() -> bool:
    """Whether the sandbox image holds this checkout's harness (its label says so); a question
    the engine cannot answer counts as yes (the match then says what went wrong)."""
    from sandbox.engine import docker_client
    from sandbox.image.build import image_is_current

    try:
        return image_is_current(docker_client(), settings.ARENA_SANDBOX_IMAGE)
    except Exception:
        logger.debug("the sandbox image could not be inspected", exc_info=True)
        return True


def sandbox_limits(*, freeze_idle: bool = True) -> SandboxLimits:
    """The limits every uploaded agent runs under, from the settings."""
    return SandboxLimits(
        image=settings.ARENA_SANDBOX_IMAGE,
        runtime=settings.ARENA_SANDBOX_RUNTIME,
        freeze_idle=freeze_idle,
        freeze_method=settings.ARENA_SANDBOX_FREEZE,
        cgroup_root=settings.ARENA_SANDBOX_CGROUP_ROOT,
        supervised=settings.ARENA_SANDBOX_REUSE,
        channel=settings.ARENA_SANDBOX_CHANNEL,
        channel_dir=settings.ARENA_SANDBOX_CHANNEL_DIR,
        reuse_max_matches=max(1, settings.ARENA_SANDBOX_REUSE_MATCHES),
        reuse_max_age_s=max(1, int(settings.ARENA_SANDBOX_REUSE_MINUTES * 60)),
    )


def reuse_key(submission: Submission) -> str | None:
    """The key under which ``submission``'s containers may serve its later matches, or ``None``
    (reuse off, or a submission not on its ladder: pending, rejected, deactivated, replaced)."""
    if not settings.ARENA_SANDBOX_REUSE:
        return None
    key = f"submission-{submission.pk}"
    if submission.status != Submission.Status.ACCEPTED or not submission.active:
        discard_reused(key)  # its idle containers (if this process has any) go now
        return None
    return key


def make_handle(
    submission: Submission,
    *,
    freeze_idle: bool = True,
    match_id: int | None = None,
    seat: int = 0,
    match_attempt: int = 0,
    validation: bool = False,
    model_move_budget_s: float | None = None,
) -> AgentHandle:
    """A fresh, unstarted handle for one seat; the referee starts and closes it.

    ``freeze_idle`` freezes a sandboxed agent while it waits for its turn; ``match_id`` names
    its container after the match, for ``sandboxes_reap``. A model entrant gets a model seat
    in this process (never a sandbox: it runs no code of its owner), ``seat`` and
    ``match_attempt`` label its ledger rows, ``validation`` makes a dead endpoint reject it and
    ``model_move_budget_s`` is its match's budget per move (empty: the platform's). An active
    submission's sandbox may be a container that served its last match here (``reuse_key``).
    Uploaded code whose owner allowed it models gets its model gateway (``arena.llm.gateways``),
    in every kind of match alike.
    """
    if submission.house_bot:
        bot_class = house_bot_class(submission.agent.game, submission.house_bot)
        return trusted_handle(bot_class, name=submission.label)
    entrant = model_entrant_of(submission)
    if entrant is not None:
        return model_seat(
            config=entrant,
            name=submission.label,
            match_id=match_id,
            match_attempt=match_attempt,
            seat=seat,
            validation=validation,
            move_budget_s=model_move_budget_s,
        )
    handle = create_handle(
        submission.source,
        name=submission.label,
        backend=sandbox_backend(),
        limits=sandbox_limits(freeze_idle=freeze_idle),
        match=None if match_id is None else str(match_id),
        instance=settings.ARENA_INSTANCE_ID,
        reuse_key=None if validation else reuse_key(submission),
        gateway=agent_gateway(
            submission, match_id=match_id, match_attempt=match_attempt, seat=seat
        ),
    )
    # An agent uploaded before its game was renamed still declares the former id in GAME.
    game = submission.agent.game
    declared = declared_game(submission.source)
    if declared is not None and declared != game:
        try:
            former = get_game_spec(game).game_class.former_ids
        except UnknownGameError:
            former = frozenset()
        if declared in former:
            return DeclaredGameHandle(handle, declared)
    return handle


def start_pool() -> None:
    """Start this process's warm pool of docker sandboxes (when the docker backend runs).

    Safe to call again: a running pool is left alone. Never raises: without a pool, matches
    start their containers themselves.
    """
    size = settings.ARENA_SANDBOX_POOL_SIZE
    configure_reuse(
        max_idle=settings.ARENA_SANDBOX_REUSE_MAX_IDLE, idle_s=settings.ARENA_SANDBOX_REUSE_IDLE_S
    )
    if size <= 0 or warm_pool.current() is not None:
        return
    try:
        if sandbox_backend() != "docker":
            return
        start_warm_pool(sandbox_limits(), size, instance=settings.ARENA_INSTANCE_ID)
    except Exception:  # a pool is an optimisation: log why there is none and play on
        logger.warning("the warm pool of sandboxes could not start", exc_info=True)


def drain_pool() -> int:
    """Stop this process's warm pool and remove its idle containers, the reused ones too;
    return how many."""
    try:
        return drain_reused() + drain_warm_pool()
    except Exception:  # shutting down must go on; the reaper removes what is left
        logger.warning("the warm pool could not be drained", exc_info=True)
        return 0


def detected_backend() -> str:
    """What ``auto`` means on this machine: docker when the engine and image answer."""
    return str(detect_backend(SandboxLimits(image=settings.ARENA_SANDBOX_IMAGE)))


def sandboxes_reap() -> int:
    """The periodic reaper: remove this instance's sandboxes of dead worker processes
    (``remove_orphans``) and those of its matches that are over, whichever of its workers created
    them (a worker that lives on but whose match the sweeper ended, say); returns how many.

    Match ids are this instance's database's: another instance's containers are never listed."""
    removed = remove_orphaned_agents()
    bound = match_containers(instance=settings.ARENA_INSTANCE_ID)
    ids = {int(match) for match in bound.values() if match.isdigit()}
    if not ids:
        return removed
    live = {
        str(pk)
        for pk in Match.objects.filter(pk__in=ids)
        .exclude(status__in=DONE_STATUSES)
        .values_list("pk", flat=True)
    }
    # Finished, errored, or deleted meanwhile: over.
    ended = {str(pk) for pk in ids} - live
    over = [container for container, match in bound.items() if match in ended]
    if over:
        logger.info("removing %d sandboxes of matches that are over", len(over))
        removed += remove_containers(over)
    return removed


def remove_orphaned_agents() -> int:
    """Remove this instance's sandboxes a dead worker left behind; returns how many."""
    try:
        return int(remove_orphans(instance=settings.ARENA_INSTANCE_ID) or 0)
    except Exception:  # no engine: nothing can be orphaned there; say so and go on
        logger.info("no orphaned sandboxes removed (no Docker engine answered)", exc_info=True)
        return 0


def sandboxes_remove_of_processes(*, pids: set[int]) -> int:
    """Remove every sandbox of this instance that one of ``pids`` (processes of this host that
    were just stopped: ``make run``'s workers and their pool processes) created, whatever state
    it is in; returns how many. Never raises: with no engine there is nothing to remove."""
    try:
        return int(remove_process_containers(instance=settings.ARENA_INSTANCE_ID, pids=pids))
    except Exception:
        logger.warning("the stopped workers' sandboxes could not be removed", exc_info=True)
        return 0


def sandboxes_by_instance() -> dict[str, int]:
    """How many sandbox containers each instance has on this Docker engine (``""``: containers
    made before instances existed), for the operator's ``manage.py arena_sandboxes``."""
    return {instance: len(ids) for instance, ids in sorted(containers_by_instance().items())}


def sandboxes_remove_instance(*, instance: str) -> int:
    """Remove every sandbox container of another instance (one retired for good, or a test run
    that was killed); returns how many. Refuses this instance's own: its reaper removes them."""
    if instance == settings.ARENA_INSTANCE_ID:
        raise ValueError(
            f"{instance} is this deployment's own instance: its reaper removes its containers "
            "(stop its workers first; a restarted worker sweeps what the stopped ones left)"
        )
    return remove_containers(containers_by_instance().get(instance, []))


def sandboxes_remove_unlabelled() -> int:
    """Remove the sandbox containers made before instances existed; returns how many. An
    operator's decision: a deployment of that older version still running would lose its agents."""
    return int(remove_unlabelled_containers())
