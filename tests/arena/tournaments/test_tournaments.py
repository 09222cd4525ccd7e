"""Tournaments on the platform: entry rules, the scheduler (freeze, pairing, the share,
re-runs of platform failures, publication), staff controls, visibility, pages and API.

Most tests finish the released matches themselves (as a worker would record them) so that a
whole tournament runs in a second; one plays a small tournament for real through the match
task in the process sandbox."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from arena.accounts.models import User
from arena.accounts.services import token_get_or_create
from arena.errors import Forbidden, Refused
from arena.matches.models import Match
from arena.ratings.models import Rating
from arena.submissions.models import Submission
from arena.submissions.services import submission_create
from arena.tournaments import scheduler, selectors, services
from arena.tournaments.models import Entry, Pairing, Tournament, TournamentGame
from arena.tournaments.pairing import swiss_rounds_for
from arena.tournaments.standings import GameResult, standings_compute
from django.test import Client
from django.utils import timezone

pytestmark = pytest.mark.django_db

GAME = "simple-card"


def accepted_agent(user: User, source: str, name: str = "bot") -> Submission:
    s = submission_create(owner=user, source=source, name=name)
    Submission.objects.filter(pk=s.pk).update(status="accepted", status_detail="test")
    s.refresh_from_db()
    return s


def make_tournament(**overrides: Any) -> Tournament:
    now = timezone.now()
    fields: dict[str, Any] = {
        "created_by": None,
        "name": "Winter cup",
        "game": GAME,
        "entry_opens": now - timedelta(hours=1),
        "entry_closes": now + timedelta(hours=1),
        "freeze_at": now + timedelta(hours=1),
        "publish_at": now + timedelta(hours=2),
        "games_per_pairing": 2,
    }
    fields.update(overrides)
    return services.tournament_create(**fields)


def field(
    make_user: Callable[..., User], source: str, n: int, **overrides: Any
) -> tuple[Tournament, list[Entry]]:
    t = make_tournament(**overrides)
    entries = []
    for i in range(n):
        user = make_user(f"entrant{i}")
        s = accepted_agent(user, source)
        entries.append(services.entry_create(user=user, tournament_id=t.pk, agent_id=s.agent_id))
    return t, entries


def freeze_now(t: Tournament) -> None:
    now = timezone.now()
    Tournament.objects.filter(pk=t.pk).update(entry_closes=now, freeze_at=now)


def finish_released(rng: random.Random, *, outcomes: tuple[str, ...] = ("win", "loss")) -> int:
    """Record a result for every queued tournament match, as a worker would."""
    done = 0
    for match in Match.objects.filter(kind=Match.Kind.TOURNAMENT, status=Match.Status.QUEUED):
        first = rng.choice(outcomes)
        other = {"win": "loss", "loss": "win", "draw": "draw"}[first]
        for seat, outcome in ((0, first), (1, other)):
            match.participants.filter(seat=seat).update(outcome=outcome, reason="normal")
        Match.objects.filter(pk=match.pk).update(
            status=Match.Status.FINISHED, finished=timezone.now()
        )
        done += 1
    return done


def run_to_the_end(t: Tournament, rng: random.Random, max_ticks: int = 500) -> int:
    ticks = 0
    while Tournament.objects.get(pk=t.pk).status == Tournament.Status.RUNNING or ticks == 0:
        scheduler.tournaments_tick()
        in_flight = selectors.tournament_in_flight()
        assert in_flight <= 2, "the scheduler released more than its share"
        finish_released(rng, outcomes=("win", "loss", "draw"))
        ticks += 1
        assert ticks < max_ticks, "the tournament did not end"
    return ticks


def implied_standings(t: Tournament) -> list[tuple[int, float]]:
    """Standings recomputed from the matches themselves."""
    results = []
    for game in TournamentGame.objects.filter(pairing__tournament=t).select_related("match"):
        seats = {p.seat: p.outcome for p in game.match.participants.all()}
        pts = {"win": 1.0, "draw": 0.5, "loss": 0.0}
        results.append(GameResult(game.seat0_id, game.seat1_id, pts[seats[0]], pts[seats[1]]))
    byes: dict[int, int] = {}
    for p in Pairing.objects.filter(tournament=t, second__isnull=True):
        byes[p.first_id] = byes.get(p.first_id, 0) + 1
    entries = list(t.entries.filter(dropped="").values_list("pk", flat=True))
    rows = standings_compute(entries, results, byes=byes, bye_points=t.games_per_pairing)
    return [(r.entrant, r.score) for r in rows]


def test_a_round_robin_plays_every_pair_once_within_its_share(
    make_user: Callable[..., User], starter_source: str, settings: Any
) -> None:
    settings.ARENA_TOURNAMENT_IN_FLIGHT = 2
    t, entries = field(make_user, starter_source, 5)
    scheduler.tournaments_tick()
    assert Tournament.objects.get(pk=t.pk).status == Tournament.Status.UPCOMING  # before freeze
    freeze_now(t)
    counts = scheduler.tournaments_tick()
    assert counts["started"] == 1 and counts["released"] == 2
    t.refresh_from_db()
    assert t.played_format == "round_robin" and t.rounds_total == 5  # 5 entrants: a bye a round
    run_to_the_end(t, random.Random(1))
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED  # publish_at is in an hour
    keys = list(Pairing.objects.filter(tournament=t, second__isnull=False).values_list("key"))
    assert len(keys) == 10 == len(set(keys))
    games = TournamentGame.objects.filter(pairing__tournament=t)
    assert games.count() == 20 and not games.filter(match__isnull=True).exists()
    # Duplicate seats: each pairing plays one seed twice with the seats swapped.
    for pairing in Pairing.objects.filter(tournament=t, second__isnull=False):
        a, b = pairing.games.order_by("leg")
        assert a.seed == b.seed and (a.seat0_id, a.seat1_id) == (b.seat1_id, b.seat0_id)
        assert a.match.seed == a.seed and a.match.participants.get(seat=0).submission_id == (
            a.seat0.submission_id
        )
    # Unrated: no ladder touched.
    assert not Match.objects.filter(kind=Match.Kind.TOURNAMENT, rated=True).exists()
    assert Rating.objects.count() == 0
    res = selectors.tournament_results(t)
    assert [(s.entrant, s.score) for s in res.standings] == implied_standings(t)


def test_a_swiss_pairs_round_by_round_without_repeats(
    make_user: Callable[..., User], starter_source: str
) -> None:
    t, _ = field(
        make_user, starter_source, 13, round_robin_max=8, games_per_pairing=1, duplicate_seats=False
    )
    freeze_now(t)
    run_to_the_end(t, random.Random(7))
    t.refresh_from_db()
    assert t.played_format == "swiss" and t.rounds_total == swiss_rounds_for(13) == 6
    pairings = Pairing.objects.filter(tournament=t)
    assert sorted(set(pairings.values_list("round", flat=True))) == list(range(1, 7))
    played = pairings.filter(second__isnull=False)
    assert played.count() == len(set(played.values_list("key", flat=True))) == 36
    byes = list(pairings.filter(second__isnull=True).values_list("first_id", flat=True))
    assert len(byes) == 6 == len(set(byes))
    res = selectors.tournament_results(t)
    assert [(s.entrant, s.score) for s in res.standings] == implied_standings(t)


def test_results_are_published_at_the_set_time_and_not_before(
    make_user: Callable[..., User], starter_source: str
) -> None:
    t, entries = field(make_user, starter_source, 3, games_per_pairing=1, duplicate_seats=False)
    freeze_now(t)
    run_to_the_end(t, random.Random(3))
    t.refresh_from_db()
    anonymous, owner, stranger = Client(), Client(), Client()
    owner.force_login(entries[0].owner)
    stranger.force_login(make_user("stranger"))
    match_id = TournamentGame.objects.filter(pairing__tournament=t).first().match_id
    for client in (anonymous, stranger):
        body = client.get(f"/api/tournaments/{t.pk}").json()
        assert body["results_visible"] is False and "standings" not in body
        assert client.get(f"/api/matches/{match_id}").status_code in (401, 403)
        page = client.get(f"/tournaments/{t.pk}/").content.decode()
        assert 'id="not-published"' in page and 'id="standings"' not in page
    mine = owner.get(f"/api/tournaments/{t.pk}").json()
    assert mine["results_visible"] is True and len(mine["standings"]) == 3
    scheduler.tournaments_tick()
    assert Tournament.objects.get(pk=t.pk).status == Tournament.Status.FINISHED
    Tournament.objects.filter(pk=t.pk).update(publish_at=timezone.now())
    scheduler.tournaments_tick()
    t.refresh_from_db()
    assert t.status == Tournament.Status.PUBLISHED and t.published >= t.publish_at
    body = anonymous.get(f"/api/tournaments/{t.pk}").json()
    assert body["results_visible"] is True
    assert [r["entry"] for r in body["standings"]] == [e for e, _ in implied_standings(t)]
    assert {g["replay"] for g in body["games"]} >= {f"/matches/{match_id}/"}
    assert anonymous.get(f"/api/matches/{match_id}").status_code == 200
    page = anonymous.get(f"/tournaments/{t.pk}/").content.decode()
    assert 'id="standings"' in page and 'id="crosstable"' in page
    assert f'href="/matches/{match_id}/"' in page
    listing = anonymous.get("/api/tournaments").json()
    assert [x["id"] for x in listing] == [t.pk]


def test_pause_stops_new_games_and_resume_continues(
    make_user: Callable[..., User], starter_source: str
) -> None:
    t, _ = field(make_user, starter_source, 4)
    freeze_now(t)
    scheduler.tournaments_tick()
    services.tournament_pause(tournament_id=t.pk)
    finish_released(random.Random(0))
    assert scheduler.tournaments_tick()["released"] == 0
    assert selectors.tournament_in_flight() == 0
    services.tournament_resume(tournament_id=t.pk)
    assert scheduler.tournaments_tick()["released"] == 2


def test_a_rerun_is_a_new_edition_with_the_same_versions(
    make_user: Callable[..., User], starter_source: str
) -> None:
    t, entries = field(make_user, starter_source, 3, games_per_pairing=1, duplicate_seats=False)
    with pytest.raises(Refused):
        services.tournament_rerun(tournament_id=t.pk, created_by=None)  # not started
    freeze_now(t)
    run_to_the_end(t, random.Random(5))
    # A newer version uploaded after the freeze does not play in the re-run.
    accepted_agent(entries[0].owner, starter_source)
    copy = services.tournament_rerun(tournament_id=t.pk, created_by=None)
    assert copy.edition == 2 and copy.rerun_of_id == t.pk
    frozen = sorted(t.entries.values_list("submission_id", flat=True))
    assert sorted(copy.entries.values_list("submission_id", flat=True)) == frozen
    run_to_the_end(copy, random.Random(6))
    copy.refresh_from_db()
    assert copy.status == Tournament.Status.FINISHED
    played = Match.objects.filter(tournament_game__pairing__tournament=copy)
    subs = set(played.values_list("participants__submission_id", flat=True))
    assert subs == set(frozen)


def test_a_match_the_platform_fails_is_rerun_then_void(
    make_user: Callable[..., User], starter_source: str, settings: Any
) -> None:
    settings.ARENA_TOURNAMENT_GAME_RERUNS = 1
    t, _ = field(make_user, starter_source, 2, games_per_pairing=1, duplicate_seats=False)
    freeze_now(t)
    scheduler.tournaments_tick()
    game = TournamentGame.objects.get(pairing__tournament=t)
    Match.objects.filter(pk=game.match_id).update(status=Match.Status.ERROR, attempts=3)
    scheduler.tournaments_tick()
    game.refresh_from_db()
    assert game.reruns == 1 and game.match.status == Match.Status.QUEUED
    assert game.match.attempts == 0
    Match.objects.filter(pk=game.match_id).update(status=Match.Status.ERROR)
    scheduler.tournaments_tick()
    game.refresh_from_db()
    assert game.void and Tournament.objects.get(pk=t.pk).status == Tournament.Status.FINISHED
    res = selectors.tournament_results(t)
    assert [s.score for s in res.standings] == [0.0, 0.0]  # a platform failure is no forfeit


def test_entry_rules(make_user: Callable[..., User], starter_source: str) -> None:
    t = make_tournament()
    alice, bob = make_user("alice"), make_user("bob")
    mine = accepted_agent(alice, starter_source)
    with pytest.raises(Forbidden):
        services.entry_create(user=bob, tournament_id=t.pk, agent_id=mine.agent_id)
    pending = submission_create(owner=bob, source=starter_source, name="fresh")
    with pytest.raises(Refused, match="no accepted version"):
        services.entry_create(user=bob, tournament_id=t.pk, agent_id=pending.agent_id)
    first = services.entry_create(user=alice, tournament_id=t.pk, agent_id=mine.agent_id)
    other = accepted_agent(alice, starter_source, name="second")
    again = services.entry_create(user=alice, tournament_id=t.pk, agent_id=other.agent_id)
    assert again.pk == first.pk and again.agent_id == other.agent_id  # one entry per user
    closed = make_tournament(
        entry_opens=timezone.now() + timedelta(minutes=5),
        entry_closes=timezone.now() + timedelta(minutes=10),
        freeze_at=timezone.now() + timedelta(minutes=10),
    )
    with pytest.raises(Refused, match="not open now"):
        services.entry_create(user=alice, tournament_id=closed.pk, agent_id=mine.agent_id)
    with pytest.raises(Refused, match="games per pairing must be even"):
        make_tournament(games_per_pairing=3)
    with pytest.raises(Refused, match="order"):
        make_tournament(publish_at=timezone.now())


def test_an_entry_without_an_accepted_version_at_the_freeze_is_dropped(
    make_user: Callable[..., User], starter_source: str
) -> None:
    t, entries = field(make_user, starter_source, 3)
    Submission.objects.filter(agent=entries[2].agent).update(status="rejected")
    freeze_now(t)
    scheduler.tournaments_tick()
    entries[2].refresh_from_db()
    assert entries[2].dropped and entries[2].submission_id is None
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING and t.rounds_total == 1  # two left


def test_a_small_tournament_plays_for_real_through_the_match_task(
    make_user: Callable[..., User], starter_source: str, committed: Any
) -> None:
    t, _ = field(make_user, starter_source, 3, games_per_pairing=2)
    freeze_now(t)
    for _ in range(20):
        committed(scheduler.tournaments_tick)  # released matches run eagerly on commit
        if Tournament.objects.get(pk=t.pk).status == Tournament.Status.FINISHED:
            break
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    matches = Match.objects.filter(tournament_game__pairing__tournament=t)
    assert matches.count() == 6
    assert set(matches.values_list("status", flat=True)) == {"finished"}
    assert set(matches.values_list("kind", flat=True)) == {"tournament"}
    assert not matches.filter(rated=True).exists()
    res = selectors.tournament_results(t)
    assert sum(s.score for s in res.standings) == 6 + 3 * 2  # 6 games, a bye (2) a round


FMT = "%Y-%m-%dT%H:%M"


def new_tournament_form(name: str, **clock: str) -> dict[str, str]:
    now = timezone.now()
    return {
        "name": name,
        "game": GAME,
        "format": "auto",
        "round_robin_max": "12",
        "games_per_pairing": "2",
        "duplicate_seats": "on",
        "timed": "on",
        "entry_opens": (now - timedelta(hours=1)).strftime(FMT),
        "entry_closes": (now + timedelta(hours=1)).strftime(FMT),
        "freeze_at": (now + timedelta(hours=1)).strftime(FMT),
        "publish_at": (now + timedelta(hours=3)).strftime(FMT),
        **clock,
    }


def test_staff_create_a_tournament_on_the_staff_page(make_user: Callable[..., User]) -> None:
    staff = make_user("staff")
    staff.is_staff = True
    staff.save()
    client = Client()
    assert client.get("/tournaments/new/").status_code == 302  # to the login page
    client.force_login(staff)
    assert client.get("/tournaments/new/").status_code == 200
    response = client.post("/tournaments/new/", new_tournament_form("Spring open"))
    t = Tournament.objects.get(name="Spring open")
    assert response.status_code == 302 and response["Location"] == f"/tournaments/{t.pk}/"
    assert client.post(f"/tournaments/{t.pk}/control/", {"action": "pause"}).status_code == 302
    t.refresh_from_db()
    assert t.status == Tournament.Status.UPCOMING  # an upcoming tournament cannot be paused


def test_the_admin_form_checks_the_settings_by_the_same_rules() -> None:
    from arena.tournaments.admin import TournamentAdminForm

    now = timezone.now()
    fmt = "%Y-%m-%d %H:%M:%S"
    data = {
        "name": "Admin cup",
        "game": GAME,
        "format": "auto",
        "round_robin_max": 12,
        "games_per_pairing": 3,
        "duplicate_seats": "on",
        "timed": "on",
        "config": "{}",
        "entry_opens": (now + timedelta(hours=2)).strftime(fmt),
        "entry_closes": (now + timedelta(hours=1)).strftime(fmt),
        "freeze_at": (now + timedelta(hours=1)).strftime(fmt),
        "publish_at": (now + timedelta(hours=3)).strftime(fmt),
    }
    form = TournamentAdminForm(data)
    assert not form.is_valid()
    assert form.non_field_errors() == [
        "the times must come in this order: entry opens < entry closes <= freeze <= publish",
        "duplicate seats play each seed twice: games per pairing must be even",
    ]
    data.update(entry_opens=(now - timedelta(hours=1)).strftime(fmt), games_per_pairing=2)
    assert TournamentAdminForm(data).is_valid()


def test_a_user_enters_through_the_page_and_the_api(
    make_user: Callable[..., User], starter_source: str
) -> None:
    t = make_tournament()
    alice = make_user("alice")
    s = accepted_agent(alice, starter_source)
    client = Client()
    client.force_login(alice)
    page = client.get(f"/tournaments/{t.pk}/").content.decode()
    assert 'id="enter-form"' in page
    client.post(f"/tournaments/{t.pk}/enter/", {"agent": s.agent_id})
    assert Entry.objects.filter(tournament=t, owner=alice).exists()
    api = Client(HTTP_AUTHORIZATION=f"Token {token_get_or_create(user=alice).key}")
    response = api.delete(f"/api/tournaments/{t.pk}/entry")
    assert response.status_code == 204
    assert not Entry.objects.filter(tournament=t, owner=alice).exists()
    response = api.post(
        f"/api/tournaments/{t.pk}/entry", {"agent": s.agent_id}, content_type="application/json"
    )
    assert response.status_code == 201, response.content
    assert Entry.objects.filter(tournament=t, owner=alice).count() == 1


def test_a_swiss_that_runs_out_of_new_pairings_ends_instead_of_sticking(
    make_user: Callable[..., User], starter_source: str
) -> None:
    t, entries = field(
        make_user,
        starter_source,
        4,
        format="swiss",
        swiss_rounds=3,
        games_per_pairing=1,
        duplicate_seats=False,
    )
    freeze_now(t)
    scheduler.tournaments_tick()
    finish_released(random.Random(0))
    # The first entry has (as far as the records say) met everyone already.
    first = entries[0].pk
    met = set(
        Pairing.objects.filter(tournament=t, first_id=first).values_list("second_id", flat=True)
    ) | set(
        Pairing.objects.filter(tournament=t, second_id=first).values_list("first_id", flat=True)
    )
    for board, other in enumerate(e.pk for e in entries[1:] if e.pk not in met):
        Pairing.objects.create(
            tournament=t,
            round=0,
            board=10 + board,
            first_id=first,
            second_id=other,
            key=f"{min(first, other)}-{max(first, other)}",
        )
    run_to_the_end(t, random.Random(1))
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    assert t.rounds_total == t.round_current == 1
    assert "ended after round 1" in t.status_detail


def test_entrants_are_told_when_it_starts_and_when_the_results_are_published(
    make_user: Callable[..., User], starter_source: str
) -> None:
    from arena.notifications.models import Kind, Notification

    t, entries = field(make_user, starter_source, 3, games_per_pairing=1, duplicate_seats=False)
    outsider = make_user("outsider")
    freeze_now(t)
    run_to_the_end(t, random.Random(5))
    Tournament.objects.filter(pk=t.pk).update(publish_at=timezone.now())
    scheduler.tournaments_tick()
    scheduler.tournaments_tick()  # a second pass after publication tells nobody again
    assert Tournament.objects.get(pk=t.pk).status == Tournament.Status.PUBLISHED
    for entry in entries:
        told = Notification.objects.filter(user=entry.owner).order_by("pk")
        assert [(n.kind, n.url) for n in told] == [
            (Kind.TOURNAMENT_STARTED, f"/tournaments/{t.pk}/"),
            (Kind.TOURNAMENT_RESULT, f"/tournaments/{t.pk}/"),
        ]
        assert "Winter cup" in told[0].subject
    assert not Notification.objects.filter(user=outsider).exists()


def test_entrants_are_told_when_too_few_can_play_and_it_is_cancelled(
    make_user: Callable[..., User], starter_source: str
) -> None:
    from arena.notifications.models import Kind, Notification

    t, entries = field(make_user, starter_source, 1)
    freeze_now(t)
    scheduler.tournaments_tick()
    assert Tournament.objects.get(pk=t.pk).status == Tournament.Status.CANCELLED
    told = Notification.objects.get(user=entries[0].owner)
    assert told.kind == Kind.TOURNAMENT_CANCELLED and "cancelled" in told.subject


def test_a_running_tournament_past_its_publication_time_says_when_results_come(
    make_user: Callable[..., User], starter_source: str
) -> None:
    from arena_cli.tournament_cmd import _publication

    t, _ = field(make_user, starter_source, 4, format="swiss", swiss_rounds=3, games_per_pairing=2)
    freeze_now(t)
    scheduler.tournaments_tick()
    past = timezone.now() - timedelta(minutes=5)
    Tournament.objects.filter(pk=t.pk).update(publish_at=past)
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING
    page = Client().get(f"/tournaments/{t.pk}/").content.decode()
    said = page.split('id="not-published">')[1].split("</p>")[0]
    stamp = f"{past:%Y-%m-%d %H:%M}"
    assert f"results are published {stamp}" not in said, said
    assert "as soon as the last game is over" in said and "has passed" in said, said
    schedule = page.split('id="schedule"')[1].split("</table>")[0]
    assert "that time has passed: published once the last game is over" in schedule, schedule
    body = Client().get(f"/api/tournaments/{t.pk}").json()
    told = _publication(body)
    assert "when the last game is over" in told and "has passed" in told, told
    # Before the set time, the time itself is the answer.
    future = timezone.now() + timedelta(hours=1)
    Tournament.objects.filter(pk=t.pk).update(publish_at=future)
    said = Client().get(f"/tournaments/{t.pk}/").content.decode().split('id="not-published">')[1]
    assert f"results are published {future:%Y-%m-%d %H:%M} UTC" in said.split("</p>")[0]
    assert _publication(Client().get(f"/api/tournaments/{t.pk}").json()).startswith(
        "results are published at"
    )
