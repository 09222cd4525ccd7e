"""Hostile agents that are variants of one attack, written out from one template per attack.

Where several attacks in ``hostile/`` would be the same file but for a value or two (which reply
is forged, in which round, where the process exits), the attack is a template here and each
variant a row: its name, its docstring and its ``EXPECT``, as a file of its own would state them.
``test_hostile`` runs every variant exactly like a file of ``hostile/``: the source below is what
the sandbox receives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Takes over the harness's reply channel (the harness object is the caller's ``self``): in
#: ``FORGED_ROUND`` (every round when ``None``) it sleeps ``SLEEP_S``, writes a reply of its own
#: and, with ``SWALLOW``, swallows the harness's true reply that follows.
FORGER = '''"""{doc}"""
EXPECT = {expect!r}
import json
import sys
import time

FORGED_ROUND = {forged_round!r}
SLEEP_S = {sleep_s!r}
SWALLOW = {swallow!r}
#: A forged reply line with %d for the request id, or None: the JSON reply below.
RAW_REPLY = {raw_reply}
#: The JSON reply's fields beside its id, ok and result (the action it plays).
FIELDS = {fields!r}


def forged_reply(request_id, action):
    if RAW_REPLY is not None:
        return RAW_REPLY % request_id
    return json.dumps({{"id": request_id, "ok": True, "result": action, **FIELDS}}).encode()


class _SwallowOne:
    def __init__(self, harness, real):
        self.harness, self.real = harness, real

    def write(self, data):
        self.harness.replies = self.real
        return len(data)

    def flush(self):
        pass


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        harness = sys._getframe(1).f_locals["self"]
        request = sys._getframe(1).f_locals["request"]
        action = {{"type": "play_card", "card": max(state["hand"])}}
        if FORGED_ROUND in (None, state["round"]):
            if SLEEP_S:
                time.sleep(SLEEP_S)
            harness.replies.write(forged_reply(request["id"], action) + b"\\n")
            harness.replies.flush()
            if SWALLOW:
                harness.replies = _SwallowOne(harness, harness.replies)
        return action
'''

#: Ends its own process with ``CALL`` at import, in ``__init__`` or in ``on_turn`` (``WHERE``).
EXITER = '''"""{doc}"""
EXPECT = {expect!r}
import os
import sys

WHERE = {where!r}


def leave():
    {call}


if WHERE == "import":
    leave()


class Agent:
    GAME = "simple-card"

    def __init__(self):
        if WHERE == "init":
            leave()

    def on_turn(self, state):
        if WHERE == "turn":
            leave()
        return {{"type": "play_card", "card": max(state["hand"])}}
'''

#: What a protocol violation forfeits with.
_BROKE_PROTOCOL = {"reason": "crash", "detail": "broke the protocol", "process": {}}
#: A raw reply line whose result is ``{result}``, as bytes source text with %d for the id.
_RAW = 'b\'{{"id": %d, "ok": true, "result": {result}, "stdout": "", "elapsed_ms": 1}}\''


@dataclass(frozen=True)
class Variant:
    """One hostile agent written from ``template`` with ``values``."""

    template: str
    doc: str
    expect: dict[str, Any]
    values: dict[str, Any]

    @property
    def source(self) -> str:
        """The agent's source text, as the sandbox receives it."""
        return self.template.format(doc=self.doc, expect=self.expect, **self.values)


def _forger(
    *,
    raw_reply: str = "None",
    fields: dict[str, Any] | None = None,
    forged_round: int | None = None,
    sleep_s: float = 0,
    swallow: bool = True,
) -> dict[str, Any]:
    return {
        "raw_reply": raw_reply,
        "fields": fields or {},
        "forged_round": forged_round,
        "sleep_s": sleep_s,
        "swallow": swallow,
    }


