"""``manage.py arena_sandboxes``: an operator's view of the sandbox containers by instance, and the
clean-ups no deployment does by itself (another instance's, the unlabelled ones)."""

from __future__ import annotations

import contextlib
import secrets
import time
from io import StringIO
from typing import Any

import docker
import pytest
from django.core.management import CommandError, call_command

from sandbox import SandboxLimits
from sandbox.container_config import EXPIRES_LABEL, LABEL, OWNER_LABEL, owner
from sandbox.engine import docker_client, docker_ready
from sandbox.instance import INSTANCE_LABEL
from tests.conftest import require_part

pytestmark = pytest.mark.docker


def _container(labels: dict[str, str]) -> str:
    """A container (never started) owned by this live process and far from its expiry: no
    automatic sweep of any version removes it, only the operator's command under test."""
    api = docker_client().api
    labels = {OWNER_LABEL: owner(), EXPIRES_LABEL: str(int(time.time()) + 3600), **labels}
    return str(api.create_container(SandboxLimits().image, command=["true"], labels=labels)["Id"])


def _exists(container_id: str) -> bool:
    return bool(docker_client().api.containers(all=True, filters={"id": container_id}))


def test_an_operator_lists_and_removes_a_gone_instances_containers(settings: Any) -> None:
    require_part(docker_ready(SandboxLimits().image), "needs Docker and the sandbox image")
    gone = f"gone-{secrets.token_hex(4)}"
    kept = f"kept-{secrets.token_hex(4)}"
    ids = [_container({LABEL: "1", INSTANCE_LABEL: i}) for i in (gone, gone, kept)]
    try:
        out = StringIO()
        call_command("arena_sandboxes", stdout=out)
        assert f"{gone}\t2" in out.getvalue() and f"{kept}\t1" in out.getvalue()
        out = StringIO()
        call_command("arena_sandboxes", "--remove-instance", gone, stdout=out)
        assert "removed 2 containers" in out.getvalue()
        assert [_exists(i) for i in ids] == [False, False, True]
        with pytest.raises(CommandError, match="own instance"):
            call_command("arena_sandboxes", "--remove-instance", settings.ARENA_INSTANCE_ID)
    finally:
        for container_id in ids:
            with contextlib.suppress(docker.errors.APIError):  # gone, or going
                docker_client().api.remove_container(container_id, force=True)


def test_removing_the_unlabelled_takes_only_containers_without_an_instance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only the containers made before instances existed; the listing is narrowed to this test's
    own, so that other runs' unlabelled containers on a shared engine are never touched."""
    require_part(docker_ready(SandboxLimits().image), "needs Docker and the sandbox image")
    from sandbox import reaper

    old = _container({LABEL: "1"})
    labelled = _container({LABEL: "1", INSTANCE_LABEL: f"kept-{secrets.token_hex(4)}"})
    real = reaper.containers_by_instance
    mine = {old, labelled}
    monkeypatch.setattr(
        reaper,
        "containers_by_instance",
        lambda: {k: [c for c in v if c in mine] for k, v in real().items()},
    )
    try:
        out = StringIO()
        call_command("arena_sandboxes", "--remove-unlabelled", stdout=out)
        assert "removed 1 containers" in out.getvalue()
        assert not _exists(old) and _exists(labelled)
    finally:
        for container_id in (old, labelled):
            with contextlib.suppress(docker.errors.APIError):  # gone, or going
                docker_client().api.remove_container(container_id, force=True)
