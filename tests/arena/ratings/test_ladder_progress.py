"""A ladder never stalls on a small site: the simulated ladder (the platform's own pure pairing,
Elo, recent load and recent opponents) run pass after pass with matches finishing in between.

On a fresh site with one user, the house bots reach their daily cap of house-v-house games
within minutes; every bot's last opponent is then the user's agent, and with no rematch ever
allowed the ladder made no pair again. Now a rematch is allowed when it is the only pairing
left, after the cool-down; the cap limits house-v-house games only.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from arena.ratings import ladder
from arena.ratings.pairing import Entry, pair_entries
from django.conf import settings

from games.core import available_game_ids, get_game_spec
from games.core.ranking import EloSide, elo_update

PASSES = 200
HOUSE_OWNER = 0


@dataclass
class Row:
    """One ladder entry's row as ``services.rating_apply`` keeps it (times in seconds)."""

    id: int
    owner: int
    house: bool
    rating: float = 1200.0
    games: int = 0
    load: float = 0.0
    last_played_s: float | None = None
    opponents: list[int] = field(default_factory=list)
    #: The pass of each game this entry played.
    played_at_pass: list[int] = field(default_factory=list)


def _load_at(row: Row, now_s: float) -> float:
    if row.last_played_s is None:
        return 0.0
    age_s = max(0.0, now_s - row.last_played_s)
    return row.load * pow(2.718281828459045, -age_s / ladder.RECENT.total_seconds())


def simulate(
    game: str,
    users: int,
    *,
    seed: int,
    passes: int = PASSES,
    owners: int | None = None,
    house_bots: bool = True,
) -> dict[int, Row]:
    """``users`` user agents (spread over ``owners`` owners, by default each its own) and
    ``game``'s house bots on one ladder,
    paired every ``ARENA_MATCHMAKING_INTERVAL_S`` with the platform's settings; each match
    lasts between a fifth of a pass and three passes; workers are plentiful (a pair starts at
    once, so house bots may play each other whenever pairing allows it)."""
    rng = random.Random(seed)
    interval_s = settings.ARENA_MATCHMAKING_INTERVAL_S
    rows: dict[int, Row] = {}
    for i, _bot in enumerate(sorted(get_game_spec(game).bots) if house_bots else []):
        rows[1000 + i] = Row(id=1000 + i, owner=HOUSE_OWNER, house=True)
    for i in range(users):
        rows[1 + i] = Row(id=1 + i, owner=1 + i % (owners or users), house=False)
    in_flight: list[tuple[float, int, int]] = []  # (ends at, a, b)
    for number in range(passes):
        now_s = number * interval_s
        still: list[tuple[float, int, int]] = []
        for ends_s, a_id, b_id in sorted(in_flight):
            if ends_s > now_s:
                still.append((ends_s, a_id, b_id))
                continue
            a, b = rows[a_id], rows[b_id]
            score_a = rng.choice((0.0, 0.5, 1.0))
            new_a, new_b = elo_update(
                EloSide(a.rating, a.games), EloSide(b.rating, b.games), score_a
            )
            for row, new, other in ((a, new_a, b), (b, new_b, a)):
                row.load = _load_at(row, ends_s) + 1.0
                row.rating, row.games, row.last_played_s = new, row.games + 1, ends_s
                row.opponents = ladder.opponents_after(row.opponents, other.id)
        in_flight = still
        busy = {x for _, a_id, b_id in in_flight for x in (a_id, b_id)}
        free = [
            Entry(
                id=row.id,
                owner=row.owner,
                rating=row.rating,
                load=_load_at(row, now_s),
                opponents=tuple(row.opponents),
                house=row.house,
                idle_s=(float("inf") if row.last_played_s is None else now_s - row.last_played_s),
            )
            for row in rows.values()
            if row.id not in busy
        ]
        pairs = pair_entries(
            free,
            rng=rng,
            house_load_cap=settings.ARENA_HOUSE_GAMES_PER_DAY,
            rematch_cooldown_s=settings.ARENA_REMATCH_COOLDOWN_S,
        )
        for a_entry, b_entry in pairs:
            duration_s = rng.uniform(0.2 * interval_s, 3 * interval_s)
            in_flight.append((now_s + duration_s, a_entry.id, b_entry.id))
            rows[a_entry.id].played_at_pass.append(number)
            rows[b_entry.id].played_at_pass.append(number)
    return rows


