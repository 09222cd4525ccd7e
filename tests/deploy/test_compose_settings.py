"""deploy/compose.yaml's production environment passes Django's deployment checklist
(``manage.py check --deploy``) with no warning, while the embedded defaults of ``make run``
(plain http on 127.0.0.1) do not: the HTTPS settings come from that environment."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from arena.settings import _proxy_ssl_header

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "compose.yaml"

#: ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?message}, ${VAR?message}
_VARIABLE = re.compile(r"\$\{(\w+)(?:(:?[-?])([^}]*))?\}")


def interpolate(value: str, given: dict[str, str]) -> str:
    """Substitute variables the way ``docker compose`` does (the forms compose.yaml uses)."""

    def one(match: re.Match[str]) -> str:
        name, op, arg = match.group(1), match.group(2), match.group(3)
        current = given.get(name)
        unset = current is None or (op is not None and op.startswith(":") and current == "")
        if op and op.endswith("?") and unset:
            raise AssertionError(f"compose.yaml requires {name}: {arg}")
        if op and op.endswith("-") and unset:
            return arg
        return current or ""

    return _VARIABLE.sub(one, value)


def compose_environment(service: str, given: dict[str, str]) -> dict[str, str]:
    """The environment ``service`` gets from compose.yaml (anchors and merges resolved)."""
    spec: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    environment = spec["services"][service]["environment"]
    assert isinstance(environment, dict), "use the mapping form for environment"
    return {key: interpolate(str(value), given) for key, value in environment.items()}


def manage(
    environment: dict[str, str], var_dir: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """``manage.py *args`` with exactly ``environment`` for the platform's variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "DJANGO_", "REDIS_"))}
    env.update(environment)
    env.update(
        PYTHONPATH=os.pathsep.join([str(ROOT / "platform"), str(ROOT)]),
        DJANGO_SETTINGS_MODULE="arena.settings",
        ARENA_VAR_DIR=str(var_dir),
    )
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_the_compose_environment_passes_check_deploy_with_no_warning(tmp_path: Path) -> None:
    # What an operator sets (compose.yaml refuses to start without both): a real secret.
    given = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "POSTGRES_PASSWORD": "pw"}
    checked: list[dict[str, str]] = []
    for service in ("web", "worker", "beat", "setup"):
        environment = compose_environment(service, given)
        if environment in checked:
            continue  # the same environment as a service already checked
        checked.append(environment)
        done = manage(environment, tmp_path, "check", "--deploy", "--fail-level", "WARNING")
        output = done.stdout + done.stderr
        assert done.returncode == 0, f"{service}: {output}"
        assert "System check identified no issues (0 silenced)." in output, output


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_the_embedded_defaults_are_not_production_settings(tmp_path: Path) -> None:
    # Without compose's HTTPS settings the checklist complains: the test above can fail.
    given = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(50)}
    done = manage(given, tmp_path, "check", "--deploy", "--fail-level", "WARNING")
    output = done.stdout + done.stderr
    assert done.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in output, output


def test_the_proxy_header_setting_names_the_header_the_proxy_sets() -> None:
    assert _proxy_ssl_header("X-Forwarded-Proto") == ("HTTP_X_FORWARDED_PROTO", "https")
    assert _proxy_ssl_header(" x-forwarded-proto ") == ("HTTP_X_FORWARDED_PROTO", "https")
    assert _proxy_ssl_header("") is None


HTTPS_BEHAVIOUR = """
import json
from django.test import Client
client = Client()
plain = client.get("/accounts/login/")
proxied = client.get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
print("RESULT=" + json.dumps({
    "plain": [plain.status_code, plain.headers.get("Location", "")],
    "proxied": proxied.status_code,
    "hsts": proxied.headers.get("Strict-Transport-Security", ""),
    "csrf_cookie_secure": bool(proxied.cookies["csrftoken"]["secure"]),
}))
"""


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_behind_the_tls_proxy_the_site_redirects_http_and_sends_hsts(tmp_path: Path) -> None:
    given = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "POSTGRES_PASSWORD": "pw"}
    environment = compose_environment("web", given)
    # The page needs no database; SQLite keeps the test free of a server.
    environment["ARENA_DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    environment["DJANGO_ALLOWED_HOSTS"] = "testserver"
    done = manage(environment, tmp_path, "shell", "-c", HTTPS_BEHAVIOUR)
    assert done.returncode == 0, done.stderr
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT=")][-1]
    result = json.loads(line.removeprefix("RESULT="))
    assert result["plain"] == [301, "https://testserver/accounts/login/"]
    assert result["proxied"] == 200
    assert result["hsts"] == "max-age=31536000; includeSubDomains; preload"
    assert result["csrf_cookie_secure"] is True


def test_every_queue_has_a_compose_worker_and_the_pools_match_make_run() -> None:
    """A queue without a consumer never plays what lands there (a tournament, a model seat)."""
    from arena.ops.management.commands.arena_worker import POOLS
    from django.conf import settings

    services = yaml.safe_load(COMPOSE.read_text())["services"]
    pools = []
    for service in services.values():
        command = service.get("command") or []
        if "arena_worker" in command:
            pools.append(
                tuple(command[i + 1] for i, word in enumerate(command) if word == "--role")
            )
    consumed = {role for roles in pools for role in roles}
    assert consumed == set(settings.ARENA_QUEUES), (consumed, set(settings.ARENA_QUEUES))
    assert sorted(pools) == sorted(POOLS.values())
