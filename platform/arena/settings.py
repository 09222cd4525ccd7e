"""Settings, all read here from the environment (docs/using.md and docs/operations.md say what
they do).

``DJANGO_*`` variables are Django's own, ``ARENA_*`` are the platform's; units are in the names.
The defaults are the embedded set-up of ``make run``: SQLite under ``var/`` and a broker that
needs no server (kombu's filesystem transport) unless ``REDIS_URL`` is set.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import django_stubs_ext
from kombu import Queue

from sandbox.limits import DEFAULT_CHANNEL_DIR, DEFAULT_SANDBOX_IMAGE

# Django's generic classes (ModelAdmin[Match], QuerySet[Match]) subscriptable at run time, as
# the type checker reads them.
django_stubs_ext.monkeypatch()

ROOT_DIR = Path(__file__).resolve().parents[2]
BASE_DIR = ROOT_DIR
VAR_DIR = Path(os.environ.get("ARENA_VAR_DIR", ROOT_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    """A boolean variable: 1/true/yes/on are true."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    """A comma-separated variable."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def database_from_url(url: str) -> dict[str, object]:
    """``sqlite:////abs/path.sqlite3`` or ``postgres://user:pass@host:port/name``."""
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        # sqlite:////abs/path is absolute, sqlite:///rel/path relative (the SQLAlchemy way).
        path = unquote(parsed.path)
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": path[1:] if path.startswith("/") else path or str(VAR_DIR / "arena.sqlite3"),
            # Workers and the web server write at once: wait for the lock instead of failing, and
            # take it at BEGIN so two writers never deadlock upgrading a read lock.
            "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE"},
        }
    if parsed.scheme in {"postgres", "postgresql"}:
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")),
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "CONN_MAX_AGE": 60,
            # A kept connection is checked before its first use in each request or task: after
            # a PostgreSQL restart every kept one is broken, and each process's next task would
            # otherwise fail on it once before a fresh one is opened.
            "CONN_HEALTH_CHECKS": True,
        }
    raise ValueError(f"ARENA_DATABASE_URL: unsupported scheme {parsed.scheme!r} (sqlite, postgres)")


def _secret_key() -> str:
    key = os.environ.get("DJANGO_SECRET_KEY")
    if key:
        return key
    # The embedded set-up keeps a generated key under var/ so sessions survive a restart.
    # Processes starting together (make run's children, parallel test processes) must all read
    # the one key, never a half-written file: the key is written aside, then linked into place,
    # which fails for every process but the first.
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f"secret_key.{os.getpid()}.{secrets.token_hex(4)}")
        draft.write_text(secrets.token_urlsafe(50))
        draft.chmod(0o600)
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text().strip()


DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",
    # The platform's apps in the order they may import each other (docs/architecture.md; the
    # same order as tests/test_layout.py's APP_ORDER, which a test holds them to).
    "arena.accounts",
    "arena.notifications",
    "arena.submissions",
    "arena.llm",
    "arena.matches",
    "arena.ratings",
    "arena.competitions",
    "arena.catalog",
    "arena.ops",
    "arena.workflows",
    "arena.tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Before anything reads the body: too-big bodies and NUL characters are refused up front.
    "arena.middleware.RequestGuardMiddleware",
    # Static files from STATIC_ROOT (collectstatic) under gunicorn, with or without a proxy.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns a locked-out login or token attempt into a 429 saying when to retry.
    "axes.middleware.AxesMiddleware",
]
AUTHENTICATION_BACKENDS = [
    "arena.throttles.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "arena.urls"
WSGI_APPLICATION = "arena.wsgi.application"
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "catalog:home"
LOGOUT_REDIRECT_URL = "catalog:home"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [ROOT_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "arena.notifications.context_processors.unread",
            ]
        },
    }
]

