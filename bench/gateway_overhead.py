"""The model gateway's overhead per call: JSON on stdout, each figure beside its target.

An agent in the sandbox calls the gateway's endpoint (a raw HTTP request on its loopback, so the
figure is the gateway's and not the SDK's) ``--calls`` times in one turn; the model is the
loopback fake (``devtools/fakemodel.py``) behind ``llm_seat.gateway.ClientBackend``, the path the
worker and ``arena play`` take. For each call the overhead is what the agent waited for its
answer minus the model's own latency as the client measured it (``CallRecord.latency_s``): the
HTTP server in the sandbox, the JSON line to the controller and back, the policy checks, the
freeze and thaw of the agent around the model's time.

* ``overhead_p50_ms`` (target ≤ 5 ms) and ``overhead_p99_ms`` (target ≤ 20 ms).

Run: ``.venv/bin/python bench/gateway_overhead.py [--backend docker|process] [--calls N]``.
The frozen-call figure of agents that make no model call is ``bench/sandbox_turns.py``'s
``whole_call_frozen_p50_ms`` (the gateway adds nothing to an agent without one).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1])]

from devtools.fakemodel import FakeModel  # noqa: E402
from llm_seat import Endpoint  # noqa: E402
from llm_seat.gateway import ClientBackend, GatewayModel  # noqa: E402
from llm_seat.handle import CallRecord, NoHooks  # noqa: E402
from sandbox import (  # noqa: E402
    ModelAllowance,
    ModelGateway,
    SandboxLimits,
    create_handle,
    detect_backend,  # noqa: E402
)

AGENT = """
import http.client
import os
import time

HOST, PORT = os.environ["OPENAI_BASE_URL"].split("//")[1].split("/")[0].split(":")
BODY = b'{"model": "tiny", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 8}'
HEADERS = {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        waits = []
        for _ in range(state["calls"]):
            began = time.perf_counter()
            conn = http.client.HTTPConnection(HOST, int(PORT), timeout=10)
            conn.request("POST", "/v1/chat/completions", BODY, HEADERS)
            response = conn.getresponse()
            response.read()
            conn.close()
            waits.append((time.perf_counter() - began) * 1000)
            assert response.status == 200, response.status
        return {"waits_ms": waits}
"""


class LatencyHooks(NoHooks):
    """No slot, no cap: keeps each call's record (its model latency) for the subtraction."""

    def __init__(self) -> None:
        self.records: list[CallRecord] = []

    def record(self, call: CallRecord) -> None:
        """Keep the call."""
        self.records.append(call)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("docker", "process"), default=None)
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--freeze", choices=("on", "off"), default="on")
    args = parser.parse_args()
    backend = args.backend or detect_backend()
    hooks = LatencyHooks()
    overheads: list[float] = []
    with FakeModel(default=("answer", "ok")) as fake:
        endpoint = Endpoint(name="tiny", base_url=fake.base_url, model="fake")
        gateway = ModelGateway(
            ClientBackend([GatewayModel(name="tiny", endpoint=endpoint, hooks=hooks)]),
            allowance=ModelAllowance(
                per_turn_s=600, per_match_s=600, calls_per_turn=args.calls + 10
            ),
        )
        handle = create_handle(
            AGENT,
            name="bench",
            backend=backend,
            limits=SandboxLimits(freeze_idle=args.freeze == "on"),
            gateway=gateway,
        )
        try:
            handle.start(game_id="simple-card", timeout_s=60)
            # A few calls first: the agent's imports and the first connections are not the figure.
            handle.call("on_turn", {"round": 0, "calls": 5}, timeout_s=60)
            hooks.records.clear()
            result = handle.call("on_turn", {"round": 1, "calls": args.calls}, timeout_s=600)
        finally:
            handle.close()
    waits = result.result["waits_ms"]
    latencies = [r.latency_s * 1000 for r in hooks.records]
    overheads = [w - lat for w, lat in zip(waits, latencies, strict=True)]
    p50, p99 = statistics.median(overheads), percentile(overheads, 0.99)
    print(
        json.dumps(
            {
                "backend": backend,
                "freeze": args.freeze,
                "calls": len(overheads),
                "load_average": os.getloadavg(),
                "overhead_p50_ms": {"value": round(p50, 3), "target": 5, "met": p50 <= 5},
                "overhead_p99_ms": {"value": round(p99, 3), "target": 20, "met": p99 <= 20},
                "details": {
                    "agent_wait_p50_ms": round(statistics.median(waits), 3),
                    "model_latency_p50_ms": round(statistics.median(latencies), 3),
                    "overhead_max_ms": round(max(overheads), 3),
                },
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
