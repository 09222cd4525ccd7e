"""``make image``: build the sandbox image agents run in (docs/sandbox.md).

    python -m sandbox.image.build [--if-missing] [--base auto|debian|IMAGE] [--tag NAME]

The image is ``sandbox/image/Dockerfile`` on top of a base holding python3:

* ``--base auto`` (default): the Debian base this script made before if the engine has it, else
  ``python:3.11-slim-bookworm`` pulled from a registry, else (no registry, as on an engine that
  starts empty and cannot pull) a base made here from Debian packages: ``mmdebstrap`` (bookworm,
  python3, essential packages only, no docs, no setuid bits) piped into ``docker import``;
* ``--base debian`` always makes (or reuses) that Debian base; any other value is an image name.

The image also holds the agent's OpenAI client: the wheels of ``requirements.txt`` (each pinned
with its sha256), downloaded here on the host with ``pip download --require-hashes`` for CPython
3.11 on manylinux2014 into ``~/.cache/agent-arena/wheels`` (kept between builds) and copied into
the build context; the build itself fetches nothing.

``--if-missing`` does nothing when the image exists and holds the current ``harness.py`` and
``requirements.txt`` (their sha256 are labels), so ``make test`` rebuilds only after either
changed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import docker
import docker.errors

from sandbox.limits import SANDBOX_IMAGE

HERE = Path(__file__).resolve().parent
HARNESS = HERE.parent / "harness.py"
#: The base made from Debian packages when no registry answers.
DEBIAN_BASE = "agent-arena-sandbox-base:bookworm"
#: The base used where a registry answers.
REGISTRY_BASE = "python:3.11-slim-bookworm"
HARNESS_LABEL = "arena.sandbox.harness-sha256"
REQUIREMENTS = HERE / "requirements.txt"
REQUIREMENTS_LABEL = "arena.sandbox.requirements-sha256"
#: Where downloaded wheels are kept between builds.
WHEEL_CACHE = Path.home() / ".cache" / "agent-arena" / "wheels"
DEBIAN_MIRRORS = (
    "deb http://deb.debian.org/debian bookworm main",
    "deb http://deb.debian.org/debian bookworm-updates main",
    "deb http://deb.debian.org/debian-security bookworm-security main",
)


def harness_sha256() -> str:
    """The sha256 of ``sandbox/harness.py``, stored as a label on the image."""
    return hashlib.sha256(HARNESS.read_bytes()).hexdigest()


def requirements_sha256() -> str:
    """The sha256 of ``sandbox/image/requirements.txt``, stored as a label on the image."""
    return hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()


def image_is_current(client: Any, tag: str) -> bool:
    """True when ``tag`` exists and was built from the current harness and requirements."""
    try:
        labels = client.api.inspect_image(tag)["Config"].get("Labels") or {}
    except docker.errors.ImageNotFound:
        return False
    return bool(
        labels.get(HARNESS_LABEL) == harness_sha256()
        and labels.get(REQUIREMENTS_LABEL) == requirements_sha256()
    )


def download_wheels(destination: Path) -> None:
    """The wheels of ``requirements.txt``, every hash checked by pip, into ``destination``."""
    machine = os.uname().machine or "x86_64"
    WHEEL_CACHE.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--require-hashes",
        "--no-deps",
        "--only-binary=:all:",
        "--implementation=cp",
        "--python-version=3.11",
        f"--platform=manylinux2014_{machine}",
        f"--platform=manylinux_2_17_{machine}",
        "--dest",
        str(WHEEL_CACHE),
        "-r",
        str(REQUIREMENTS),
    ]
    try:
        subprocess.run(command, check=True, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(
            f"make image: could not download the agent's wheels ({exc}); a package index must "
            "answer pip (or put the wheels of sandbox/image/requirements.txt in "
            f"{WHEEL_CACHE})"
        ) from None
    wanted = {
        line.split("--hash=sha256:", 1)[1].split()[0]
        for line in REQUIREMENTS.read_text().splitlines()
        if "--hash=sha256:" in line
    }
    destination.mkdir()
    for wheel in WHEEL_CACHE.glob("*.whl"):
        if hashlib.sha256(wheel.read_bytes()).hexdigest() in wanted:
            shutil.copy(wheel, destination / wheel.name)


def _image_id(client: Any, name: str) -> str | None:
    try:
        return str(client.api.inspect_image(name)["Id"])
    except docker.errors.ImageNotFound:
        return None


def _has_image(client: Any, name: str) -> bool:
    try:
        client.api.inspect_image(name)
    except docker.errors.ImageNotFound:
        return False
    return True


def make_debian_base(client: Any) -> str:
    """Build ``DEBIAN_BASE`` with mmdebstrap and ``docker import``; return its name."""
    mmdebstrap = shutil.which("mmdebstrap")
    if mmdebstrap is None:
        raise SystemExit(
            "make image: no registry answered and mmdebstrap is not installed; "
            "install it (apt-get install mmdebstrap) or pass --base IMAGE"
        )
    print(f"make image: building {DEBIAN_BASE} from Debian packages (mmdebstrap)", flush=True)
    with tempfile.TemporaryDirectory(prefix="arena-image-") as tmp:
        tarball = Path(tmp) / "base.tar"
        command = [
            mmdebstrap,
            "--quiet",
            "--variant=essential",
            "--include=python3",
            *(
                f"--dpkgopt=path-exclude=/usr/share/{d}/*"
                for d in ("doc", "man", "info", "locale", "lintian", "linda")
            ),
            # setuid programs are useless under no-new-privileges; removing them is free.
            '--customize-hook=chroot "$1" find / -xdev -perm /6000 -type f -exec chmod a-s {} +',
            "bookworm",
            str(tarball),
            *DEBIAN_MIRRORS,
        ]
        # stdin closed: without a tty mmdebstrap would read mirrors from it.
        subprocess.run(command, check=True, stdin=subprocess.DEVNULL)
        repository, _, tag = DEBIAN_BASE.partition(":")
        client.api.import_image_from_file(str(tarball), repository=repository, tag=tag)
    return DEBIAN_BASE


def choose_base(client: Any, base: str) -> str:
    """Resolve ``--base`` to an image present on the engine."""
    if base == "debian":
        return DEBIAN_BASE if _has_image(client, DEBIAN_BASE) else make_debian_base(client)
    if base != "auto":
        if not _has_image(client, base):
            client.images.pull(base)
        return base
    if _has_image(client, DEBIAN_BASE):
        return DEBIAN_BASE
    if _has_image(client, REGISTRY_BASE):
        return REGISTRY_BASE
    try:
        client.images.pull(REGISTRY_BASE)
    except docker.errors.APIError as exc:
        print(f"make image: cannot pull {REGISTRY_BASE} ({exc.explanation or exc})", flush=True)
        return make_debian_base(client)
    return REGISTRY_BASE


def build(client: Any, tag: str, base: str) -> None:
    """Build the sandbox image from ``sandbox/image/Dockerfile`` on ``base``."""
    with tempfile.TemporaryDirectory(prefix="arena-image-") as context:
        shutil.copy(HERE / "Dockerfile", Path(context) / "Dockerfile")
        shutil.copy(HARNESS, Path(context) / "harness.py")
        shutil.copy(REQUIREMENTS, Path(context) / "requirements.txt")
        shutil.copy(HERE / "install_wheels.py", Path(context) / "install_wheels.py")
        download_wheels(Path(context) / "wheels")
        stream = client.api.build(
            path=context,
            tag=tag,
            buildargs={
                "BASE": base,
                "HARNESS_SHA256": harness_sha256(),
                "REQUIREMENTS_SHA256": requirements_sha256(),
            },
            rm=True,
            forcerm=True,
            pull=False,
            decode=True,
        )
        for chunk in stream:
            if "error" in chunk:
                raise SystemExit(f"make image: docker build failed: {chunk['error']}")
            text = chunk.get("stream", "").rstrip()
            if text.startswith("Step "):
                print(f"  {text}", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``make image`` / ``python -m sandbox.image.build``."""
    parser = argparse.ArgumentParser(prog="python -m sandbox.image.build", description=__doc__)
    parser.add_argument(
        "--if-missing",
        action="store_true",
        help="do nothing when the image exists and holds the current harness",
    )
    parser.add_argument("--base", default="auto", help="auto (default), debian, or an image name")
    parser.add_argument(
        "--tag", default=SANDBOX_IMAGE, help=f"image name (default {SANDBOX_IMAGE})"
    )
    args = parser.parse_args(argv)
    try:
        client = docker.from_env(timeout=600)
        client.api.ping()
    except (docker.errors.DockerException, OSError) as exc:
        print(f"make image: no Docker engine answers: {exc}", file=sys.stderr)
        return 1
    if args.if_missing and image_is_current(client, args.tag):
        print(f"make image: {args.tag} is up to date")
        return 0
    began = time.perf_counter()
    previous = _image_id(client, args.tag)
    try:
        base = choose_base(client, args.base)
        build(client, args.tag, base)
    except subprocess.CalledProcessError as exc:
        print(f"make image: mmdebstrap failed with exit code {exc.returncode}", file=sys.stderr)
        return 1
    except docker.errors.DockerException as exc:
        print(f"make image: {exc}", file=sys.stderr)
        return 1
    if previous is not None and previous != _image_id(client, args.tag):
        # The image this one replaces would linger untagged; running containers keep it alive.
        with contextlib.suppress(docker.errors.APIError):
            client.api.remove_image(previous)
    print(f"make image: built {args.tag} on {base} in {time.perf_counter() - began:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