DATABASES = {
    "default": database_from_url(
        os.environ.get("ARENA_DATABASE_URL", f"sqlite:///{VAR_DIR / 'arena.sqlite3'}")
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


def _default_instance_id(database: dict[str, object]) -> str:
    """A stable identity for this deployment, derived from the database it writes to.

    Two deployments that share a Docker engine, a Redis or a PostgreSQL server (a second
    ``make run``, the test suite, staging, CI) never share a database, so they get different
    identities; restarting one keeps its own. See docs/architecture.md, "Instances share engines".
    """
    identity = "|".join(str(database.get(key, "")) for key in ("ENGINE", "NAME", "HOST", "PORT"))
    return hashlib.sha256(identity.encode()).hexdigest()[:10]


#: This deployment's identity: every container, label, container name, queue, key and temporary
#: file the platform makes carries it, and nothing the platform cleans up touches another's.
#: Lowercase letters, digits and dashes (it is part of container names and queue names).
ARENA_INSTANCE_ID = os.environ.get("ARENA_INSTANCE_ID", "") or _default_instance_id(
    DATABASES["default"]
)
if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,31}", ARENA_INSTANCE_ID):
    raise ValueError(
        f"ARENA_INSTANCE_ID={ARENA_INSTANCE_ID!r}: use 1-32 lowercase letters, digits or dashes"
    )

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [ROOT_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", VAR_DIR / "static"))

SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

# --- HTTPS (docs/operations.md, "Serving in production"): all off for the embedded
# http://127.0.0.1 set-up;
# deploy/compose.yaml turns them on for a site served over HTTPS by a TLS proxy in front.
#: Session and CSRF cookies only over HTTPS.
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
#: Redirect every plain-HTTP request to HTTPS.
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", False)
#: Strict-Transport-Security max-age (0: no header), its includeSubDomains and preload flags.
SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_SECURE_HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", False)


def _proxy_ssl_header(name: str) -> tuple[str, str] | None:
    """``X-Forwarded-Proto`` → ``("HTTP_X_FORWARDED_PROTO", "https")``; empty → None.

    Only set it behind a proxy that always sets (or strips) that header itself: otherwise a
    client could claim HTTPS.
    """
    name = name.strip()
    if not name:
        return None
    return "HTTP_" + name.upper().replace("-", "_"), "https"


#: The header the TLS proxy sets to ``https`` (e.g. ``X-Forwarded-Proto``); empty: no proxy.
SECURE_PROXY_SSL_HEADER = _proxy_ssl_header(os.environ.get("DJANGO_SECURE_PROXY_SSL_HEADER", ""))

# --- Celery (docs/architecture.md, "The queues") -----------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
BROKER_DIR = VAR_DIR / "broker"
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # A task a dead worker took (acks_late) goes back to the queue this long after it was taken;
    # it must exceed the longest match, or a live worker's match would be handed out twice.
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "visibility_timeout": int(os.environ.get("ARENA_BROKER_VISIBILITY_TIMEOUT_S", "3600"))
    }
    if REDIS_URL.split("://", 1)[0] == "redis":
        # kombu's Redis transport that can send a matchmaking pass's matches in one round trip
        # (arena.celery_redis). Other schemes keep kombu's own: kombu turns TLS on for
        # ``rediss://`` by the transport's name, and sentinel and socket URLs are other classes.
        CELERY_BROKER_TRANSPORT = "arena.celery_redis:Transport"
else:
    # The host is meaningless to this transport; named, kombu does not warn that it is missing
    # every time a connection is described (a dozen lines in every ``make run`` log).
    CELERY_BROKER_URL = "filesystem://localhost/"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        # Without it kombu writes its exchange tables to ./control, wherever the process runs.
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        # How long the worker waits before looking at the queue folder again (a listing costs
        # little); it bounds how soon a message is taken (kombu's default: 1 s).
        "polling_interval": float(os.environ.get("ARENA_BROKER_POLL_INTERVAL_S", "0.1")),
    }
    # Polled from the worker's event loop, so that Celery runs its per-child pipe pool, where a
    # pool process killed as a job is handed to it leaves no slot taken (celery_filesystem).
    CELERY_BROKER_TRANSPORT = "arena.celery_filesystem:Transport"
#: A worker whose broker went away tries again every this many seconds at most (kombu's own
#: back-off reaches 30 s, so a worker came back up to 30 s after Redis did), and never gives up:
#: the platform waits for its broker however long it is away.
ARENA_BROKER_RECONNECT_MAX_S = float(os.environ.get("ARENA_BROKER_RECONNECT_MAX_S", "2"))
CELERY_WORKER_CONSUMER = "arena.celery_app:Consumer"
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
#: Celery's prefork pool; without an event loop, one that a killed idle child cannot stall
#: (see arena/celery_filesystem.py).
CELERY_WORKER_POOL = "arena.celery_filesystem:TaskPool"