def _user_games(rows: dict[int, Row]) -> list[int]:
    return [len(r.played_at_pass) for r in rows.values() if not r.house]


@pytest.mark.parametrize("game", available_game_ids())
def test_one_user_and_the_house_bots_keep_playing(game: str) -> None:
    rows = simulate(game, 1, seed=19)
    (me,) = [r for r in rows.values() if not r.house]
    games = len(me.played_at_pass)
    late = sum(p >= PASSES - 50 for p in me.played_at_pass)
    # Enough for a rank (20 rated games), and still playing in the last quarter of the run.
    assert games >= 20, f"{game}: the lone user agent played {games} games in {PASSES} passes"
    assert late >= 3, f"{game}: the lone user agent played {late} games in the last 50 passes"
    # The house bots played each other too (a fresh ladder gets ratings and replays).
    house_v_house = sum(len(r.played_at_pass) for r in rows.values() if r.house) - games
    assert house_v_house > 0


@pytest.mark.parametrize("users", [2, 3, 10])
@pytest.mark.parametrize("game", ["chess", "brinkmanship"])
def test_several_users_each_keep_playing_and_fairly(game: str, users: int) -> None:
    rows = simulate(game, users, seed=users)
    games = _user_games(rows)
    assert min(games) >= 20, f"{game}, {users} users: games per user agent {sorted(games)}"
    # Fair: nobody plays less than half of what the busiest user agent played.
    assert min(games) >= max(games) / 2, f"{game}, {users} users: {sorted(games)}"
    for row in rows.values():
        if not row.house:
            late = sum(p >= PASSES - 50 for p in row.played_at_pass)
            assert late >= 3, f"{game}, {users} users: agent {row.id} stalled: {late} late"


@pytest.mark.parametrize("owners", [None, 1])
def test_two_users_alone_on_a_ladder_keep_meeting(owners: int | None) -> None:
    """Two agents and nobody else (the house bots taken off the ladder): each is the other's
    only possible opponent, so they meet again after every cool-down. Of one owner: never."""
    rows = simulate("chess", 2, seed=5, house_bots=False, owners=owners)
    games = _user_games(rows)
    if owners == 1:
        assert games == [0, 0]
        return
    cooldown_passes = settings.ARENA_REMATCH_COOLDOWN_S / settings.ARENA_MATCHMAKING_INTERVAL_S
    assert min(games) >= PASSES / (cooldown_passes + 3) - 1, games
    assert all(sum(p >= PASSES - 50 for p in r.played_at_pass) >= 1 for r in rows.values())


def test_house_bots_at_their_cap_still_play_users() -> None:
    """The cap limits house-v-house games only: a user still meets a tired house bot."""
    cap = settings.ARENA_HOUSE_GAMES_PER_DAY
    bots = [Entry(100 + i, 0, 1200, load=cap + 5, house=True) for i in range(3)]
    pairs = pair_entries([Entry(1, 1, 1200), *bots], house_load_cap=cap, rng=random.Random(1))
    assert len(pairs) == 1 and 1 in {pairs[0][0].id, pairs[0][1].id}


