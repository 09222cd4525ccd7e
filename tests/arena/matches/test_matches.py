"""The match task: validation, training, ranked; exactly-once Elo; platform errors."""

from __future__ import annotations

from typing import Any

import pytest
from arena.catalog.services import demo_data_load
from arena.matches.logstore import match_log_entries
from arena.matches.models import Match
from arena.ratings.models import Rating, RatingChange
from arena.submissions.models import Submission
from arena.submissions.services import house_submission_ensure
from arena.workflows.dispatch import match_schedule
from arena.workflows.ladder import matchmaking_run
from arena.workflows.matches import match_record, match_run, training_request
from arena.workflows.submissions import submission_activate, submission_upload
from arena.workflows.tasks import match_run_task

from games.core import MatchRecord, PlatformError
from tests.arena.conftest import BAD_AGENT_SOURCE

pytestmark = pytest.mark.django_db(transaction=False)


def upload(committed: Any, user: Any, source: str, name: str = "bot") -> Submission:
    submission = committed(lambda: submission_upload(owner=user, source=source, name=name))
    submission.refresh_from_db()
    return submission


def test_a_working_agent_is_accepted_by_self_play(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    submission = upload(committed, make_user(), starter_source)
    assert submission.status == "accepted"
    validation = Match.objects.get(kind="validation")
    assert validation.status == "finished"
    assert any(e["method"] == "on_turn" for e in match_log_entries(validation))
    assert not validation.events.exists()  # packed into one blob once the match ended


def test_a_broken_agent_is_rejected_with_its_traceback(make_user: Any, committed: Any) -> None:
    submission = upload(committed, make_user(), BAD_AGENT_SOURCE)
    assert submission.status == "rejected"
    assert "illegal" in submission.status_detail and "my bug on purpose" in submission.status_detail


def test_versions_count_up_per_agent_name(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    user = make_user()
    first = upload(committed, user, starter_source)
    second = upload(committed, user, starter_source)
    other = upload(committed, user, starter_source, name="other")
    assert (first.version, second.version, other.version) == (1, 2, 1)
    assert first.agent_id == second.agent_id != other.agent_id


def test_training_keeps_prints_and_stays_unrated(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    user = make_user()
    submission = upload(committed, user, starter_source)
    match = committed(
        lambda: training_request(user=user, submission_id=submission.pk, opponent="house:random")
    )
    match.refresh_from_db()
    assert match.status == "finished" and not match.rated
    prints = [e["stdout"] for e in match_log_entries(match) if e["seat"] == 0 and e.get("stdout")]
    assert any("-> playing" in p for p in prints)
    assert not RatingChange.objects.exists()


def test_training_is_limited_per_hour(
    make_user: Any, committed: Any, starter_source: str, settings: Any
) -> None:
    from arena.errors import RateLimited

    settings.ARENA_TRAINING_PER_HOUR = 2
    user = make_user()
    submission = upload(committed, user, starter_source)
    for _ in range(2):
        committed(
            lambda: training_request(
                user=user, submission_id=submission.pk, opponent="house:lowest"
            )
        )
    with pytest.raises(RateLimited, match="2 an hour"):
        training_request(user=user, submission_id=submission.pk, opponent="house:lowest")


def _ranked_match(committed: Any, user: Any, source: str) -> tuple[Match, Submission, Submission]:
    mine = upload(committed, user, source)
    submission_activate(submission=mine, user=user)
    house = house_submission_ensure(game="simple-card", bot="highest", active=True)
    match = match_schedule(kind="ranked", submissions=[mine, house])  # not committed: not enqueued
    return match, mine, house


def test_a_task_delivered_twice_applies_elo_once(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    match, mine, house = _ranked_match(committed, make_user(), starter_source)
    match_run_task.apply(args=[match.pk])
    match_run_task.apply(args=[match.pk])  # the broker redelivers (acks_late)
    match.refresh_from_db()
    assert match.status == "finished" and match.rated and match.attempts == 1
    assert RatingChange.objects.filter(match=match).count() == 2
    assert Rating.objects.get(submission=mine).games == 1
    assert Rating.objects.get(submission=house).games == 1


def test_a_worker_that_died_mid_match_is_replayed_and_rated_once(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    match, mine, _ = _ranked_match(committed, make_user(), starter_source)
    Match.objects.filter(pk=match.pk).update(status="running", attempts=1)  # the first worker died
    assert match_run(match_id=match.pk) == "done"
    match.refresh_from_db()
    assert match.status == "finished" and match.attempts == 2
    assert Rating.objects.get(submission=mine).games == 1


def test_recording_the_same_result_twice_rates_once(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    match, mine, _ = _ranked_match(committed, make_user(), starter_source)
    match_run(match_id=match.pk)
    record = MatchRecord(
        game="simple-card", game_version=1, config={}, seed=0, timed=True, seats=[]
    )
    match_record(match_id=match.pk, record=record)  # a late duplicate
    assert Rating.objects.get(submission=mine).games == 1


def test_a_platform_error_is_retried_then_recorded_unrated(
    make_user: Any, committed: Any, starter_source: str, monkeypatch: Any, settings: Any
) -> None:
    match, mine, _ = _ranked_match(committed, make_user(), starter_source)

    def broken(submission: Any, **_: Any) -> Any:
        raise PlatformError("the sandbox backend is down")

    monkeypatch.setattr("arena.matches.sandboxing.make_handle", broken)
    for _ in range(settings.ARENA_MATCH_MAX_ATTEMPTS):
        match_run(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == "error" and not match.rated
    assert match.attempts == settings.ARENA_MATCH_MAX_ATTEMPTS
    assert "sandbox backend is down" in match.error
    assert "Traceback" in match.error_trace
    assert Rating.objects.get(submission=mine).games == 0


def test_an_engine_bug_is_a_platform_error_that_nobody_forfeits(
    make_user: Any, committed: Any, starter_source: str, monkeypatch: Any, settings: Any
) -> None:
    from arena.matches.selectors import match_as_dict
    from arena.matches.visibility import PUBLIC_PLATFORM_ERROR

    from games.simple_card.game import SimpleCardGame

    user = make_user()
    match, mine, _ = _ranked_match(committed, user, starter_source)
    staff = make_user("staff")
    staff.is_staff = True
    staff.save()

    def buggy_step(self: Any, action: Any) -> Any:
        raise KeyError("hidden-card-7")  # a bug in the engine, not an illegal action

    monkeypatch.setattr(SimpleCardGame, "step", buggy_step)
    match_run(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == "error" and not match.rated
    # The same seed fails the same way: one attempt, not ARENA_MATCH_MAX_ATTEMPTS of them.
    assert match.attempts == 1 < settings.ARENA_MATCH_MAX_ATTEMPTS
    assert "not retried" in match.summary
    seats = list(match.participants.values_list("outcome", "reason"))
    assert seats == [("", ""), ("", "")], "nobody forfeits an engine's bug"
    assert Rating.objects.get(submission=mine).games == 0
    assert not RatingChange.objects.filter(match=match).exists()
    # Owners read that the platform failed; only staff get the traceback and its message.
    assert "KeyError" in match.error and "hidden-card-7" not in match.error
    assert "Traceback" in match.error_trace and "hidden-card-7" in match.error_trace
    owner_view = match_as_dict(match, user)
    assert "error_trace" not in owner_view and "hidden-card-7" not in str(owner_view)
    assert match_as_dict(match, None)["error"] == PUBLIC_PLATFORM_ERROR
    assert "hidden-card-7" in match_as_dict(match, staff)["error_trace"]


def test_a_house_bot_that_runs_out_of_time_is_the_platforms_failure_never_a_forfeit(
    make_user: Any, committed: Any, starter_source: str, monkeypatch: Any, settings: Any
) -> None:
    import time

    from games.simple_card.bots import HighestBot

    class SlowHouseBot(HighestBot):
        """A house bot on a worker so loaded that its move takes past the budget."""

        def on_turn(self, state: dict[str, Any]) -> dict[str, Any]:
            time.sleep(0.3)
            return super().on_turn(state)

    settings.ARENA_TURN_TIMEOUT_S = 0.1
    monkeypatch.setattr("arena.matches.sandboxing.house_bot_class", lambda game, bot: SlowHouseBot)
    match, mine, house = _ranked_match(committed, make_user(), starter_source)
    match_run(match_id=match.pk)
    match.refresh_from_db()
    # Played again later (a platform error is retried), nobody forfeited, no rating moved.
    assert match.status == "queued" and not match.rated and match.attempts == 1
    assert "house bot" in match.error and "nobody forfeits" in match.error
    outcomes = list(match.participants.values_list("outcome", "reason"))
    assert outcomes == [("", ""), ("", "")]
    assert not RatingChange.objects.filter(match=match).exists()
    assert Rating.objects.get(submission=mine).games == 0
    for _ in range(settings.ARENA_MATCH_MAX_ATTEMPTS - 1):
        match_run(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == "error" and not match.rated
    assert Rating.objects.get(submission=mine).games == 0
    assert not Rating.objects.filter(submission=house, games__gt=0).exists()


def test_a_forfeit_counts_as_a_loss(make_user: Any, committed: Any, starter_source: str) -> None:
    user = make_user()
    match, mine, house = _ranked_match(committed, user, starter_source)
    # A later version that crashes mid-game (it passed validation before the bug was "fixed").
    Submission.objects.filter(pk=mine.pk).update(source=BAD_AGENT_SOURCE)
    match_run(match_id=match.pk)
    seat = match.participants.get(submission=mine)
    assert (seat.outcome, seat.reason) == ("loss", "illegal")
    assert (
        Rating.objects.get(submission=mine).rating
        < 1200
        < Rating.objects.get(submission=house).rating
    )


def test_matchmaking_pairs_users_first_and_house_bots_with_each_other(
    make_user: Any, committed: Any, starter_source: str
) -> None:
    demo_data_load()
    user = make_user()
    mine = upload(committed, user, starter_source)
    submission_activate(submission=mine, user=user)
    created = [m for m in matchmaking_run() if m.game == "simple-card"]
    owners = sorted(
        sorted(p.submission.agent.owner.username for p in m.participants.all()) for m in created
    )
    # simple-card has three house bots: one meets alice's agent, the other two each other.
    assert owners == [["alice", "house"], ["house", "house"]]
    assert matchmaking_run() == []  # one ranked match in flight per agent


def test_at_most_three_active_per_game(make_user: Any, committed: Any, starter_source: str) -> None:
    from arena.errors import Refused

    user = make_user()
    subs = [upload(committed, user, starter_source, name=f"bot{i}") for i in range(4)]
    for s in subs[:3]:
        submission_activate(submission=s, user=user)
    with pytest.raises(Refused, match="limit is 3"):
        submission_activate(submission=subs[3], user=user)


def test_voiding_a_rated_match_replays_the_ladder_without_it(committed: Any) -> None:
    from arena.submissions.services import house_submission_ensure
    from arena.workflows.matches import match_void

    from games.core.ranking import ELO_SCORES, EloSide, elo_update

    steal, split, tft = (
        house_submission_ensure(game="split-or-steal", bot=b)
        for b in ("always-steal", "always-split", "tit-for-tat")
    )
    pairs = [(steal, split), (split, tft), (steal, tft)]
    matches = []
    for pair in pairs:
        match = match_schedule(kind="ranked", submissions=list(pair))
        match_run(match_id=match.pk)
        matches.append(match)
    match_void(match=matches[1])

    # What the ladder must hold: Elo over the first and third matches only, from 1200.
    standing = {s.pk: EloSide(1200.0, 0) for s in (steal, split, tft)}
    for index in (0, 2):
        a, b = pairs[index]
        seats = {p.submission_id: p.outcome for p in matches[index].participants.all()}
        new_a, new_b = elo_update(standing[a.pk], standing[b.pk], ELO_SCORES[seats[a.pk]])
        standing[a.pk] = EloSide(new_a, standing[a.pk].games + 1)
        standing[b.pk] = EloSide(new_b, standing[b.pk].games + 1)
    for s in (steal, split, tft):
        rating = Rating.objects.get(submission=s)
        assert (rating.rating, rating.games) == (standing[s.pk].rating, standing[s.pk].games)
    assert not RatingChange.objects.filter(match=matches[1]).exists()
    matches[1].refresh_from_db()
    assert (matches[1].status, matches[1].rated) == ("error", False)


def test_only_ranked_matches_freeze_the_waiting_agent(
    make_user: Any, committed: Any, starter_source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.matches import sandboxing

    asked: list[tuple[str, bool]] = []
    real = sandboxing.make_handle

    def spy(submission: Any, *, freeze_idle: bool = True, **kw: Any) -> Any:
        asked.append((submission.label, freeze_idle))
        return real(submission, freeze_idle=freeze_idle, **kw)

    monkeypatch.setattr("arena.matches.sandboxing.make_handle", spy)
    match, mine, _ = _ranked_match(committed, make_user(), starter_source)
    assert asked and not any(freeze for _, freeze in asked)  # the validation self-play
    asked.clear()
    match_run(match_id=match.pk)
    assert asked and all(freeze for _, freeze in asked)
    asked.clear()
    training = training_request(
        user=mine.agent.owner, submission_id=mine.pk, opponent="house:highest"
    )
    match_run(match_id=training.pk)
    assert asked and not any(freeze for _, freeze in asked)


def test_sandbox_image_and_runtime_come_from_settings(
    make_user: Any,
    committed: Any,
    starter_source: str,
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
) -> None:
    from arena.matches import sandboxing

    mine = upload(committed, make_user(), starter_source)
    settings.ARENA_SANDBOX_IMAGE = "registry.example/arena-sandbox:7"
    settings.ARENA_SANDBOX_RUNTIME = "runsc"
    settings.ARENA_SANDBOX_BACKEND = "docker"
    sandboxing.sandbox_backend.cache_clear()
    handle = sandboxing.make_handle(mine, freeze_idle=False)
    sandboxing.sandbox_backend.cache_clear()
    assert (handle.limits.image, handle.limits.runtime) == (
        "registry.example/arena-sandbox:7",
        "runsc",
    )
    assert handle.limits.freeze_idle is False