def _cores() -> int:
    """The CPUs this process may run on (its affinity, which a container's cpuset narrows)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: Worker processes (matches played at once). A match with its waiting agent frozen needs about
#: one CPU, so by default one per core: more would only make every agent wait for a CPU.
CELERY_WORKER_CONCURRENCY = int(os.environ.get("ARENA_WORKER_CONCURRENCY", "0")) or _cores()
#: The queues, one per role (deploy/README.md, "Queues and worker pools"), each named
#: ``<ARENA_INSTANCE_ID>.<role>`` so that deployments sharing one Redis never take each other's
#: tasks: ``matches`` (ranked), ``training`` (training matches), ``validation`` (uploads'
#: self-play checks), ``tournament`` (tournament games), ``llm`` (matches with a model seat)
#: and ``maintenance`` (matchmaking,
#: sweeper, reaper, log upkeep; the default queue, where every task without a route goes).
#: ``arena.matches.queues`` maps match kinds to roles.
ARENA_QUEUE_ROLES = ("matches", "training", "validation", "tournament", "llm", "maintenance")
#: The roles a worker started by ``manage.py arena_worker`` consumes without ``--role``
#: (default: every role, so one worker node runs everything).
ARENA_WORKER_ROLES = env_list("ARENA_WORKER_QUEUES", ",".join(ARENA_QUEUE_ROLES))


def instance_settings(instance_id: str) -> dict[str, Any]:
    """Every setting named after the instance: its queues, Celery's routes to them, and the
    queues a worker consumes (``ARENA_WORKER_QUEUES``). The test suite applies it again when it
    makes each run an instance of its own (tests/conftest.py)."""
    queues = {role: f"{instance_id}.{role}" for role in ARENA_QUEUE_ROLES}
    return {
        "ARENA_INSTANCE_ID": instance_id,
        "ARENA_QUEUES": queues,
        "CELERY_TASK_DEFAULT_QUEUE": queues["maintenance"],
        "CELERY_TASK_ROUTES": {
            "arena.workflows.tasks.match_run_task": {"queue": queues["matches"]}
        },
        #: A ``celery worker`` started without ``-Q`` consumes all of them.
        "CELERY_TASK_QUEUES": [Queue(name, routing_key=name) for name in queues.values()],
        "ARENA_WORKER_QUEUES": [queues.get(role, role) for role in ARENA_WORKER_ROLES],
    }


_instance = instance_settings(ARENA_INSTANCE_ID)
ARENA_QUEUES: dict[str, str] = _instance["ARENA_QUEUES"]
CELERY_TASK_DEFAULT_QUEUE: str = _instance["CELERY_TASK_DEFAULT_QUEUE"]
CELERY_TASK_ROUTES: dict[str, dict[str, str]] = _instance["CELERY_TASK_ROUTES"]
CELERY_TASK_QUEUES: list[Queue] = _instance["CELERY_TASK_QUEUES"]
#: The queues a worker started by ``manage.py arena_worker`` consumes without ``--role``.
ARENA_WORKER_QUEUES: list[str] = _instance["ARENA_WORKER_QUEUES"]
#: Worker processes of the pools ``make run`` (and deploy/compose.yaml) starts besides the
#: ranked pool (``CELERY_WORKER_CONCURRENCY``): training and validation have slots of their own,
#: so they never wait behind ranked (house-v-house) games; maintenance has one process.
ARENA_INTERACTIVE_CONCURRENCY = int(os.environ.get("ARENA_INTERACTIVE_CONCURRENCY", "0")) or max(
    1, CELERY_WORKER_CONCURRENCY // 2
)
ARENA_MAINTENANCE_CONCURRENCY = int(os.environ.get("ARENA_MAINTENANCE_CONCURRENCY", "1"))
#: Threads of the model pool (matches with a language-model seat; each mostly waits on its
#: provider, and each model's own caps limit its calls in flight).
ARENA_LLM_CONCURRENCY = int(os.environ.get("ARENA_LLM_CONCURRENCY", "8"))
CELERY_TASK_ALWAYS_EAGER = env_bool("ARENA_CELERY_EAGER", False)
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
ARENA_MATCHMAKING_INTERVAL_S = float(os.environ.get("ARENA_MATCHMAKING_INTERVAL_S", "5"))
CELERY_BEAT_SCHEDULE = {
    "matchmaking": {
        "task": "arena.workflows.tasks.matchmaking_task",
        "schedule": timedelta(seconds=ARENA_MATCHMAKING_INTERVAL_S),
        # A pass that waited behind busy workers for long is dropped (a later one does its work)
        # instead of a backlog of passes that keep pairing long after beat stopped. Not shorter
        # than 10 s: expiry compares beat's clock with a worker's (keep hosts on NTP).
        "options": {"expires": max(10.0, 2 * ARENA_MATCHMAKING_INTERVAL_S)},
    },
    # Packs logs a dead worker left as rows and applies the ranked retention settings below.
    "match-logs": {
        "task": "arena.workflows.tasks.match_logs_maintain_task",
        "schedule": timedelta(hours=1),
    },
    # Every match ends: overdue ones are re-queued or errored, lost messages sent again.
    "sweep-matches": {
        "task": "arena.workflows.tasks.matches_sweep_task",
        "schedule": timedelta(seconds=float(os.environ.get("ARENA_SWEEP_INTERVAL_S", "30"))),
    },
    # Tournaments: freeze, pair, release games within their share, publish on time.
    "tournaments": {
        "task": "arena.tournaments.tasks.tournaments_tick_task",
        "schedule": timedelta(seconds=float(os.environ.get("ARENA_TOURNAMENT_TICK_S", "10"))),
        "options": {"expires": 60.0},
    },
    # Each ladder's ratings and intervals: a Bradley-Terry refit of its results (the
    # matches since move them by Elo until the next). Every pass of matchmaking pairs on them.
    "ladder-refits": {
        "task": "arena.workflows.tasks.ladders_refit_task",
        "schedule": timedelta(seconds=float(os.environ.get("ARENA_LADDER_REFIT_S", "120"))),
        "options": {"expires": 120.0},
    },
    # The boards across games (one Bradley-Terry fit over every ladder), read by their pages.
    "unified-boards": {
        "task": "arena.workflows.tasks.unified_refit_task",
        "schedule": timedelta(seconds=float(os.environ.get("ARENA_UNIFIED_REFIT_S", "600"))),
        "options": {"expires": 300.0},
    },
    # Sandbox containers die with their match (or their worker).
    "reap-sandboxes": {
        "task": "arena.workflows.tasks.sandboxes_reap_task",
        "schedule": timedelta(seconds=float(os.environ.get("ARENA_SWEEP_INTERVAL_S", "30"))),
    },
}

# --- The platform --------------------------------------------------------------------------------
#: auto (docker when an engine answers, else process), docker, or process.
ARENA_SANDBOX_BACKEND = os.environ.get("ARENA_SANDBOX_BACKEND", "auto")
#: The process backend does not isolate: refused unless DEBUG is on or this is set explicitly.
ARENA_ALLOW_PROCESS_SANDBOX = env_bool("ARENA_ALLOW_PROCESS_SANDBOX", DEBUG)
#: The image uploaded agents run in (``make image`` builds the default) and the container
#: runtime: empty for the engine's default (runc), ``runsc`` for gVisor where it is installed.
ARENA_SANDBOX_IMAGE = os.environ.get("ARENA_SANDBOX_IMAGE", "") or DEFAULT_SANDBOX_IMAGE
ARENA_SANDBOX_RUNTIME = os.environ.get("ARENA_SANDBOX_RUNTIME", "") or None
#: How a waiting agent is frozen: ``auto`` writes its container's cgroup freezer directly where
#: the worker can reach it (about 0.1 ms), else ``docker pause``; ``pause`` always uses the daemon.
ARENA_SANDBOX_FREEZE = os.environ.get("ARENA_SANDBOX_FREEZE", "auto")
#: Where the worker sees the host's cgroups. A worker in a container needs the host's
#: /sys/fs/cgroup mounted read-write and this pointing there (deploy/); else `docker pause` runs.
ARENA_SANDBOX_CGROUP_ROOT = os.environ.get("ARENA_SANDBOX_CGROUP_ROOT", "/sys/fs/cgroup")
#: Docker sandboxes each worker process keeps started ahead of demand (two per match it plays);
#: 0 turns the warm pool off. Idle ones are removed when the worker process stops.
ARENA_SANDBOX_POOL_SIZE = int(os.environ.get("ARENA_SANDBOX_POOL_SIZE", "2"))
#: A docker sandbox serves several matches of one active submission on a worker process (a
#: fresh agent process each match, everything the last one left killed and wiped; discarded
#: after any failure): the engine's work of creating and removing containers is most of a short
#: match's CPU. Off: one container per agent per match, Docker's init as pid 1.
ARENA_SANDBOX_REUSE = env_bool("ARENA_SANDBOX_REUSE", True)
#: A reused container is removed after this many matches ...
ARENA_SANDBOX_REUSE_MATCHES = int(os.environ.get("ARENA_SANDBOX_REUSE_MATCHES", "100"))
#: ... or this many minutes after it started ...
ARENA_SANDBOX_REUSE_MINUTES = float(os.environ.get("ARENA_SANDBOX_REUSE_MINUTES", "30"))
#: ... or after this long idle; and a worker process keeps at most this many idle ones.
ARENA_SANDBOX_REUSE_IDLE_S = float(os.environ.get("ARENA_SANDBOX_REUSE_IDLE_S", "300"))
ARENA_SANDBOX_REUSE_MAX_IDLE = int(os.environ.get("ARENA_SANDBOX_REUSE_MAX_IDLE", "16"))
#: How the worker talks to a reused (supervised) sandbox: ``socket``, a unix socket in a
#: directory mounted into that container alone, so a call never crosses the Docker engine;
#: ``attach``, the container's stdin and stdout through the engine (docs/sandbox.md).
ARENA_SANDBOX_CHANNEL = os.environ.get("ARENA_SANDBOX_CHANNEL", "socket")
#: Where the socket channel's per-container directories are made: a path the worker and the
#: Docker engine both see as the same directory (a worker in a container mounts it at the same
#: path, deploy/compose.yaml).
ARENA_SANDBOX_CHANNEL_DIR = os.environ.get("ARENA_SANDBOX_CHANNEL_DIR", DEFAULT_CHANNEL_DIR)
ARENA_UPLOAD_MAX_BYTES = int(os.environ.get("ARENA_UPLOAD_MAX_BYTES", str(256 * 1024)))
ARENA_TRAINING_PER_HOUR = int(os.environ.get("ARENA_TRAINING_PER_HOUR", "30"))
ARENA_ACTIVE_PER_GAME = int(os.environ.get("ARENA_ACTIVE_PER_GAME", "3"))
#: House bots play each other (rated, when no user entry waits) up to about this many games a
#: day each, so a fresh ladder has ratings and replays without burning workers forever.
ARENA_HOUSE_GAMES_PER_DAY = float(os.environ.get("ARENA_HOUSE_GAMES_PER_DAY", "48"))
#: Two entries whose last match was against each other meet again only when nobody else is
#: left for them, and only this long after that match (a lone user and the house bots on a
#: small site keep playing; two agents do not play each other back to back).
ARENA_REMATCH_COOLDOWN_S = float(os.environ.get("ARENA_REMATCH_COOLDOWN_S", "120"))
#: At most this many ranked matches of one ladder wait in the queue; a pass tops it up (0: no
#: bound). Size it to what the workers play between two passes, a few times over.
ARENA_MATCHMAKING_QUEUE_MAX = int(os.environ.get("ARENA_MATCHMAKING_QUEUE_MAX", "500"))
#: Ladders ranked by mean payoff rank an entry only once it has this many rated matches.
#: (games.core.ranking.DEFAULT_MIN_MATCHES, as `arena simulate` uses).
ARENA_RANKING_MIN_MATCHES = int(os.environ.get("ARENA_RANKING_MIN_MATCHES", "20"))
ARENA_MATCH_MAX_ATTEMPTS = int(os.environ.get("ARENA_MATCH_MAX_ATTEMPTS", "3"))
#: A running match this long past its game's hard time limit is swept (re-queued or errored).
ARENA_MATCH_DEADLINE_GRACE_S = float(os.environ.get("ARENA_MATCH_DEADLINE_GRACE_S", "60"))
#: A queued match whose task was sent this long ago is sent again (its message was lost).
ARENA_MATCH_QUEUED_MAX_S = float(os.environ.get("ARENA_MATCH_QUEUED_MAX_S", "900"))
#: A running match no live worker reports as active is re-queued once it started this long ago.
ARENA_MATCH_ORPHAN_GRACE_S = float(os.environ.get("ARENA_MATCH_ORPHAN_GRACE_S", "20"))
#: A queued match whose message is in no queue and with no worker this long after it was sent
#: is sent again (the sweeper reads Redis's queues, or the filesystem broker's folder and what
#: its live workers hold; where neither can be read only ``ARENA_MATCH_QUEUED_MAX_S`` applies).
ARENA_MATCH_LOST_GRACE_S = float(os.environ.get("ARENA_MATCH_LOST_GRACE_S", "30"))
#: A match task that cannot reach the database waits this long for it, in place, before its
#: message goes back to the broker (then it is delivered again after ``ARENA_DB_OUTAGE_RETRY_S``).
ARENA_DB_OUTAGE_WAIT_S = float(os.environ.get("ARENA_DB_OUTAGE_WAIT_S", "20"))
ARENA_DB_OUTAGE_RETRY_S = float(os.environ.get("ARENA_DB_OUTAGE_RETRY_S", "2"))
#: How long the sweeper waits for the workers to say what they run.
ARENA_SWEEP_ASK_TIMEOUT_S = float(os.environ.get("ARENA_SWEEP_ASK_TIMEOUT_S", "2"))
ARENA_SWEEP_INTERVAL_S = float(os.environ.get("ARENA_SWEEP_INTERVAL_S", "30"))
ARENA_TURN_TIMEOUT_S = float(os.environ.get("ARENA_TURN_TIMEOUT_S", "2.0"))
#: Ranked matches' prints: 0 (default) captures none; N > 0 keeps them N days in the stored log.
ARENA_RANKED_PRINTS_RETENTION_DAYS = int(os.environ.get("ARENA_RANKED_PRINTS_RETENTION_DAYS", "0"))
#: Ranked matches' per-call logs: 0 (default) keeps them; N > 0 deletes them after N days (the
#: result, rounds and ratings stay).
ARENA_RANKED_LOG_RETENTION_DAYS = int(os.environ.get("ARENA_RANKED_LOG_RETENTION_DAYS", "0"))
ARENA_HOUSE_USERNAME = "house"

# The log says what an operator acts on (docs/operations.md, "Logs"): warnings, errors, and a
# line when a process starts or stops. What happens every few seconds on a quiet site (a task
# received and done, beat sending it) is DEBUG; a refused request (4xx) is not logged at all:
# the visitor was told why. ARENA_LOG_LEVEL=DEBUG shows all of it again.
#: The Python of the local model server's venv (``make llm-server``), for ``make run``'s judge.
ARENA_LLM_SERVER_PYTHON = os.environ.get("ARENA_LLM_SERVER_PYTHON", "")
ARENA_LOG_LEVEL = os.environ.get("ARENA_LOG_LEVEL", "INFO").upper()
#: Set by ``make run`` for its children once it has said that it runs as root: each Celery
#: worker pool would otherwise print Celery's eight-line superuser warning again.
ARENA_ROOT_WARNED = env_bool("ARENA_ROOT_WARNED", False)
#: Log each task received and done (and beat's sends) at INFO again, e.g. for a test that
#: counts them; on by default at DEBUG.
ARENA_LOG_TASKS = env_bool("ARENA_LOG_TASKS", ARENA_LOG_LEVEL == "DEBUG")
_ROUTINE_LEVEL = ARENA_LOG_LEVEL if ARENA_LOG_TASKS else "WARNING"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "[%(asctime)s: %(levelname)s/%(name)s] %(message)s"}},
    "filters": {"refused": {"()": "arena.log_filters.RefusedRequests"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": ARENA_LOG_LEVEL},
    "loggers": {
        # Each 4xx answer (a 403 with the traceback of its PermissionDenied).
        "django.request": {"filters": [] if ARENA_LOG_LEVEL == "DEBUG" else ["refused"]},
        "django.security.csrf": {"filters": [] if ARENA_LOG_LEVEL == "DEBUG" else ["refused"]},
        # "Task ... received", "Task ... succeeded in 0.01s", "Scheduler: Sending due task":
        # one line each per task, every few seconds. A task's failure is ERROR: still shown.
        "celery.app.trace": {"level": _ROUTINE_LEVEL},
        "celery.worker.strategy": {"level": _ROUTINE_LEVEL},
        "celery.beat": {"level": _ROUTINE_LEVEL},
    },
}
#: gunicorn's worker processes under ``make run`` (``arena_run --web-workers``); a server's
#: gunicorn reads the same variable in deploy/gunicorn.conf.py, with a default of its own.
ARENA_RUN_WEB_WORKERS = int(os.environ.get("GUNICORN_WORKERS", "2"))

# --- Bad input and throttles (docs/using.md, "Limits") ------------------------------------------
#: Any request body above this is refused (413) before it is read or spooled to disk. Above the
#: upload limit on purpose, so a too-big agent still hears the upload's own size rule.
ARENA_REQUEST_MAX_BYTES = int(os.environ.get("ARENA_REQUEST_MAX_BYTES", str(12 * 1024 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = ARENA_REQUEST_MAX_BYTES
#: Uploaded files stay in memory up to the request cap: nothing is spooled to disk.
FILE_UPLOAD_MAX_MEMORY_SIZE = ARENA_REQUEST_MAX_BYTES
DATA_UPLOAD_MAX_NUMBER_FIELDS = 200
DATA_UPLOAD_MAX_NUMBER_FILES = 5
#: JSON bodies nested deeper than this are refused before they are parsed.
ARENA_JSON_MAX_DEPTH = int(os.environ.get("ARENA_JSON_MAX_DEPTH", "32"))
#: An upload's syntax tree may nest this deep (expressions, blocks); deeper ones are refused.
ARENA_UPLOAD_MAX_AST_DEPTH = int(os.environ.get("ARENA_UPLOAD_MAX_AST_DEPTH", "500"))
#: Uploads (new submissions) per user in any sliding hour.
ARENA_UPLOADS_PER_HOUR = int(os.environ.get("ARENA_UPLOADS_PER_HOUR", "20"))
#: Self-play validations a user may have queued or running at once; more uploads wait.
ARENA_VALIDATIONS_IN_FLIGHT = int(os.environ.get("ARENA_VALIDATIONS_IN_FLIGHT", "2"))
#: The Retry-After given when the validations in flight are at their cap.
ARENA_VALIDATION_RETRY_AFTER_S = int(os.environ.get("ARENA_VALIDATION_RETRY_AFTER_S", "30"))
#: Failed password attempts (login form and POST /api/token) from one address that lock it out
#: of ARENA_LOGIN_LOCKOUT_S seconds (django-axes, in the database: shared by every web worker).
ARENA_LOGIN_FAILURES = int(os.environ.get("ARENA_LOGIN_FAILURES", "10"))
ARENA_LOGIN_LOCKOUT_S = int(os.environ.get("ARENA_LOGIN_LOCKOUT_S", "900"))
AXES_ENABLED = env_bool("ARENA_LOGIN_THROTTLE", True)
AXES_FAILURE_LIMIT = ARENA_LOGIN_FAILURES
AXES_COOLOFF_TIME = timedelta(seconds=ARENA_LOGIN_LOCKOUT_S)
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "arena.throttles.login_lockout_response"
AXES_USERNAME_CALLABLE = "arena.throttles.login_attempt_username"
AXES_VERBOSE = False

# --- Challenges, history, notifications (docs/using.md, "Challenges", "Notifications") ----------
#: Challenges a user may send in any sliding hour (over it: 429 with Retry-After).
ARENA_CHALLENGES_PER_HOUR = int(os.environ.get("ARENA_CHALLENGES_PER_HOUR", "20"))
#: Challenges of one user sent to the workers at once; the rest wait their turn, so one user's
#: burst shares the training queue with everyone else's training instead of filling it.
ARENA_CHALLENGES_IN_FLIGHT = int(os.environ.get("ARENA_CHALLENGES_IN_FLIGHT", "2"))
#: Ranked matches forfeited in a row (crash, timeout, illegal moves) that take an agent off the
#: ladder; 0 turns auto-pause off.
ARENA_AUTOPAUSE_FORFEITS = int(os.environ.get("ARENA_AUTOPAUSE_FORFEITS", "10"))
#: This site's address, for links in emails and webhook payloads.
ARENA_SITE_URL = os.environ.get("ARENA_SITE_URL", "http://127.0.0.1:8000")
#: How long a webhook post may take before it is retried later.
ARENA_WEBHOOK_TIMEOUT_S = float(os.environ.get("ARENA_WEBHOOK_TIMEOUT_S", "5"))
#: Notifications by email: on when the site sends email (ARENA_EMAIL_HOST, below).
ARENA_NOTIFY_EMAIL = env_bool("ARENA_NOTIFY_EMAIL", bool(os.environ.get("ARENA_EMAIL_HOST")))

# --- Tournaments (docs/tournaments.md) ------------------------------------------------------------
#: The tournaments' share of the workers: at most this many tournament games queued or running
#: at once, over all tournaments; the rest of the worker slots stay with the ladder.
ARENA_TOURNAMENT_IN_FLIGHT = int(os.environ.get("ARENA_TOURNAMENT_IN_FLIGHT", "2"))
#: How often the tournament scheduler runs (freeze, pair, release, publish).
ARENA_TOURNAMENT_TICK_S = float(os.environ.get("ARENA_TOURNAMENT_TICK_S", "10"))
#: A game whose match ends in a platform error is played again this many times, then voided.
ARENA_TOURNAMENT_GAME_RERUNS = int(os.environ.get("ARENA_TOURNAMENT_GAME_RERUNS", "2"))

# --- Email: password resets and address verification (docs/accounts.md) --------------------
#: The SMTP server this site sends email through. Empty (the default): the site sends no email,
#: password resets by email are unavailable, and uploads need no verified address.
ARENA_EMAIL_HOST = os.environ.get("ARENA_EMAIL_HOST", "")
ARENA_EMAIL_ENABLED = bool(ARENA_EMAIL_HOST)
EMAIL_BACKEND = (
    "django.core.mail.backends.smtp.EmailBackend"
    if ARENA_EMAIL_ENABLED
    else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_HOST = ARENA_EMAIL_HOST or "localhost"
EMAIL_PORT = int(os.environ.get("ARENA_EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("ARENA_EMAIL_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("ARENA_EMAIL_PASSWORD", "")
EMAIL_USE_TLS = env_bool("ARENA_EMAIL_USE_TLS", True)
EMAIL_TIMEOUT = int(os.environ.get("ARENA_EMAIL_TIMEOUT_S", "10"))
DEFAULT_FROM_EMAIL = os.environ.get("ARENA_EMAIL_FROM", "Agent Arena <arena@localhost>")
#: Uploads are accepted only from a verified address. On by default when the site sends email,
#: and always off when it does not (nobody could ever verify).
ARENA_EMAIL_VERIFICATION = ARENA_EMAIL_ENABLED and env_bool("ARENA_EMAIL_VERIFICATION", True)
#: How long an emailed link (verification) stays valid; password-reset links use
#: PASSWORD_RESET_TIMEOUT (Django's, three days by default).
ARENA_EMAIL_LINK_MAX_AGE_S = int(os.environ.get("ARENA_EMAIL_LINK_MAX_AGE_S", str(3 * 24 * 3600)))

# --- Operating it (docs/operations.md) ---------------------------------------------------------
#: Where this instance's processes on this host write their Prometheus metrics (one file per
#: process). Each instance needs its own: /metrics adds up every file in the folder. Falls back to
#: prometheus-client's own PROMETHEUS_MULTIPROC_DIR, then to var/metrics.
ARENA_METRICS_DIR = Path(
    os.environ.get("ARENA_METRICS_DIR")
    or os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    or VAR_DIR / "metrics"
)
#: /metrics answers a request carrying ``Authorization: Bearer <this>``; empty: no token works.
ARENA_METRICS_TOKEN = os.environ.get("ARENA_METRICS_TOKEN", "")
#: /metrics also answers these client addresses without a token (never a request that came
#: through a proxy). Default: the loopback, unless a TLS proxy is configured in front (then none:
#: every request would seem to come from the proxy).
ARENA_METRICS_ALLOWED_IPS = env_list(
    "ARENA_METRICS_ALLOWED_IPS", "" if SECURE_PROXY_SSL_HEADER else "127.0.0.1,::1"
)
#: A worker serves its host's metrics on this port too (0: off), for hosts without the web.
ARENA_METRICS_PORT = int(os.environ.get("ARENA_METRICS_PORT", "0"))
#: How often each worker writes its heartbeat (queues it consumes, matches it runs).
ARENA_WORKER_HEARTBEAT_S = float(os.environ.get("ARENA_WORKER_HEARTBEAT_S", "5"))
#: /readyz wants, for every queue, a worker whose heartbeat is younger than this.
ARENA_READY_WORKER_MAX_AGE_S = float(os.environ.get("ARENA_READY_WORKER_MAX_AGE_S", "30"))
#: Each probe of /readyz and /metrics (database, broker) gives up after this long.
ARENA_PROBE_TIMEOUT_S = float(os.environ.get("ARENA_PROBE_TIMEOUT_S", "1"))
# Probes answer over plain http inside the private network (compose's healthchecks, Prometheus).
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
#: A lost database or broker inside a view answers a plain 503 (arena.ops.middleware).
MIDDLEWARE.append("arena.ops.middleware.OutageMiddleware")
#: PostgreSQL connections give up after this long (a database that does not answer fails fast).
ARENA_DB_CONNECT_TIMEOUT_S = int(os.environ.get("ARENA_DB_CONNECT_TIMEOUT_S", "5"))
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = ARENA_DB_CONNECT_TIMEOUT_S  # type: ignore[index]

# --- Language-model seats (docs/llm-seats.md) -----------------------------------------------------
#: Timed matches: a model seat's latency budget per move, its re-asks included (seed 003: 5 s).
ARENA_LLM_MOVE_BUDGET_S = float(os.environ.get("ARENA_LLM_MOVE_BUDGET_S", "5"))
#: Untimed matches: no move clock, but no single model call runs longer than this.
ARENA_LLM_UNTIMED_CALL_CAP_S = float(os.environ.get("ARENA_LLM_UNTIMED_CALL_CAP_S", "300"))
#: A model's HTTP answer is cut at this size (a longer one is a refused, unreadable answer).
ARENA_LLM_MAX_RESPONSE_BYTES = int(os.environ.get("ARENA_LLM_MAX_RESPONSE_BYTES", "1048576"))
#: Tries of one call when the provider fails (429, 5xx, refused connection), and the first
#: back-off (doubling, at most 8 s); after the last the match is re-queued as a platform error.
ARENA_LLM_PROVIDER_ATTEMPTS = int(os.environ.get("ARENA_LLM_PROVIDER_ATTEMPTS", "4"))
ARENA_LLM_BACKOFF_S = float(os.environ.get("ARENA_LLM_BACKOFF_S", "0.5"))
#: The longest a seat waits for its model's concurrency or rate slot (never charged to a move).
ARENA_LLM_SLOT_WAIT_MAX_S = float(os.environ.get("ARENA_LLM_SLOT_WAIT_MAX_S", "120"))
#: Cost caps in USD: per match (all its model seats), per entrant per UTC day, per calendar
#: month for the whole site. A match is not scheduled without the budget; an entrant over its
#: daily cap is paused with the reason on its page.
ARENA_LLM_MATCH_CAP_USD = float(os.environ.get("ARENA_LLM_MATCH_CAP_USD", "1"))
#: The judge of each judged game (docs/games.md, "Judged games"): the name of a registered model
#: (``arena.llm.models.LanguageModel``) for every judged game, and per-game overrides as
#: ``game=model`` or ``game=model:cap_usd`` separated by commas
#: (``ARENA_JUDGES="passcode=gpt-4o-mini:0.2,nil-recruitment=smollm2-local"``). A judged game
#: with no judge is listed as unavailable, takes no ranked uploads and schedules nothing.
ARENA_JUDGE_MODEL = os.environ.get("ARENA_JUDGE_MODEL", "")
ARENA_JUDGES = os.environ.get("ARENA_JUDGES", "")
#: What a judge may spend in one match (USD) unless ``ARENA_JUDGES`` names a cap for its game;
#: reached, the match is a platform error (re-queued, then unrated).
ARENA_JUDGE_MATCH_CAP_USD = float(os.environ.get("ARENA_JUDGE_MATCH_CAP_USD", "0.5"))
#: The judge's answer length (tokens) and its per-call time limit (seconds).
ARENA_JUDGE_MAX_TOKENS = int(os.environ.get("ARENA_JUDGE_MAX_TOKENS", "200"))
ARENA_JUDGE_CALL_TIMEOUT_S = float(os.environ.get("ARENA_JUDGE_CALL_TIMEOUT_S", "120"))
ARENA_LLM_ENTRANT_DAILY_CAP_USD = float(os.environ.get("ARENA_LLM_ENTRANT_DAILY_CAP_USD", "5"))
ARENA_LLM_MONTHLY_BUDGET_USD = float(os.environ.get("ARENA_LLM_MONTHLY_BUDGET_USD", "100"))
#: The longest system-prompt addition an entrant may give (characters).
ARENA_LLM_SYSTEM_PROMPT_MAX_CHARS = int(os.environ.get("ARENA_LLM_SYSTEM_PROMPT_MAX_CHARS", "2000"))

# --- Code agents' model calls through the sandbox's gateway (docs/sandbox.md, docs/llm-seats.md)
#: Model time a code agent has within one of its calls (its own 2 s clock stops meanwhile), and
#: per game where a game needs more (JSON: {"game-id": seconds}); within a whole match.
ARENA_AGENT_MODEL_TURN_S = float(os.environ.get("ARENA_AGENT_MODEL_TURN_S", "10"))
ARENA_AGENT_MODEL_TURN_S_BY_GAME: dict[str, float] = {
    str(k): float(v)
    for k, v in json.loads(os.environ.get("ARENA_AGENT_MODEL_TURN_S_BY_GAME", "{}")).items()
}
ARENA_AGENT_MODEL_MATCH_S = float(os.environ.get("ARENA_AGENT_MODEL_MATCH_S", "300"))
#: Model calls within one of the agent's calls; more get HTTP 429 at once.
ARENA_AGENT_MODEL_CALLS_PER_TURN = int(os.environ.get("ARENA_AGENT_MODEL_CALLS_PER_TURN", "32"))
#: Tries of one agent's call when the provider fails, before the agent gets HTTP 503.
ARENA_AGENT_MODEL_ATTEMPTS = int(os.environ.get("ARENA_AGENT_MODEL_ATTEMPTS", "2"))
#: What one user's agents may spend on model calls per UTC day and per calendar month (USD),
#: whatever budgets the user sets on them.
ARENA_AGENT_MODEL_USER_DAY_CAP_USD = float(
    os.environ.get("ARENA_AGENT_MODEL_USER_DAY_CAP_USD", "5")
)
ARENA_AGENT_MODEL_USER_MONTH_CAP_USD = float(
    os.environ.get("ARENA_AGENT_MODEL_USER_MONTH_CAP_USD", "50")
)
