"""Helper process for test_elo_race: ``setup`` creates one agent with two ranked matches;
``apply MATCH_ID HOLD_S [MARKER]`` plays a match and records it, holding its transaction open for
HOLD_S seconds after the rating update so that the other process collides with it; MARKER, a file
it creates once it holds the rating rows (the test starts the other process then)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import django

django.setup()

from arena.accounts.models import User  # noqa: E402
from arena.matches.models import Match, Participant  # noqa: E402
from arena.matches.sandboxing import make_handle  # noqa: E402
from arena.ratings.services import rating_ensure  # noqa: E402
from arena.submissions.services import house_submission_ensure  # noqa: E402
from arena.workflows.matches import match_record  # noqa: E402
from django.db import transaction  # noqa: E402

from games.core import MatchSettings, play_match  # noqa: E402


def setup() -> None:
    User.objects.create_user("racer")
    # A house bot stands in for the agent under test: no sandbox needed for this race.
    mine = house_submission_ensure(game="simple-card", bot="highest", active=True)
    opponents = [
        house_submission_ensure(game="simple-card", bot=b, active=True)
        for b in ("lowest", "random")
    ]
    ids = []
    for seat_one in opponents:
        for s in (mine, seat_one):
            rating_ensure(submission=s)
        match = Match.objects.create(game="simple-card", game_version=1, kind="ranked", seed=7)
        Participant.objects.create(match=match, seat=0, submission=mine)
        Participant.objects.create(match=match, seat=1, submission=seat_one)
        ids.append(match.pk)
    print(json.dumps({"matches": ids, "agent": mine.pk}))


def apply(match_id: int, hold_s: float, marker: str = "") -> None:
    match = Match.objects.get(pk=match_id)
    handles = [make_handle(p.submission) for p in match.participants.order_by("seat")]
    record = play_match("simple-card", handles, seed=match.seed, settings=MatchSettings())
    Match.objects.filter(pk=match_id).update(status="running")
    with transaction.atomic():
        match_record(match_id=match_id, record=record)
        if marker:
            Path(marker).touch()
        time.sleep(hold_s)  # keep the rating rows locked while the other process wants them


if __name__ == "__main__":
    if sys.argv[1] == "setup":
        setup()
    else:
        apply(int(sys.argv[2]), float(sys.argv[3]), *sys.argv[4:5])