def test_a_rematch_only_when_it_is_the_only_pairing_left_and_after_the_cool_down() -> None:
    cooldown_s = 120.0
    # 1 and 2 last played each other 10 s ago; 3 is free: 1 or 2 meets 3, no rematch.
    a = Entry(1, 1, 1200, opponents=(2,), idle_s=200.0)
    b = Entry(2, 2, 1200, opponents=(1,), idle_s=200.0)
    c = Entry(3, 3, 1700)
    pairs = pair_entries([a, b, c], rematch_cooldown_s=cooldown_s, rng=random.Random(2))
    assert len(pairs) == 1 and 3 in {pairs[0][0].id, pairs[0][1].id}
    # Only the two of them: a rematch once the cool-down has passed, not before.
    assert pair_entries([a, b], rematch_cooldown_s=cooldown_s) != []
    early = [a._replace(idle_s=10.0), b._replace(idle_s=10.0)]
    assert pair_entries(early, rematch_cooldown_s=cooldown_s) == []
    # One side played someone else since: only the side still facing its last opponent waits.
    other_since = [a._replace(idle_s=10.0), b._replace(opponents=(4, 1), idle_s=10.0)]
    assert pair_entries(other_since, rematch_cooldown_s=cooldown_s) == []
    ready = [a._replace(idle_s=130.0), b._replace(opponents=(4, 1), idle_s=10.0)]
    assert len(pair_entries(ready, rematch_cooldown_s=cooldown_s)) == 1


def _agent_page(submission: Any) -> str:
    from django.test import Client

    page = Client().get(f"/submissions/agents/{submission.agent_id}/").content.decode()
    return page.split('id="ladder-wait"')[1].split("</div>")[0]


@pytest.mark.django_db
def test_the_agent_page_and_the_api_say_why_an_active_agent_waits(settings: Any) -> None:
    """A lone user with the simple-card house bots: every bot played it last, so it waits for
    the rematch cool-down, and the page says until when; then it is paired again."""
    from datetime import timedelta

    from arena.accounts.models import User
    from arena.catalog.services import demo_data_load
    from arena.matches.models import Match
    from arena.ratings.models import Rating
    from arena.submissions.models import Submission
    from arena.workflows.ladder import matchmaking_run
    from django.test import Client
    from django.utils import timezone

    from tests.arena.ratings.test_ladder import make_entries

    settings.ARENA_REMATCH_COOLDOWN_S = 600.0
    demo_data_load()
    (mine,) = make_entries("simple-card", 1)
    bots = list(
        Rating.objects.filter(game="simple-card", submission__house_bot__gt="").order_by("id")
    )
    # Every bot's last opponent is mine (and they rested for the day); mine last met the first.
    now = timezone.now()
    for bot in bots:
        bot.recent_opponents, bot.last_played = [mine.pk], now - timedelta(seconds=60)
        bot.recent_load = settings.ARENA_HOUSE_GAMES_PER_DAY + 1
        bot.save()
    Rating.objects.filter(submission=mine).update(
        recent_opponents=[bots[0].submission_id], last_played=now - timedelta(seconds=60)
    )
    assert [m for m in matchmaking_run() if m.game == "simple-card"] == []
    text = _agent_page(mine)
    assert "your only possible opponents played you last" in text
    assert "a rematch is allowed after" in text
    owner = User.objects.get(pk=mine.agent.owner_id)
    owner.set_password("pw-owner-123")
    owner.save()
    client = Client()
    token = client.post(
        "/api/token",
        {"username": owner.username, "password": "pw-owner-123"},
        content_type="application/json",
    ).json()["token"]
    detail = client.get(f"/api/submissions/{mine.pk}", HTTP_AUTHORIZATION=f"Token {token}").json()
    assert detail["ladder"]["state"] == "rematch-cooldown" and detail["ladder"]["until"]

    # The cool-down has passed: the rematch is the only pairing left, and it is made.
    Rating.objects.filter(game="simple-card").update(
        last_played=now - timedelta(seconds=settings.ARENA_REMATCH_COOLDOWN_S + 1)
    )
    assert "waiting for the next matchmaking pass" in _agent_page(mine)
    (match,) = [m for m in matchmaking_run() if m.game == "simple-card"]
    assert mine.pk in set(match.participants.values_list("submission_id", flat=True))
    # The first pass queued the other games' house-v-house matches before it.
    ahead = Match.objects.filter(kind="ranked", status="queued", pk__lt=match.pk).count()
    assert ahead > 0
    assert f"ranked match #{match.pk} queued behind {ahead} matches" in _agent_page(mine)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    assert f"in a ranked match now (#{match.pk})" in _agent_page(mine)
    Submission.objects.filter(pk=mine.pk).update(active=False)
    assert "Not active" in _agent_page(mine)


