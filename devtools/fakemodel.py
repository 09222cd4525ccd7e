"""A loopback OpenAI-compatible server for what a real model cannot be made to do on demand.

Each request takes the next scripted behaviour (``script``), then ``default`` once the script is
used up. Behaviours: ``("answer", text)``, ``("legal",)`` (the first legal value the request's
response schema allows, preferring check/call, with a short text in each required free-text
field: a judge's schema is answered too), ``("status", code)``, ``("slow", seconds, text)``,
``("endless",)`` (a body that never ends), ``("huge", nbytes)``, ``("garbage",)`` (a body that
is not JSON), ``("reply", function)`` (the text ``function(body)`` returns for the request's
JSON body: a test's model that reads what it is asked). Requests are kept in ``requests``
(headers and JSON body) for assertions.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Behaviour = tuple[Any, ...]


def legal_answer(body: dict[str, Any]) -> str:
    """The first legal action the narrowed schema allows (check/call first)."""
    fmt = body.get("response_format") or {}
    schema = fmt.get("json_schema", {}).get("schema", {}) or fmt.get("schema", {})
    if not schema:  # free text: chess's prompt lists the legal moves
        prompt = body["messages"][-1]["content"]
        for line in prompt.splitlines():
            if line.startswith("Legal moves (UCI): "):
                return json.dumps({"type": "move", "move": line.split()[3]})
    props = schema.get("properties", {})
    answer: dict[str, Any] = {}
    if "type" in props or not props:  # an action (a judge's answer has no type)
        kind_spec = props.get("type", {})
        types = kind_spec.get("enum") or ([kind_spec["const"]] if "const" in kind_spec else [])
        types = types or ["move"]
        answer["type"] = next((t for t in ("check", "call") if t in types), types[0])
    required = schema.get("required", [])
    for key, spec in props.items():
        if key == "type" or not isinstance(spec, dict):
            continue
        if spec.get("enum"):
            answer[key] = spec["enum"][0]
        elif key in required and spec.get("type") == "string" and "pattern" not in spec:
            # A required free text (a pitch, a judge's reason or question): a short one.
            answer[key] = f"the fake model's {key}"[: int(spec.get("maxLength", 80))]
    return json.dumps(answer)


class FakeModel:
    def __init__(self, default: Behaviour = ("legal",)) -> None:
        self.script: deque[Behaviour] = deque()
        self.default = default
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.stop_event = threading.Event()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake.lock:
                    fake.requests.append(
                        {"headers": {k.lower(): v for k, v in self.headers.items()}, "body": body}
                    )
                    behaviour = fake.script.popleft() if fake.script else fake.default
                fake.serve(self, behaviour, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeModel:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_event.set()
        self.server.shutdown()
        self.server.server_close()

    def completion(self, text: str) -> bytes:
        return json.dumps(
            {
                "id": f"fake-{len(self.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": "fake",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
            }
        ).encode()

    def serve(self, h: BaseHTTPRequestHandler, behaviour: Behaviour, body: dict[str, Any]) -> None:
        kind = behaviour[0]
        try:
            if kind == "status":
                payload = json.dumps({"error": {"message": "scripted failure"}}).encode()
                self._send(h, behaviour[1], payload)
            elif kind == "answer":
                self._send(h, 200, self.completion(behaviour[1]))
            elif kind == "reply":
                self._send(h, 200, self.completion(behaviour[1](body)))
            elif kind == "legal":
                self._send(h, 200, self.completion(legal_answer(body)))
            elif kind == "slow":
                self.stop_event.wait(behaviour[1])
                self._send(h, 200, self.completion(behaviour[2]))
            elif kind == "garbage":
                self._send(h, 200, b"<html>not a chat completion</html>")
            elif kind == "huge":
                size = behaviour[1]
                h.send_response(200)
                h.send_header("Content-Type", "application/json")
                h.send_header("Content-Length", str(size))
                h.end_headers()
                chunk = b" " * 65536
                sent = 0
                while sent < size:
                    h.wfile.write(chunk[: size - sent])
                    sent += len(chunk)
            elif kind == "endless":
                h.send_response(200)
                h.send_header("Content-Type", "application/json")
                h.send_header("Transfer-Encoding", "chunked")
                h.end_headers()
                while not self.stop_event.is_set():
                    h.wfile.write(b"400\r\n" + b" " * 1024 + b"\r\n")
                    h.wfile.flush()
                    time.sleep(0.01)
        except (BrokenPipeError, ConnectionResetError):
            pass

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, payload: bytes) -> None:
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)
