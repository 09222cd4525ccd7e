"""A tournament's time control: staff choose its move clock (a code seat's budget a turn, a model
seat's a move), bounded and defaulting to the platform's; its games are played, sized and
swept by it; and an agent too slow for it loses on time, for real."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from arena.accounts.models import User
from arena.errors import Refused
from arena.matches.clock import MatchClock, match_clock
from arena.matches.models import Match
from arena.matches.services import match_create
from arena.matches.status import match_deadline, match_time_limits_s
from arena.submissions.models import Submission
from arena.tournaments import scheduler, services
from arena.tournaments.models import Tournament
from django.test import Client
from django.utils import timezone

from games.core import MatchSettings
from tests.arena.tournaments.test_tournaments import (
    GAME,
    accepted_agent,
    finish_released,
    freeze_now,
    make_tournament,
    new_tournament_form,
)
from tests.conftest import require_part

pytestmark = pytest.mark.django_db


def staff_client(make_user: Callable[..., User]) -> Client:
    staff = make_user("staff")
    staff.is_staff = True
    staff.save()
    client = Client()
    client.force_login(staff)
    return client


def tournament_with(
    make_user: Callable[..., User], sources: list[str], prefix: str = "", **clock: Any
) -> Tournament:
    """A two-entrant round robin (one game) of these agents, frozen now."""
    t = make_tournament(games_per_pairing=1, duplicate_seats=False, **clock)
    for i, source in enumerate(sources):
        user = make_user(f"{prefix}entrant{i}")
        s = accepted_agent(user, source, name=f"bot{i}")
        services.entry_create(user=user, tournament_id=t.pk, agent_id=s.agent_id)
    freeze_now(t)
    return t


def tournament_matches(
    make_user: Callable[..., User], sources: list[str], prefix: str = "", **clock: Any
) -> tuple[Tournament, list[Match]]:
    """``tournament_with``'s matches, released by the scheduler (never played)."""
    t = tournament_with(make_user, sources, prefix, **clock)
    scheduler.tournaments_tick()
    return t, list(Match.objects.filter(tournament_game__pairing__tournament=t))


# --- Staff choose it, within bounds -----------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("turn_budget_s", "0.05", "a code seat&#x27;s turn budget must be 0.1 to 30 seconds"),
        ("turn_budget_s", "30.5", "a code seat&#x27;s turn budget must be 0.1 to 30 seconds"),
        ("model_move_budget_s", "0.5", "a model seat&#x27;s move budget must be 1 to 120 seconds"),
        ("model_move_budget_s", "121", "a model seat&#x27;s move budget must be 1 to 120 seconds"),
        ("turn_budget_s", "nan", "Enter a number."),
        ("turn_budget_s", "inf", "Enter a number."),
    ],
)
def test_the_staff_page_refuses_a_budget_out_of_range_saying_the_range(
    make_user: Callable[..., User], field: str, value: str, message: str
) -> None:
    client = staff_client(make_user)
    response = client.post("/tournaments/new/", new_tournament_form("Fast cup", **{field: value}))
    assert response.status_code == 200  # the form again, with the error
    assert message in response.content.decode()
    assert not Tournament.objects.filter(name="Fast cup").exists()


def test_staff_set_a_clock_on_the_page_and_everyone_reads_it(
    make_user: Callable[..., User], settings: Any
) -> None:
    settings.ARENA_TURN_TIMEOUT_S = 2.0
    settings.ARENA_LLM_MOVE_BUDGET_S = 5.0
    client = staff_client(make_user)
    page = client.get("/tournaments/new/").content.decode()
    assert "0.1 to 30 s; empty: the platform's 2 s" in page
    assert "untimed tournament keeps no clock" in page
    response = client.post(
        "/tournaments/new/",
        new_tournament_form("Blitz", turn_budget_s="1", model_move_budget_s="10"),
    )
    t = Tournament.objects.get(name="Blitz")
    assert response.status_code == 302
    assert (t.turn_budget_s, t.model_move_budget_s) == (1.0, 10.0)
    detail = Client().get(f"/tournaments/{t.pk}/").content.decode()
    assert "timed · 1 s a turn (models 10 s)" in detail
    api = Client().get(f"/api/tournaments/{t.pk}").json()
    assert (api["timed"], api["turn_budget_s"], api["model_move_budget_s"]) == (True, 1.0, 10.0)
    listed = Client().get("/api/tournaments").json()
    assert [(r["turn_budget_s"], r["model_move_budget_s"]) for r in listed] == [(1.0, 10.0)]

    # Left empty: the platform's budgets, shown as such.
    client.post("/tournaments/new/", new_tournament_form("Classic"))
    classic = Tournament.objects.get(name="Classic")
    assert (classic.turn_budget_s, classic.model_move_budget_s) == (None, None)
    detail = Client().get(f"/tournaments/{classic.pk}/").content.decode()
    assert "timed · 2 s a turn (models 5 s)" in detail
    api = Client().get(f"/api/tournaments/{classic.pk}").json()
    assert (api["turn_budget_s"], api["model_move_budget_s"]) == (2.0, 5.0)

    # Untimed: no clock, whatever the budgets say.
    form = new_tournament_form("Slow", turn_budget_s="3")
    del form["timed"]
    client.post("/tournaments/new/", form)
    slow = Tournament.objects.get(name="Slow")
    assert (
        '<span id="time-control">untimed</span>'
        in Client().get(f"/tournaments/{slow.pk}/").content.decode()
    )