@pytest.mark.django_db
def test_the_ladder_wait_is_told_its_match_in_flight() -> None:
    """The match in flight comes in as an argument: read with a page's versions (the
    annotations) or on its own, it is the same match; given it, the wait asks nothing more."""
    from arena.matches.models import Match
    from arena.matches.services import match_create
    from arena.ratings.waits import annotated_flight, ladder_wait, ranked_flight, ranked_flight_of
    from arena.submissions.models import Submission
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.arena.ratings.test_ladder import make_entries

    a, b = make_entries("chess", 2)
    assert ranked_flight_of(a) is None
    assert annotated_flight(Submission.objects.annotate(**ranked_flight()).get(pk=a.pk)) is None
    match = match_create(kind=Match.Kind.RANKED, submissions=[a, b])
    with_versions = annotated_flight(Submission.objects.annotate(**ranked_flight()).get(pk=a.pk))
    alone = ranked_flight_of(a)
    assert with_versions is not None and alone is not None
    assert with_versions.pk == alone.pk == match.pk
    assert with_versions.status == alone.status == Match.Status.QUEUED
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    running = Submission.objects.annotate(**ranked_flight()).get(pk=a.pk)
    flight = annotated_flight(running)
    with CaptureQueriesContext(connection) as ctx:
        wait = ladder_wait(submission=running, flight=flight)
    assert (wait.state, wait.match_id, len(ctx.captured_queries)) == ("playing", match.pk, 0)
    # A submission read without the annotations has no match in flight to give: said, not
    # taken for "none".
    with pytest.raises(TypeError, match="ranked_flight"):
        annotated_flight(Submission.objects.get(pk=a.pk))


@pytest.mark.django_db
def test_an_agent_alone_on_its_ladder_says_so() -> None:
    from tests.arena.ratings.test_ladder import make_entries

    (alone,) = make_entries("bulls-and-cows", 1)
    assert "no other owner&#x27;s agent is active on this ladder yet" in _agent_page(alone)


@pytest.mark.django_db
def test_the_agent_page_says_when_its_free_opponents_played_it_last_and_the_rest_are_busy(
    settings: Any,
) -> None:
    """Two house bots are in a match together and the other two played the agent last: it waits
    for the cool-down, and the page says the others are busy. Then every bot is busy."""
    from datetime import timedelta

    from arena.catalog.services import demo_data_load
    from arena.matches.models import Match
    from arena.matches.services import match_create
    from arena.ratings.models import Rating
    from django.utils import timezone

    from tests.arena.ratings.test_ladder import make_entries

    settings.ARENA_REMATCH_COOLDOWN_S = 600.0
    demo_data_load()
    (mine,) = make_entries("simple-card", 1)
    bots = list(
        Rating.objects.filter(game="simple-card", submission__house_bot__gt="").order_by("id")
    )
    assert len(bots) == 4
    now = timezone.now()
    for bot in bots:
        bot.recent_opponents, bot.last_played = [mine.pk], now - timedelta(seconds=60)
        bot.save()
    Rating.objects.filter(submission=mine).update(
        recent_opponents=[bots[2].submission_id], last_played=now - timedelta(seconds=60)
    )
    Match.objects.filter(kind=Match.Kind.RANKED).delete()
    match_create(kind=Match.Kind.RANKED, submissions=[bots[0].submission, bots[1].submission])
    text = _agent_page(mine)
    assert "the others are in a match now and the free ones played you last" in text, text
    assert "a rematch is allowed after" in text
    match_create(kind=Match.Kind.RANKED, submissions=[bots[2].submission, bots[3].submission])
    text = _agent_page(mine)
    assert "every possible opponent is in a match now" in text, text
