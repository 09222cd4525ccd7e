"""Upload checks: each bad input is refused with the rule and, where there is one, the line."""

from __future__ import annotations

import pytest
from arena.submissions.checks import check_upload

LIMIT = 256 * 1024
GOOD = 'class Agent:\n    GAME = "simple-card"\n\n    def on_turn(self, s):\n        return {}\n'


def problem(data: bytes) -> tuple[str, int | None, str]:
    checked = check_upload(data, max_bytes=LIMIT)
    assert not checked.ok
    p = checked.problems[0]
    return p.rule, p.line, p.message


def test_a_good_agent_passes_and_names_its_game() -> None:
    checked = check_upload(GOOD.encode(), max_bytes=LIMIT)
    assert checked.ok and checked.game == "simple-card"


@pytest.mark.parametrize("data", [b"", b"   \n\n"])
def test_empty(data: bytes) -> None:
    assert problem(data)[0] == "empty"


def test_ten_megabytes_names_the_limit() -> None:
    rule, _, message = problem(b"#" * (10 * 1024 * 1024))
    assert rule == "size" and "262,144" in message


def test_binary_names_the_line_of_the_nul_byte() -> None:
    assert problem(b"x = 1\ny = 2\n\x00\x01\x02")[:2] == ("utf8", 3)


def test_latin1_is_not_utf8_and_the_line_is_given() -> None:
    rule, line, message = problem(b"# ok\n# caf\xe9\n")
    assert (rule, line) == ("utf8", 2) and "0xe9" in message


def test_syntax_error_names_the_line() -> None:
    rule, line, _ = problem(GOOD.replace("return {}", "return {").encode())
    assert rule == "syntax" and line == 5


def test_no_agent_class() -> None:
    assert problem(b"class Bot:\n    GAME = 'simple-card'\n")[0] == "agent_class"


def test_unknown_game_names_the_line_and_the_known_games() -> None:
    rule, line, message = problem(GOOD.replace("simple-card", "tic-tac-toe").encode())
    assert (rule, line) == ("game", 2) and "simple-card" in message


def test_missing_game() -> None:
    rule, line, _ = problem(b"class Agent:\n    def on_turn(self, s):\n        return {}\n")
    assert (rule, line) == ("game", 1)


def test_no_on_turn() -> None:
    rule, line, _ = problem(b'x = 1\nclass Agent:\n    GAME = "simple-card"\n')
    assert (rule, line) == ("on_turn", 2)


def test_on_turn_inherited_from_a_base_in_the_file_counts() -> None:
    source = (
        b"class Base:\n    def on_turn(self, s):\n        return {}\n\n"
        b'class Agent(Base):\n    GAME = "simple-card"\n'
    )
    assert check_upload(source, max_bytes=LIMIT).ok


@pytest.mark.parametrize(
    "source",
    [
        "x = " + "-" * 50_000 + "1",  # MemoryError in CPython's parser
        "x = " + "not " * 30_000 + "1",  # MemoryError
        "x = " + "+".join(["1"] * 50_000),  # RecursionError building the tree
        "x = " + "+".join(["1"] * 2_000),  # parses, but nests 2,000 deep
        "x = a" + ".b" * 600,  # an attribute chain 600 deep
    ],
    ids=["50k-minus", "30k-not", "50k-sum", "2k-sum", "600-attributes"],
)
def test_sources_that_exhaust_the_parser_are_refused_by_the_depth_rule(source: str) -> None:
    checked = check_upload(source.encode(), max_bytes=LIMIT)
    assert not checked.ok
    assert checked.problems[0].rule == "depth"
    assert "500 levels" in checked.problems[0].message


def test_depth_limit_is_a_parameter_and_deep_but_legal_code_passes() -> None:
    chain = "if x:\n    pass\n" + "".join(f"elif x == {i}:\n    pass\n" for i in range(300))
    source = GOOD + "\n\ndef f(x):\n" + "".join("    " + line + "\n" for line in chain.splitlines())
    assert check_upload(source.encode(), max_bytes=LIMIT).ok
    shallow = check_upload(source.encode(), max_bytes=LIMIT, max_depth=50)
    assert shallow.problems[0].rule == "depth" and shallow.problems[0].line is not None
