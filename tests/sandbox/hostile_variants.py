"""Hostile agents that are variants of one attack, written out from one template per attack.

Where several attacks in ``hostile/`` would be the same file but for a value or a line (which
reply is forged and when, where the process exits, which resource is exhausted), the attack is a
template here and each variant a row: its name, its docstring and its ``EXPECT``, as a file of
its own would state them.
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

#: In round 1, takes one more of a limited resource (``one_more``) until the sandbox refuses with
#: ``ERROR``, reports how far it got, and plays on; what it took stays taken.
EXHAUSTER = '''"""{doc}"""
EXPECT = {expect!r}
import os
import threading
import time

WHAT = {what!r}
ATTEMPTS = {attempts!r}
kept = []  # what the attack holds on to


def one_more(n):
{one_more}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            made = 0
            try:
                for n in range(ATTEMPTS):
                    one_more(n)
                    made += 1
            except {error} as exc:
                print("BLOCKED", WHAT, "after", made, type(exc).__name__, exc)
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
}

#: Where an exit ends the agent, as the docstring says it, and the forfeit it earns there.
_EXIT_PLACES = {
    "import": ("at import", "init_error", "an init error"),
    "init": ("in __init__", "init_error", "an init error"),
    "turn": ("in on_turn", "crash", "a crash forfeit"),
}


def _exiter(where: str, call: str, detail: str) -> Variant:
    """An agent that ends its process with ``call`` ``where``; the forfeit's detail has
    ``detail``."""
    place, reason, forfeit = _EXIT_PLACES[where]
    return Variant(
        EXITER,
        f"Calls {call} {place}.\n\nExpected: {forfeit} whose detail says {detail!r}.\n",
        {"reason": reason, "detail": detail, "process": {}},
        {"where": where, "call": call},
    )


VARIANTS.update(
    os_exit_at_import=_exiter("import", "os._exit(9)", "code 9"),
    sys_exit_at_import=_exiter("import", "sys.exit(1)", "sys.exit(1)"),
    os_exit_in_init=_exiter("init", "os._exit(0)", "code 0"),
    sys_exit_in_init=_exiter("init", "sys.exit(3)", "sys.exit(3)"),
    os_exit_in_turn=_exiter("turn", "os._exit(4)", "code 4"),
    sys_exit_in_turn=_exiter("turn", "sys.exit(0)", "sys.exit"),
)


def _exhauster(
    doc: str, expect: dict[str, Any], what: str, attempts: int, one_more: str, error: str
) -> Variant:
    """An exhaustion attack: ``one_more`` is the body of ``one_more(n)``, indented by 4."""
    values = {"what": what, "attempts": attempts, "one_more": one_more, "error": error}
    return Variant(EXHAUSTER, doc, expect, values)


VARIANTS.update(
    fork_bomb=_exhauster(
        "Fork bomb: every child forks again, forever.\n\nExpected (docker): the pids limit (64, "
        "a cgroup limit) stops the bomb; fork fails in the agent,\nwhich notices and plays on; "
        "the match ends normally and removing the container ends the bomb.\n\nIt runs alone: "
        "its 63 children sleep through every freeze and wake together at each thaw, and their "
        "CPU\nis the agent's own (docs/architecture.md): on a host already loaded by the other "
        "attacks, a call\nthat needs almost no CPU of its own was once charged past 2 s.\n",
        {"reason": "normal", "alone": True, "stdout_has": ["BLOCKED fork"]},
        "fork",
        10000,
        "    if os.fork() == 0:\n"
        "        while True:  # the child: fork more, never return into the harness\n"
        "            try:\n"
        "                os.fork()\n"
        "            except OSError:\n"
        "                time.sleep(0.05)",
        "OSError",
    ),
    zombie_factory=_exhauster(
        "Forks children that exit at once and never reaps them, until fork fails.\n\nExpected "
        "(docker): zombies count against the pids limit, fork fails, the agent plays on; the\n"
        "container (and its zombies) is removed after the match.\n",
        {"reason": "normal", "stdout_has": ["BLOCKED zombies"]},
        "zombies",
        1000,
        "    if os.fork() == 0:\n        os._exit(0)",
        "OSError",
    ),
    thread_bomb=_exhauster(
        "Thread bomb: starts sleeping threads until it cannot.\n\nExpected (docker): threads "
        "count against the pids limit; starting one fails with RuntimeError,\nthe agent plays "
        "on, the match ends normally.\n",
        {"reason": "normal", "stdout_has": ["BLOCKED thread"]},
        "thread",
        100000,
        "    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()",
        "RuntimeError",
    ),
    fill_tmp=_exhauster(
        "Fills /tmp with 4 MB files until the disk is full.\n\nExpected (docker): the tmpfs "
        "holds 16 MB; the write fails with ENOSPC; the agent plays on.\n",
        {"reason": "normal", "stdout_has": ["BLOCKED full after"]},
        "full",
        100,
        '    with open(f"/tmp/fill-{n}", "wb") as f:\n'
        "        for _ in range(4):\n"
        '            f.write(b"x" * (1024 * 1024))',
        "OSError",
    ),
    open_descriptors=_exhauster(
        "Opens descriptors in a loop and keeps them.\n\nExpected: the nofile limit (256) stops "
        "it with EMFILE; the harness needs no new descriptor to\nanswer, so the match ends "
        "normally. Same in the process backend.\n",
        {"reason": "normal", "stdout_has": ["BLOCKED open"], "process": {}},
        "open",
        100000,
        '    kept.append(os.open("/dev/null", os.O_RDONLY))',
        "OSError",
    ),
)
