"""A live web server for the web-surface tests: gunicorn (as in production) on a throw-away
PostgreSQL, no worker (queued matches stay queued, so validations stay "in flight")."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import requests

from devtools.parts import (
    free_port,
    manage,
    platform_env,
    start_process,
    stop_processes,
    wait_for_port,
    wait_http,
)
from tests.e2e.conftest import Served
from tests.e2e.servers import postgres


@dataclass
class Site(Served):
    """A running web server (no worker) and its log."""

    log: Path

    def shell(self, code: str) -> str:
        """Run Python in ``manage.py shell`` against this site's database."""
        return manage(self.env, "shell", "-v", "0", "-c", code)

    def user(self, name: str, password: str | None = None) -> str:
        """Create a user; return their API token."""
        password = password or f"pw-{name}-123"
        return self.shell(
            "from arena.accounts.models import User; "
            "from arena.accounts.services import token_get_or_create; "
            f"u = User.objects.create_user({name!r}, password={password!r}); "
            "print(token_get_or_create(user=u).key)"
        ).strip()

    def api(self, token: str | None = None) -> requests.Session:
        """A session that sends the token (if any) on every request."""
        session = requests.Session()
        if token:
            session.headers["Authorization"] = f"Token {token}"
        return session

    def browser(self, username: str | None = None) -> requests.Session:
        """A session signed in through the login form (CSRF and all), or anonymous."""
        session = requests.Session()
        session.get(f"{self.url}/accounts/login/", timeout=30)
        if username:
            response = session.post(
                f"{self.url}/accounts/login/",
                data={
                    "username": username,
                    "password": f"pw-{username}-123",
                    "csrfmiddlewaretoken": session.cookies["csrftoken"],
                },
                headers={"Referer": f"{self.url}/accounts/login/"},
                timeout=30,
            )
            assert response.status_code == 200 and "sessionid" in session.cookies, response.text
        return session


@contextmanager
def _database(kind: str, var: Path) -> Iterator[str]:
    if kind == "sqlite":  # the embedded default of `make run`
        yield f"sqlite:///{var / 'arena.sqlite3'}"
        return
    with postgres() as db_url:
        yield db_url


@contextmanager
def live_site(database: str = "postgres", **settings: str) -> Iterator[Site]:
    """gunicorn (2 workers x 4 threads) on PostgreSQL (or SQLite) with ``settings`` as
    environment."""
    var = Path(tempfile.mkdtemp(prefix="arena-web-"))
    with _database(database, var) as db_url:
        env = platform_env(var, db_url, ARENA_SANDBOX_BACKEND="process", **settings)
        manage(env, "migrate", "--no-input")
        port = free_port()
        log_path = var / "web.log"
        with log_path.open("wb") as log:
            web = start_process(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "arena.wsgi:application",
                    "--bind",
                    f"127.0.0.1:{port}",
                    "--workers",
                    "2",
                    "--threads",
                    "4",
                    "--graceful-timeout",
                    "5",
                ],
                env,
                log,
            )
            try:
                # As long as gunicorn works at starting: minutes on a loaded host.
                assert wait_for_port(port, process=web), log_path.read_text()
                wait_http(f"http://127.0.0.1:{port}/api/games", process=web)
                yield Site(url=f"http://127.0.0.1:{port}", env=env, log=log_path)
            finally:
                stop_processes(web)
    shutil.rmtree(var, ignore_errors=True)
