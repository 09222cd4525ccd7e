"""A print over the cap keeps its start and its end (where the last lines before a failure
are), with the marker between them, within the cap; a character split by the cut is dropped."""

from __future__ import annotations

from games.core.agent import (
    STDOUT_CAP_PER_CALL_BYTES,
    STDOUT_CAP_PER_MATCH_BYTES,
    STDOUT_CUT_MARK,
    cap_stdout,
)


def test_a_long_print_keeps_its_start_and_its_end() -> None:
    text = "FIRST\n" + "é" * 20_000 + "\nLAST LINE\n"
    kept, used = cap_stdout(text, 0)
    head, mark, tail = kept.partition(STDOUT_CUT_MARK)
    assert mark and head.startswith("FIRST\n") and tail.endswith("\nLAST LINE\n")
    assert len(kept.encode()) <= STDOUT_CAP_PER_CALL_BYTES and used == STDOUT_CAP_PER_CALL_BYTES
    assert "\ufffd" not in kept  # no half character at either cut


def test_a_short_print_is_kept_whole_and_the_match_cap_still_applies() -> None:
    assert cap_stdout("hello\n", 0) == ("hello\n", 6)
    kept, used = cap_stdout("x" * 100, STDOUT_CAP_PER_MATCH_BYTES)
    assert kept == STDOUT_CUT_MARK and used == STDOUT_CAP_PER_MATCH_BYTES
