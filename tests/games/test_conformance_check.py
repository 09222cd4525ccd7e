"""The conformance check must catch what it promises to catch."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from games.core import registry
from games.core.conformance import check_game


@pytest.fixture
def leaky_game(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    import leaky_card

    registry.register_game("leaky_card", leaky_card.ARENA_GAME)
    yield "leaky-card"
    registry.forget_games()
    sys.modules.pop("leaky_card", None)


def test_a_visible_simultaneous_choice_is_caught(leaky_game: str, monkeypatch) -> None:
    # leaky_card has no rules.md of its own: borrow simple-card's so only the leak can fail.
    spec_cls = registry.GameSpec
    monkeypatch.setattr(spec_cls, "rules_markdown", lambda self: "rules")
    monkeypatch.setattr(spec_cls, "starter_source", lambda self: "class Agent: pass")
    with pytest.raises(AssertionError, match="reveals p0's hidden choice"):
        check_game(leaky_game, seeds=range(2))
