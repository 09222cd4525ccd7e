"""A 16-entrant tournament on a real Celery worker that is killed in the middle.

Redis + PostgreSQL, beat apart (as in deploy/), a worker consuming ``matches,tournament,celery``,
the docker sandbox; sixteen users each enter simple-card's starter agent. A Swiss of 4 rounds
(one game a pairing: 32 matches) starts at its freeze; once games are being
played the whole worker is SIGKILLed mid-match (and restarted, as an operator would), later a
pool child. The tournament must still end and publish: every pairing played exactly once (each
game by exactly one match, none left unfinished, attempts within the cap), the published
standings equal what the match results imply. Once every game is over the results stay hidden
from the public until the publish time staff set (a few seconds ahead), and come out then.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import pytest

from devtools.parts import manage
from tests.conftest import require_part
from tests.e2e.ladder import Worker
from tests.e2e.test_fault_injection import (
    IMAGE,
    KILLED_WORKER_RECOVERY,
    _broker,
    _docker_ready,
    _removing_leftovers,
)

ENTRANTS = 16
ROUNDS = 4
#: One game a pairing keeps the run short (duplicate seats are covered by the platform tests).
GAMES_PER_PAIRING = 1
#: Once every game is over, staff set the publish time this far ahead; the results must stay
#: hidden until then and come out at (or just after) it.
PUBLISH_IN_S = 5
SETTLE_S = 600.0

SETUP = """
import json
from datetime import timedelta
from django.utils import timezone
from arena.accounts.models import User
from arena.submissions.models import Submission
from arena.submissions.services import submission_create
from arena.tournaments.services import entry_create, tournament_create
from games.core import get_game_spec
# The starter, thinking a little each turn: every game lasts long enough for the test to see one
# running (and to kill the worker in the middle of it) on a fast, idle machine too.
source = get_game_spec("simple-card").starter_source() + (
    "\\n\\n_Starter = Agent\\n\\n\\nclass Agent(_Starter):\\n    GAME = 'simple-card'\\n\\n"
    "    def on_turn(self, round_state):\\n        import time\\n        time.sleep(0.4)\\n"
    "        return super().on_turn(round_state)\\n"
)
# No passwords: nobody signs in, and hashing 17 of them takes long on a loaded machine.
staff = User.objects.create(username="organiser", is_staff=True)
now = timezone.now()
t = tournament_create(
    created_by=staff, name="Kill test cup", game="simple-card",
    entry_opens=now - timedelta(minutes=1), entry_closes=now + timedelta(hours=1),
    freeze_at=now + timedelta(hours=1), publish_at=now + timedelta(hours=2),
    format="swiss", swiss_rounds={rounds}, games_per_pairing={games}, duplicate_seats=False,
)
for i in range({entrants}):
    user = User.objects.create(username=f"entrant{{i}}")
    s = submission_create(owner=user, source=source, name=f"agent{{i}}")
    # Validation is not under test here: accept directly.
    Submission.objects.filter(pk=s.pk).update(status="accepted", status_detail="test")
    entry_create(user=user, tournament_id=t.pk, agent_id=s.agent_id)
# Everyone has entered: the window closes and the versions freeze now (a loaded machine may
# take many seconds over the set-up); the results wait for the publish time, hours away.
now = timezone.now()
type(t).objects.filter(pk=t.pk).update(entry_closes=now, freeze_at=now)
print(json.dumps({{"id": t.pk}}))
"""

STATE = """
import json
from django.utils import timezone
from arena.matches.models import Match
from arena.tournaments.models import Tournament
from arena.tournaments.selectors import tournament_as_dict
t = Tournament.objects.get(pk={id})
public = tournament_as_dict(t, None)
print(json.dumps({{
    "status": t.status,
    "before_publish_time": timezone.now() < t.publish_at,
    "public_sees_results": "standings" in public,
    "finished": Match.objects.filter(kind="tournament", status="finished").count(),
    "running": Match.objects.filter(kind="tournament", status="running").count(),
}}))
"""

REPORT = """
import json
from collections import Counter
from django.db.models import Count
from arena.matches.models import Match
from arena.tournaments.models import TournamentGame, Pairing, Tournament
from arena.tournaments.selectors import tournament_as_dict
from arena.tournaments.standings import GameResult, points_of, standings_compute
t = Tournament.objects.get(pk={id})
pairings = Pairing.objects.filter(tournament=t)
games = TournamentGame.objects.filter(pairing__tournament=t).select_related("match")
matches = Match.objects.filter(kind="tournament")
results, seats_played = [], Counter()
for g in games:
    p = {{x.seat: points_of(x.outcome) for x in g.match.participants.all()}}
    results.append(GameResult(g.seat0_id, g.seat1_id, p[0], p[1]))
