"""What spectators see of a bulls and cows match: a round's probes once that round is over."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_passcode_spectators_see_the_probes_once_the_round_is_over() -> None:
    from arena.matches.visibility import public_log

    from tests.games.test_presenters import record_of

    record = record_of("bulls-and-cows")
    log = record["log"]
    shown = public_log("bulls-and-cows", log, owned=set())
    probes = [e for e in shown if e.get("method") == "on_turn" and e.get("payload")]
    asked = [e for e in probes if (e["payload"] or {}).get("phase") == "question"]
    assert asked and all(e.get("action") for e in asked), "probes of ended rounds are shown"
    # While a round runs (its end not yet in the log) its probes stay hidden.
    first_end = next(i for i, e in enumerate(log) if e.get("method") == "on_round_end")
    running = public_log("bulls-and-cows", log[:first_end], owned=set())
    assert all(
        e.get("action") is None
        for e in running
        if e.get("method") == "on_turn" and (e.get("payload") or {}).get("phase") == "question"
    )