def test_the_service_and_the_admin_refuse_a_budget_out_of_range() -> None:
    from arena.tournaments.admin import TournamentAdminForm

    with pytest.raises(Refused, match="turn budget must be 0.1 to 30 seconds"):
        make_tournament(turn_budget_s=0.0)
    with pytest.raises(Refused, match="move budget must be 1 to 120 seconds"):
        make_tournament(model_move_budget_s=float("nan"))
    with pytest.raises(Refused, match="move budget must be 1 to 120 seconds"):
        make_tournament(model_move_budget_s=float("inf"))
    t = make_tournament(turn_budget_s=0.1, model_move_budget_s=120.0)  # the bounds themselves
    assert (t.turn_budget_s, t.model_move_budget_s) == (0.1, 120.0)

    data = {**new_tournament_form("Admin cup", turn_budget_s="31"), "config": "{}"}
    form = TournamentAdminForm(data)
    assert not form.is_valid()
    assert form.errors["turn_budget_s"] == [
        "a code seat's turn budget must be 0.1 to 30 seconds (empty: the platform's)"
    ]
    data["turn_budget_s"] = "12.5"
    form = TournamentAdminForm(data)
    assert form.is_valid(), form.errors
    assert form.save().turn_budget_s == 12.5


def test_a_rerun_keeps_the_clock(make_user: Callable[..., User], starter_source: str) -> None:
    t, _ = tournament_matches(
        make_user, [starter_source, starter_source], turn_budget_s=0.7, model_move_budget_s=9.0
    )
    finish_released(random.Random(0))
    scheduler.tournaments_tick()
    copy = services.tournament_rerun(tournament_id=t.pk, created_by=None)
    assert (copy.timed, copy.turn_budget_s, copy.model_move_budget_s) == (True, 0.7, 9.0)


# --- Its games run by it ----------------------------------------------------------------------


def test_a_matchs_clock_is_its_tournaments_else_the_platforms(
    make_user: Callable[..., User],
    starter_source: str,
    settings: Any,
    django_assert_num_queries: Any,
) -> None:
    settings.ARENA_TURN_TIMEOUT_S = 2.0
    settings.ARENA_LLM_MOVE_BUDGET_S = 5.0
    _, (fast,) = tournament_matches(
        make_user, [starter_source] * 2, turn_budget_s=0.5, model_move_budget_s=30.0
    )
    assert match_clock(fast) == MatchClock(turn_budget_s=0.5, model_move_budget_s=30.0)

    # Only the code budget chosen: the model's is the platform's.
    _, (half,) = tournament_matches(make_user, [starter_source] * 2, "b-", turn_budget_s=4.0)
    assert match_clock(half) == MatchClock(turn_budget_s=4.0, model_move_budget_s=5.0)
    Tournament.objects.filter(pk=half.tournament_game.pairing.tournament_id).update(
        turn_budget_s=None
    )
    assert match_clock(half) == MatchClock(turn_budget_s=2.0, model_move_budget_s=5.0)

    # Any other match: the platform's, read without a query.
    ranked = match_create(
        kind=Match.Kind.RANKED, submissions=list(Submission.objects.order_by("pk")[:2])
    )
    with django_assert_num_queries(0):
        assert match_clock(ranked) == MatchClock(turn_budget_s=2.0, model_move_budget_s=5.0)