byes = Counter(pairings.filter(second__isnull=True).values_list("first_id", flat=True))
entries = list(t.entries.filter(dropped="").values_list("pk", flat=True))
implied = standings_compute(entries, results, byes=byes, bye_points=t.games_per_pairing)
published = tournament_as_dict(t, None)
print(json.dumps({{
    "status": t.status,
    "rounds": sorted(set(pairings.values_list("round", flat=True))),
    "pairings": pairings.filter(second__isnull=False).count(),
    "distinct_pairs": len(set(pairings.filter(second__isnull=False).values_list("key", flat=True))),
    "games": games.count(),
    "games_without_match": games.filter(match__isnull=True).count(),
    "void": games.filter(void=True).count(),
    "tournament_matches": matches.count(),
    "matches_not_of_a_game": matches.filter(tournament_game__isnull=True).count(),
    "by_status": dict(matches.values_list("status").annotate(n=Count("id"))),
    "rated": matches.filter(rated=True).count(),
    "max_attempts": max(list(matches.values_list("attempts", flat=True)) or [0]),
    "replayed": matches.filter(attempts__gt=1).count(),
    "published_at_or_after_publish_time": bool(t.published and t.published >= t.publish_at),
    "published_late_s": (t.published - t.publish_at).total_seconds() if t.published else None,
    "standings_published": [[r["entry"], r["score"]] for r in published.get("standings", [])],
    "standings_implied": [[r.entrant, r.score] for r in implied],
    "public_matches": matches.filter(public_from__isnull=False).count(),
}}))
"""


PUBLISH_SOON = """
from datetime import timedelta
from django.utils import timezone
from arena.tournaments.models import Tournament
Tournament.objects.filter(pk={id}).update(publish_at=timezone.now() + timedelta(seconds={seconds}))
"""


def _shell(env: dict[str, str], code: str) -> dict[str, object]:
    out = manage(env, "shell", "-c", code, timeout_s=300).strip().splitlines()[-1]
    return json.loads(out)


def _wait(env: dict[str, str], tid: int, what: str, check, timeout_s: float) -> dict:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    state = _shell(env, STATE.format(id=tid))
    while not check(state):
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout_s} s for {what}; last state {state}")
        time.sleep(1.0)
        state = _shell(env, STATE.format(id=tid))
    return state


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.docker
@pytest.mark.redis
@pytest.mark.postgres
def test_a_tournament_survives_a_killed_worker_and_publishes_on_time() -> None:
    require_part(_docker_ready(), f"a Docker engine with the {IMAGE} image (make image)")
    var = Path(tempfile.mkdtemp(prefix="arena-tournament-"))
    with _broker("redis", var) as env, _removing_leftovers(env["ARENA_INSTANCE_ID"]):
        env.update(
            KILLED_WORKER_RECOVERY, ARENA_TOURNAMENT_TICK_S="1", ARENA_TOURNAMENT_IN_FLIGHT="2"
        )
        manage(env, "migrate", "-v0")
        tid = int(
            _shell(
                env,
                SETUP.format(
                    entrants=ENTRANTS,
                    rounds=ROUNDS,
                    games=GAMES_PER_PAIRING,
                ),
            )["id"]  # type: ignore[call-overload]
        )
        worker = Worker(env, var)  # every queue of its instance, the tournament's too
        beat = worker.beat()
        worker.start()
        began = time.monotonic()
        try:
            # Mid-way: some games over, one running; then the whole worker dies.
            state = _wait(
                env,
                tid,
                "a few games finished and one running",
                lambda s: s["finished"] >= 4 and s["running"] >= 1,
                300,
            )
            assert state["before_publish_time"] and not state["public_sees_results"], state
            worker.kill_all()
            time.sleep(1.0)
            worker.start()  # the operator restarts it
            state = _wait(env, tid, "play to resume", lambda s: s["finished"] >= 14, 300)
            killed_child = worker.kill_child(1)
            state = _wait(
                env, tid, "every game to be over", lambda s: s["status"] == "finished", SETTLE_S
            )
            # Over, but the publish time is ahead: the public sees no result yet.
            assert state["before_publish_time"] and not state["public_sees_results"], state
            manage(env, "shell", "-c", PUBLISH_SOON.format(id=tid, seconds=PUBLISH_IN_S))
            state = _wait(
                env, tid, "the results to be published", lambda s: s["status"] == "published", 120
            )
        finally:
            worker.stop()
            beat.terminate()
            beat.wait(timeout=30)
        report = _shell(env, REPORT.format(id=tid))
        report.update(seconds=round(time.monotonic() - began), killed_child=killed_child)
        print("TOURNAMENT-E2E", json.dumps(report))
        expected_pairings = ROUNDS * ENTRANTS // 2
        assert report["rounds"] == list(range(1, ROUNDS + 1))
        assert report["pairings"] == report["distinct_pairs"] == expected_pairings
        assert report["games"] == expected_pairings * GAMES_PER_PAIRING
        assert report["games_without_match"] == 0 and report["void"] == 0
        # Exactly once: one match per game, every one finished, none extra.
        assert report["tournament_matches"] == report["games"]
        assert report["matches_not_of_a_game"] == 0
        assert report["by_status"] == {"finished": report["games"]}
        assert report["max_attempts"] <= 3
        assert report["rated"] == 0
        assert report["standings_published"] == report["standings_implied"]
        assert report["published_at_or_after_publish_time"] is True
        assert report["public_matches"] == report["games"]