VARIANTS: dict[str, Variant] = {
    "reply_forged_infinity": Variant(
        FORGER,
        "Takes over the harness's reply channel and sends a reply holding 1e999 (JSON allows "
        "it; it parses as infinity),\nswallowing the harness's true reply.\n\n"
        "Expected: the first such reply is a protocol violation: crash forfeit, never a "
        "platform error.\n",
        _BROKE_PROTOCOL,
        _forger(raw_reply=_RAW.format(result='{"type": "play_card", "card": 1e999}')),
    ),
    "reply_forged_surrogate": Variant(
        FORGER,
        "Takes over the harness's reply channel and sends a reply holding a lone surrogate, "
        "\\\\ud800 (valid JSON, not valid Unicode),\nswallowing the harness's true reply.\n\n"
        "Expected: the first such reply is a protocol violation: crash forfeit, never a "
        "platform error.\n",
        _BROKE_PROTOCOL,
        _forger(raw_reply=_RAW.format(result='{"type": "play_card", "card": "\\\\ud800"}')),
    ),
    "reply_forged_deep": Variant(
        FORGER,
        "Takes over the harness's reply channel and sends a reply holding a result nested "
        "2000 lists deep,\nswallowing the harness's true reply.\n\n"
        "Expected: the first such reply is a protocol violation: crash forfeit, never a "
        "platform error.\n",
        _BROKE_PROTOCOL,
        _forger(raw_reply=_RAW.format(result='\' + b"[" * 2000 + b"]" * 2000 + b\'')),
    ),
    "forged_window_negative": Variant(
        FORGER,
        "Takes over the harness's reply channel and sends a reply whose window is -1000 ms (to "
        "earn\ntime back), then swallows the harness's true reply.\n\n"
        "Expected: a window that is not a non-negative finite number is a protocol violation: "
        "crash.\n",
        _BROKE_PROTOCOL,
        _forger(fields={"stdout": "", "elapsed_ms": -1000, "cpu_ms": 0}),
    ),
    "forged_window_in_grace": Variant(
        FORGER,
        "Takes over the harness's reply channel: in round 2 it sleeps 2.5 s (over the 2 s "
        "budget, inside\nthe 1 s grace), writes a reply of its own claiming the turn took 0.1 "
        "ms, and swallows the\nharness's true reply.\n\n"
        "Expected: this is the most a lying harness can gain, the grace: the forged window is "
        "charged, the\ncontroller's own wall time (over 2 s) is logged beside it; the match "
        "ends normally.\n",
        {
            "reason": "normal",
            "stdout_has": ["FORGED"],
            "wall_over_charged_ms": 2000,
            "process": {},
        },
        _forger(
            fields={"stdout": "FORGED\n", "elapsed_ms": 0.1, "cpu_ms": 0.1},
            forged_round=2,
            sleep_s=2.5,
        ),
    ),
    "forged_window": Variant(
        FORGER,
        "Takes over the harness's reply channel and, after sleeping 4 s, forges a reply that "
        "claims the\nturn took 0.1 ms.\n\n"
        "Expected: the controller stops waiting at its backstop (the 2 s budget plus 1 s of "
        "grace) and\nthe seat forfeits by timeout: a forged window never buys more than the "
        "grace.\n",
        {"reason": "timeout", "detail": "did not answer within 2 s", "process": {}},
        _forger(
            fields={"stdout": "FORGED\n", "elapsed_ms": 0.1, "cpu_ms": 0.1},
            forged_round=2,
            sleep_s=4,
            swallow=False,
        ),
    ),
    "os_exit_at_import": Variant(
        EXITER,
        "Calls os._exit(9) at import.\n\n"
        "Expected: an init error: the process ended while loading, exit code 9.\n",
        {"reason": "init_error", "detail": "code 9", "process": {}},
        {"where": "import", "call": "os._exit(9)"},
    ),
    "sys_exit_at_import": Variant(
        EXITER,
        "Calls sys.exit(1) at import.\n\nExpected: an init error that names sys.exit.\n",
        {"reason": "init_error", "detail": "sys.exit(1)", "process": {}},
        {"where": "import", "call": "sys.exit(1)"},
    ),
    "os_exit_in_init": Variant(
        EXITER,
        "Calls os._exit(0) in __init__.\n\n"
        "Expected: an init error: the process ended while loading, exit code 0.\n",
        {"reason": "init_error", "detail": "code 0", "process": {}},
        {"where": "init", "call": "os._exit(0)"},
    ),
    "sys_exit_in_init": Variant(
        EXITER,
        "Calls sys.exit(3) in __init__.\n\nExpected: an init error that names sys.exit.\n",
        {"reason": "init_error", "detail": "sys.exit(3)", "process": {}},
        {"where": "init", "call": "sys.exit(3)"},
    ),
    "os_exit_in_turn": Variant(
        EXITER,
        "Calls os._exit(4) in on_turn.\n\nExpected: a crash forfeit: the process ended with "
        "code 4.\n",
        {"reason": "crash", "detail": "code 4", "process": {}},
        {"where": "turn", "call": "os._exit(4)"},
    ),
    "sys_exit_in_turn": Variant(
        EXITER,
        "Calls sys.exit() in on_turn.\n\nExpected: a crash forfeit that names sys.exit.\n",
        {"reason": "crash", "detail": "sys.exit", "process": {}},
        {"where": "turn", "call": "sys.exit(0)"},
    ),
}