def test_match_play_gives_the_referee_and_the_model_seat_the_tournaments_budgets(
    make_user: Callable[..., User],
    starter_source: str,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from arena.llm.models import LanguageModel
    from arena.llm.services import model_entrant_create
    from arena.matches import play

    from llm_seat import LlmSeat

    settings.ARENA_TURN_TIMEOUT_S = 2.0
    settings.ARENA_LLM_MOVE_BUDGET_S = 5.0
    LanguageModel.objects.create(
        name="fake",
        display_name="Fake model",
        base_url="http://127.0.0.1:9/v1",
        model_id="fake-1",
        api_key_env="",
    )
    t = make_tournament(
        games_per_pairing=1, duplicate_seats=False, turn_budget_s=0.4, model_move_budget_s=42.0
    )
    coder, modeller = make_user("coder"), make_user("modeller")
    code = accepted_agent(coder, starter_source)
    model = model_entrant_create(owner=modeller, model_name="fake", game=GAME, name="llm")
    Submission.objects.filter(pk=model.pk).update(status=Submission.Status.ACCEPTED)
    for user, s in ((coder, code), (modeller, model)):
        services.entry_create(user=user, tournament_id=t.pk, agent_id=s.agent_id)
    freeze_now(t)
    scheduler.tournaments_tick()
    match = Match.objects.get(tournament_game__pairing__tournament=t)

    seen: dict[str, Any] = {}

    def referee(game: str, handles: list[Any], *, settings: MatchSettings, **_: Any) -> Any:
        seen.update(handles=handles, settings=settings)
        return SimpleNamespace(platform_error=None)

    monkeypatch.setattr(play, "play_match", referee)
    play.match_play(match=match)
    assert seen["settings"].timed and seen["settings"].turn_timeout_s == 0.4
    (seat,) = [h for h in seen["handles"] if isinstance(h, LlmSeat)]
    assert seat.policy.move_budget_s == 42.0
    assert seat.seat_budget_s(timed=True) == 42.0

    # A match outside any tournament plays under the platform's budgets.
    training = match_create(kind=Match.Kind.TRAINING, submissions=[code, model], timed=True)
    play.match_play(match=training)
    assert seen["settings"].turn_timeout_s == 2.0
    (seat,) = [h for h in seen["handles"] if isinstance(h, LlmSeat)]
    assert seat.policy.move_budget_s == 5.0


def test_a_slower_clock_gives_its_games_longer_time_limits_and_a_later_deadline(
    make_user: Callable[..., User], starter_source: str, settings: Any
) -> None:
    settings.ARENA_TURN_TIMEOUT_S = 2.0
    _, (default,) = tournament_matches(make_user, [starter_source] * 2)
    soft, hard = match_time_limits_s(default)
    Tournament.objects.update(turn_budget_s=20.0)
    slow_soft, slow_hard = match_time_limits_s(default)
    assert slow_hard > hard and slow_soft > soft
    # simple-card: 3 rounds of 2 seats, 66 calls a seat (max(10, 200 // 3)) at 20 s each.
    assert slow_hard == 60.0 + 3 * 2 * 66 * 20.0
    start = timezone.now()
    Match.objects.filter(pk=default.pk).update(status=Match.Status.RUNNING, started=start)
    default.refresh_from_db()
    deadline = match_deadline(default)
    assert deadline is not None
    assert deadline - start == timedelta(seconds=slow_hard + settings.ARENA_MATCH_DEADLINE_GRACE_S)
    # Untimed: no clock, whatever the budget.
    Match.objects.filter(pk=default.pk).update(timed=False)
    default.refresh_from_db()
    untimed = match_time_limits_s(default)
    Tournament.objects.update(turn_budget_s=0.1)
    assert match_time_limits_s(default) == untimed


# --- For real: too slow for the clock loses on time -------------------------------------------

SLEEPER = """
import time


class Agent:
    GAME = "simple-card"

    def on_turn(self, round_state):
        time.sleep(0.6)
        return {"type": "play_card", "card": max(round_state["hand"])}
"""


def play_sleeper_against_starter(
    make_user: Callable[..., User],
    starter_source: str,
    committed: Any,
    prefix: str,
    **clock: Any,
) -> dict[str, tuple[str, str]]:
    """A two-entrant tournament played through the match task; each agent's outcome and
    reason."""
    t = tournament_with(make_user, [SLEEPER, starter_source], prefix, **clock)
    for _ in range(5):
        committed(scheduler.tournaments_tick)  # released matches run eagerly on commit
        if Tournament.objects.get(pk=t.pk).status == Tournament.Status.FINISHED:
            break
    (match,) = Match.objects.filter(tournament_game__pairing__tournament=t)
    assert match.status == Match.Status.FINISHED, match.error
    return {
        p.submission.agent.name: (p.outcome, p.reason)
        for p in match.participants.select_related("submission__agent")
    }


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["process", pytest.param("docker", marks=pytest.mark.docker)])
def test_an_agent_too_slow_for_the_tournaments_clock_loses_on_time(
    make_user: Callable[..., User],
    starter_source: str,
    committed: Any,
    settings: Any,
    backend: str,
) -> None:
    """bot0 thinks 0.6 s a turn: within the platform's 2 s, over a 0.3 s tournament clock."""
    from arena.matches import sandboxing

    if backend == "docker":
        from sandbox.engine import docker_ready

        require_part(
            docker_ready(settings.ARENA_SANDBOX_IMAGE), "needs Docker and the sandbox image"
        )
    settings.ARENA_SANDBOX_BACKEND = backend
    settings.ARENA_TURN_TIMEOUT_S = 2.0
    sandboxing.sandbox_backend.cache_clear()
    try:
        fast = play_sleeper_against_starter(
            make_user, starter_source, committed, "fast-", turn_budget_s=0.3
        )
        assert fast["bot0"] == ("loss", "timeout")
        assert fast["bot1"][0] == "win"
        default = play_sleeper_against_starter(make_user, starter_source, committed, "default-")
        assert default["bot0"][1] != "timeout" and default["bot1"][1] != "timeout"
    finally:
        sandboxing.sandbox_backend.cache_clear()
