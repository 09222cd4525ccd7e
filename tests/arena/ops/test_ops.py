"""Health probes, the metrics endpoint and the operator's page, in-process (the e2e module
tests/e2e/test_ops_live.py runs them against a real worker, Redis and PostgreSQL)."""

from __future__ import annotations

import re
import socket
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from arena.celery_app import worker_queues
from arena.matches.models import Match
from arena.ops.models import MaintenanceRun, WorkerHeartbeat
from arena.ops.services import heartbeat_record, maintenance_record
from django.test import Client
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

TOKEN = "metrics-token-for-tests-0123456789"


@pytest.fixture(autouse=True)
def _ops_settings(settings: Any) -> None:
    settings.ARENA_METRICS_TOKEN = TOKEN
    settings.ARENA_METRICS_ALLOWED_IPS = ["10.9.8.7"]
    settings.ARENA_PROBE_TIMEOUT_S = 1.0
    settings.ARENA_READY_WORKER_MAX_AGE_S = 30


def _beat(hostname: str = "celery@node-1", *, queues: list[str] | None = None, **kw: Any) -> None:
    heartbeat_record(
        hostname=hostname,
        queues=worker_queues() if queues is None else queues,
        running_matches=kw.pop("running", []),
        concurrency=2,
        pid=1234,
        started=timezone.now(),
        **kw,
    )


def test_healthz_answers_without_touching_the_database(
    client: Client, django_assert_num_queries: Any
) -> None:
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_is_unavailable_without_a_live_worker_and_says_only_that(client: Client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable"}  # no internals for the public


def test_readyz_is_ready_when_every_queue_has_a_fresh_heartbeat(client: Client) -> None:
    _beat()
    response = client.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json() == {"status": "ready"}


def test_readyz_wants_every_queue_covered(client: Client, admin_client: Client) -> None:
    _beat(queues=worker_queues()[:1])
    assert client.get("/readyz").status_code == 503
    detailed = admin_client.get("/readyz").json()
    assert detailed["checks"] == {"database": "ok", "broker": "ok", "workers": "failing"}


def test_a_stale_or_stopping_worker_does_not_count(client: Client) -> None:
    _beat("celery@old")
    WorkerHeartbeat.objects.update(last_seen=timezone.now() - timedelta(seconds=31))
    assert client.get("/readyz").status_code == 503
    _beat("celery@leaving", stopping=True)
    assert client.get("/readyz").status_code == 503
    _beat("celery@fresh")
    assert client.get("/readyz").status_code == 200


def test_readyz_details_for_the_metrics_token(client: Client) -> None:
    response = client.get("/readyz", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.json()["checks"]["workers"] == "failing"


@pytest.fixture
def silent_redis() -> Iterator[str]:
    """A port that accepts connections and never answers: a hung Redis."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"


def test_a_hung_broker_makes_readyz_answer_unavailable_not_hang(
    settings: Any, admin_client: Client, silent_redis: str
) -> None:
    settings.CELERY_BROKER_URL = silent_redis
    settings.ARENA_PROBE_TIMEOUT_S = 0.3
    _beat()
    answers: list[Any] = []
    asker = threading.Thread(target=lambda: answers.append(admin_client.get("/readyz")))
    asker.start()
    asker.join(timeout=30)  # a hanging probe would still be waiting here
    assert answers, "readyz did not answer within 30 s with a hung broker"
    assert answers[0].status_code == 503
    assert answers[0].json()["checks"]["broker"] == "failing"


def test_metrics_refuse_other_addresses_without_the_token(client: Client) -> None:
    assert client.get("/metrics").status_code == 403
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 403
    assert client.get("/metrics", REMOTE_ADDR="10.9.8.7").status_code == 200
    # Through a proxy the peer's address says nothing about the client: only the token works.
    proxied = client.get("/metrics", REMOTE_ADDR="10.9.8.7", HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert proxied.status_code == 403


def _sample(text: str, name: str, **labels: str) -> float:
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all(f'{k}="{v}"' in line for k, v in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


def _metrics(client: Client) -> str:
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    return response.content.decode()


def test_a_played_match_moves_the_match_counters(
    client: Client, make_user: Any, starter_source: str, committed: Any
) -> None:
    from arena.workflows.matches import training_request
    from arena.workflows.submissions import submission_upload

    before = _metrics(client)
    user = make_user("meter")
    submission = committed(
        lambda: submission_upload(owner=user, source=starter_source, filename="a.py")
    )
    committed(
        lambda: training_request(user=user, submission_id=submission.pk, opponent="house:random")
    )
    after = _metrics(client)
    for name in ("arena_matches_started_total", "arena_matches_finished_total"):
        moved = _sample(after, name, kind="training", game="simple-card") - _sample(
            before, name, kind="training", game="simple-card"
        )
        assert moved >= 1, name
    assert _sample(after, "arena_match_duration_seconds_count", kind="training") > _sample(
        before, "arena_match_duration_seconds_count", kind="training"
    )
    assert _sample(after, "arena_call_charged_seconds_count", game="simple-card") > _sample(
        before, "arena_call_charged_seconds_count", game="simple-card"
    )
    assert Match.objects.filter(kind="training", status="finished").exists()
    assert 'arena_queue_depth{queue="matches"}' in after
    assert 'arena_part_up{part="database"} 1.0' in after


def test_the_operator_page_is_staff_only_and_shows_the_platform(
    client: Client, admin_client: Client
) -> None:
    _beat("celery@node-7", running=[4242])
    maintenance_record(task="sweeper", counts={"requeued": 2, "errored": 0})
    maintenance_record(task="reaper", counts={"removed": 0})  # a quiet pass is not stored
    assert MaintenanceRun.objects.count() == 1
    assert client.get("/ops/").status_code == 302  # to the sign-in page
    page = admin_client.get("/ops/").content.decode()
    assert "celery@node-7" in page
    assert "#4242" in page
    assert "requeued 2" in page
    for queue in worker_queues():
        assert f"<td>{queue}</td>" in page
    assert "No model seats yet." in page


def test_the_dashboard_only_queries_metrics_the_platform_exports() -> None:
    import json
    from pathlib import Path

    from arena import metrics
    from arena.ops.collectors import PlatformCollector
    from prometheus_client.registry import Collector

    exported: set[str] = set()
    for value in vars(metrics).values():
        if isinstance(value, Collector):
            for family in value.describe():
                for sample_suffix in ("", "_total", "_bucket", "_sum", "_count", "_created"):
                    exported.add(family.name + sample_suffix)
    exported |= {family.name for family in PlatformCollector().collect()}

    dashboard = json.loads(
        (Path(__file__).resolve().parents[3] / "deploy" / "grafana" / "arena.json").read_text()
    )
    panels = [p for p in dashboard["panels"] if p.get("type") != "row"]
    assert len(panels) >= 10
    queried: set[str] = set()
    for panel in panels:
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            names = set(re.findall(r"\barena_[a-z_]+\b", target["expr"]))
            assert names, f"{panel['title']}: no platform metric in {target['expr']!r}"
            queried |= names
    assert sorted(queried - exported) == []


def test_metric_files_of_dead_processes_are_pruned(tmp_path: Any) -> None:
    import os

    from arena.metrics import prune_dead_processes

    dead_pid = 999_999_999  # above any kernel's pid_max: no such process
    (tmp_path / f"counter_{dead_pid}.db").write_bytes(b"")
    (tmp_path / f"counter_{os.getpid()}.db").write_bytes(b"")
    assert prune_dead_processes(str(tmp_path)) == 1
    assert [p.name for p in tmp_path.iterdir()] == [f"counter_{os.getpid()}.db"]
