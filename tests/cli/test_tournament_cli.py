"""``arena tournament`` against Django's live server: list, enter (refused without a token),
show (no standings for the public before publication; the standings so far for an entrant)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from arena.accounts.models import User
from arena.tournaments.models import Entry

from tests.arena.tournaments.test_tournaments import accepted_agent, make_tournament

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_arena_command_lists_enters_and_shows_a_tournament(
    live_server: Any,
    make_user: Callable[..., User],
    starter_source: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from arena.accounts.services import token_get_or_create

    from arena_cli.main import main

    t = make_tournament(name="Command-line cup", turn_budget_s=1.5, model_move_budget_s=12.0)
    dave = make_user("dave")
    s = accepted_agent(dave, starter_source, name="daves-bot")
    token = token_get_or_create(user=dave).key
    server = ["--server", live_server.url]
    assert main(["tournament", "list", *server]) == 0
    assert "Command-line cup" in capsys.readouterr().out
    assert main(["tournament", "enter", str(t.pk), "--agent", str(s.agent_id), *server]) == 1
    assert "refused (401)" in capsys.readouterr().err  # no token
    args = ["tournament", "enter", str(t.pk), "--agent", str(s.agent_id), "--token", token]
    assert main([*args, *server]) == 0
    assert Entry.objects.filter(tournament=t, owner=dave).exists()
    assert main(["tournament", "show", str(t.pk), *server]) == 0
    out = capsys.readouterr().out
    assert "results are published at" in out
    assert "time control: timed · 1.5 s a turn (models 12 s)" in out
    assert main(["tournament", "show", str(t.pk), "--token", token, *server]) == 0
    out = capsys.readouterr().out
    assert "daves-bot" in out and "dave" in out  # an entrant sees the standings so far
