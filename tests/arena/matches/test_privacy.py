"""What someone other than a seat's owner sees of a ranked match, on every read path.

Real matches (process sandbox, real referee and games) read back through the real views with
Django's test client: as an anonymous visitor and as another plain user, nobody sees an agent's
exception text, traceback, source lines or prints, a poker hand's mucked hole cards or liar's
dice hidden dice, through the API (match, log download), the match page or the per-call state
pages. The owner still reads all of it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from games.core import get_game_spec
from tests.arena.conftest import house_match, stored_call

pytestmark = pytest.mark.django_db

SECRET_SOURCE = """
class Agent:
    GAME = "simple-card"

    def on_turn(self, round_state):
        print("printed-secret-42")
        raise RuntimeError("exception-secret-" + "hunter2")  # source-line-secret
"""
#: Strings from the agent above that only its owner may read.
SECRETS = ("printed-secret-42", "exception-secret-hunter2", "source-line-secret", "Traceback")


def login(make_user: Any, name: str) -> Client:
    make_user(name)
    client = Client()
    assert client.login(username=name, password=f"pw-{name}-123")
    return client


def ranked_match(owner: Any, source: str, bot: str, config: dict[str, Any] | None = None) -> Any:
    from arena.matches.models import Match
    from arena.matches.services import match_create
    from arena.submissions.models import Submission
    from arena.submissions.services import house_submission_ensure, submission_create
    from arena.workflows.matches import match_run

    mine = submission_create(owner=owner, source=source)
    Submission.objects.filter(pk=mine.pk).update(status="accepted")
    mine.refresh_from_db()
    house = house_submission_ensure(game=mine.agent.game, bot=bot)
    match = match_create(kind="ranked", submissions=[mine, house], seed=7)
    if config:
        Match.objects.filter(pk=match.pk).update(config=config)
    match_run(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == "finished", match.error
    return match


def alice_starter_ranked(
    make_user: Any, game: str, bot: str, config: dict[str, Any]
) -> tuple[Client, Any]:
    """Alice, signed in, and the ranked match her ``game`` starter agent played against ``bot``."""
    from arena.accounts.models import User

    client = login(make_user, "alice")
    source = get_game_spec(game).starter_source()
    return client, ranked_match(User.objects.get(username="alice"), source, bot, config)


def every_path(client: Client, match_id: int, seqs: list[int]) -> Iterator[tuple[str, str]]:
    """(url, body) of every read path of a match."""
    for url in (
        f"/api/matches/{match_id}",
        f"/api/matches/{match_id}/log",
        f"/matches/{match_id}/",
        *(f"/matches/{match_id}/events/{seq}/" for seq in seqs),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        yield url, response.content.decode()


def api_log(client: Client, match_id: int) -> list[dict[str, Any]]:
    body = client.get(f"/api/matches/{match_id}/log").content.splitlines()
    return [json.loads(line) for line in body]


@pytest.fixture
def viewers(make_user: Any) -> dict[str, Client]:
    return {"anonymous": Client(), "bob": login(make_user, "bob")}


def test_exception_texts_tracebacks_and_prints_stay_with_the_owner(
    make_user: Any, viewers: dict[str, Client], settings: Any
) -> None:
    settings.ARENA_RANKED_PRINTS_RETENTION_DAYS = 7  # keep prints, so hiding them is tested
    alice = login(make_user, "alice")
    from arena.accounts.models import User

    match = ranked_match(User.objects.get(username="alice"), SECRET_SOURCE, "random")
    own = api_log(alice, match.pk)
    owned_text = json.dumps(own) + alice.get(f"/api/matches/{match.pk}").content.decode()
    for secret in SECRETS:
        assert secret in owned_text, f"the owner should read {secret!r}"
    seqs = [e["seq"] for e in own]
    for who, client in viewers.items():
        for url, body in every_path(client, match.pk, seqs):
            for secret in SECRETS:
                assert secret not in body, f"{who} reads {secret!r} at {url}"
        shown = client.get(f"/api/matches/{match.pk}").json()
        seat0 = shown["participants"][0]
        assert seat0["reason"] == "illegal"
        assert seat0["detail"] == "the agent made illegal actions until its retries ran out"
    # The opponent's agent was told a neutral reason too (its own log, read by staff).
    told = [e for e in own if e["method"] == "on_match_end" and e["seat"] == 1]
    assert told[0]["payload"]["reason"] == "illegal: the opponent's agent raised an exception"


def _cards(result: dict[str, Any]) -> str:
    return " ".join(result["your_cards"])


@pytest.mark.slow  # over 30 s on two busy cores: out of make test-fast
def test_mucked_hole_cards_are_never_shown_to_others(
    make_user: Any, viewers: dict[str, Client]
) -> None:
    alice_client, match = alice_starter_ranked(make_user, "poker", "hand-strength", {"hands": 16})
    mucked = [r for r in match.rounds if not r["result"]["p0"]["showdown"]]
    shown_down = [r for r in match.rounds if r["result"]["p0"]["showdown"]]
    assert mucked and shown_down, "the seed should give both folded and shown-down hands"
    own = api_log(alice_client, match.pk)
    assert all(
        e["payload"]["your_cards"] for e in own if e["seat"] == 0 and e["method"] == "on_turn"
    ), "the owner sees their own cards in every hand"
    seqs = [e["seq"] for e in own]
    for who, client in viewers.items():
        log = api_log(client, match.pk)
        showdown_rounds = {r["round"] for r in shown_down}
        for e in log:
            payload = e.get("payload") or {}
            if e["method"] == "on_turn":
                if e["round"] in showdown_rounds:
                    assert payload["your_cards"], f"{who}: cards shown down are public"
                else:
                    assert payload["your_cards"] is None, f"{who} sees mucked cards at {e['seq']}"
                history = payload.get("history")
                for hand in history if isinstance(history, list) else []:  # a long one is cut
                    if not hand["showdown"]:
                        assert hand["your_cards"] is None, f"{who}: mucked cards in history"
            if e["method"] == "on_round_end" and not payload["showdown"]:
                assert payload["your_cards"] is None, f"{who}: mucked cards in a hand result"
        rounds = client.get(f"/api/matches/{match.pk}").json()["rounds"]
        for r in rounds:
            for view in r["result"].values():
                if not view["showdown"]:
                    assert view["your_cards"] is None, f"{who}: mucked cards in the match's rounds"
        page = client.get(f"/matches/{match.pk}/").content.decode()
        # Duplicate poker deals hands 2k-1 and 2k alike: cards shown down in one are public.
        public = {_cards(r["result"][pid]) for r in shown_down for pid in ("p0", "p1")}
        for r in mucked:
            for pid in ("p0", "p1"):
                if _cards(r["result"][pid]) in public:
                    continue
                assert f"<code>{_cards(r['result'][pid])}</code>" not in page, (
                    f"{who} sees the mucked hand {r['round']} on the match page"
                )
        for seq in seqs:
            state = client.get(f"/matches/{match.pk}/events/{seq}/").content.decode()
            entry = own[seq]
            if entry["seat"] == 0 and entry["method"] == "on_turn":
                round_no = entry["round"]
                cards = entry["payload"]["your_cards"]
                if round_no not in showdown_rounds and " ".join(cards) not in public:
                    assert f"&quot;{cards[0]}&quot;,\n  &quot;{cards[1]}&quot;" not in state


def test_liars_dice_hidden_dice_show_only_as_challenges_reveal_them(
    make_user: Any, viewers: dict[str, Client]
) -> None:
    alice_client, match = alice_starter_ranked(make_user, "liars-dice", "random", {"rounds": 2})
    own = api_log(alice_client, match.pk)
    assert any(e.get("payload", {}) and e["payload"].get("your_dice") for e in own)
    for who, client in viewers.items():
        for e in api_log(client, match.pk):
            payload = e.get("payload") or {}
            if "your_dice" in payload:
                assert payload["your_dice"] is None, f"{who} sees hidden dice at {e['seq']}"
        for e in own:
            if e["method"] != "on_turn":
                continue
            state = client.get(f"/matches/{match.pk}/events/{e['seq']}/").content.decode()
            assert "your_dice&quot;: null" in state, f"{who}: dice on the state page {e['seq']}"


def test_staff_read_everything(make_user: Any) -> None:
    from arena.accounts.models import User

    make_user("alice")
    staff = User.objects.create_user(username="staff", password="pw-staff-123", is_staff=True)
    assert staff.is_staff
    client = Client()
    assert client.login(username="staff", password="pw-staff-123")
    match = ranked_match(User.objects.get(username="alice"), SECRET_SOURCE, "random")
    text = client.get(f"/api/matches/{match.pk}/log").content.decode()
    assert "exception-secret-hunter2" in text


def test_a_running_match_shows_others_the_public_view_only(
    make_user: Any, viewers: dict[str, Client]
) -> None:
    """Live rows (before the blob exists) go through the same public view."""
    from arena.matches.models import Match

    match = house_match("poker", "always-call", "raise-happy")
    Match.objects.filter(pk=match.pk).update(status="running")
    state = {"phase": "preflop", "round": 1, "your_cards": ["As", "Kd"], "history": []}
    stored_call(
        match,
        0,
        "on_turn",
        payload=state,
        error="Traceback: secret",
        action={"type": "call"},
    )
    for who, client in viewers.items():
        (entry,) = api_log(client, match.pk)
        assert entry["payload"]["your_cards"] is None, who
        assert entry["error"] is None and entry["failed"] is True, who
        assert entry["action"] == {"type": "call"}, who  # betting is public as it happens
        page = client.get(f"/matches/{match.pk}/events/0/").content.decode()
        assert "As" not in page and "secret" not in page, who


def test_the_time_each_call_took_is_public_and_the_page_says_so(
    make_user: Any, viewers: dict[str, Client]
) -> None:
    # The rule: prints, errors and refusal reasons are the owner's; timings are public, like a
    # chess clock (a live viewer sees how long each move took anyway). Page, API and log
    # download agree with each other and with what the page says.
    alice, match = alice_starter_ranked(make_user, "simple-card", "random", {})
    own = api_log(alice, match.pk)
    turns = [e for e in own if e["method"] == "on_turn"]
    assert turns and all(isinstance(e["elapsed_ms"], float) for e in turns)
    page = alice.get(f"/matches/{match.pk}/").content.decode()
    said = page.split('id="log-visibility"')[1].split("</p>")[0]
    assert "for your agent only" in said and "the time each call took is public" in said
    assert "timings are shown for your agent only" not in page
    for who, client in viewers.items():
        shown = {e["seq"]: e for e in api_log(client, match.pk)}
        for e in turns:  # the download: the same times for both seats
            assert shown[e["seq"]]["elapsed_ms"] == e["elapsed_ms"], (who, e["seat"])
        calls = client.get(f"/matches/{match.pk}/calls/").content.decode()
        for e in turns[:5]:  # the page's turn log
            row = calls.split(f'data-seq="{e["seq"]}"')[1].split("</tr>")[0]
            assert f'class="log-ms">{e["elapsed_ms"]:.1f}<' in row, (who, row)
        text = client.get(f"/matches/{match.pk}/").content.decode()
        said = text.split('id="log-visibility"')[1].split("</p>")[0]
        assert "the time each call took is public" in said, who


def test_the_model_calls_link_only_where_a_model_played_or_was_asked(make_user: Any) -> None:
    from arena.llm.models import LanguageModel, ModelCall, ModelEntrantConfig

    alice, match = alice_starter_ranked(make_user, "simple-card", "random", {})
    for client in (alice, Client()):
        page = client.get(f"/matches/{match.pk}/").content.decode()
        assert 'id="model-calls-link"' not in page and "Model calls" not in page
    model = LanguageModel.objects.create(
        name="fake", display_name="Fake", base_url="http://127.0.0.1:9/v1", model_id="fake"
    )
    seat = match.participants.get(seat=0)
    # A model seat (before it has made a call: a queued match)...
    entrant = ModelEntrantConfig.objects.create(
        submission=seat.submission, model=model, max_tokens=64
    )
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert 'id="model-calls-link"' in page and f"/llm/matches/{match.pk}/" in page
    entrant.delete()
    # ... or a model call of a code seat (or a judge) in the match's ledger.
    ModelCall.objects.create(
        match_id=match.pk, seat=0, submission=seat.submission, model=model, outcome="answered"
    )
    page = Client().get(f"/matches/{match.pk}/").content.decode()
    assert 'id="model-calls-link"' in page and f"/llm/matches/{match.pk}/" in page
