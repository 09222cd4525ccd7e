"""The judged games on the ladder as they are really played: in each of ``nil-recruitment``,
``nuclear-war`` and ``passcode`` a user's uploaded code agent (the game's starter, in the Docker
sandbox) and another user's model entrant (a model seat) are validated, enter the ranked ladder,
are paired by matchmaking and play a full-length ranked match on a real Celery worker, judged by
the operator's model. The judge and the entrant's model are ``devtools.fakemodel`` servers: real
HTTP, reached through the same client, slots, caps and ledger as any provider, and answering in
milliseconds (the real local model judges one match of each game in
``tests/arena/llm/test_judges_real_model.py``).

The fakes read what they are asked, so the outcome is decided and the ratings must move: the
judge commits to the side whose texts carry the entrant's mark, and the keeper, who answers
"no" to every question, is overheard by the entrant's model, which guesses the word. Checked:
the matches finished and rated, the ratings moved, the match page's replay shows every round's
verdict and reason (passcode: every word's keeper answers and the word), and the ledger holds
the judge's calls under the match (purpose ``judge``, no submission, the round they were asked
in) and the entrant's (purpose ``seat``, its submission)."""

from __future__ import annotations

import html
import itertools
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena_cli.submit_cmd import api_request, get_token, upload, wait_for_status
from devtools.fakemodel import FakeModel
from games.core import get_game_spec
from tests.e2e.conftest import Stack, http_get, platform_stack
from tests.e2e.ladder import HOUSE_OFF, PAIR, shell_result, shell_results
from tests.sandbox.conftest import require_docker

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.docker,
    pytest.mark.redis,
    pytest.mark.postgres,
    pytest.mark.slow,
]

#: Each judged game and its judge's role (the replay's frames name it).
GAMES = {"nil-recruitment": "athlete", "nuclear-war": "president", "passcode": "keeper"}
#: Every ranked match plays the default config: six rounds (passcode: six words).
ROUNDS = 6
#: What the entrant's model writes in every pitch and argument: the judge looks for it.
MARK = "ENTRANT-MARK"

#: The operator registers the judge's model and the model users may enter (both fakes); each
#: game gets a code author and an entrant's owner.
REGISTER = """
from arena.accounts.models import User
from arena.llm.models import LanguageModel
for name, url in (("fake-judge", {judge!r}), ("fake-entrant", {entrant!r})):
    LanguageModel.objects.create(
        name=name, display_name=name, base_url=url, model_id=name, requests_per_minute=100_000,
        price_input_per_mtok_usd=1, price_output_per_mtok_usd=1,
    )
for game in {games!r}:
    for who in ("coder", "owner"):
        User.objects.create_user(f"{{who}}-{{game}}", password=f"pw-{{who}}-{{game}}-123")
print("RESULT=0")
"""

#: The ledger of each match: purpose, paying submission, seat, round, outcome, answer.
LEDGER = """
import json
from arena.llm.models import ModelCall
rows = ModelCall.objects.filter(match_id__in={ids!r}).order_by("pk")
print("RESULT=" + json.dumps([
    [r.match_id, r.purpose, r.submission_id, r.seat, r.round, r.outcome, r.text] for r in rows
]))
"""

#: One quoted text in a judge's request (``games.core.judge.JudgeRequest.user_prompt``).
_ITEM = re.compile(r"\b([AB])'s \w+ \([^)]*\) from [AB]:\n(`{3,})text\n(.*?)\n\2", re.DOTALL)
_WORD = re.compile(r"The secret word is: ([a-z]+)\.")


class Models:
    """The judge's and the entrant's fake models, and what the judge let slip (the word)."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.verdicts = itertools.count(1)

    @staticmethod
    def schema(body: dict[str, Any]) -> dict[str, Any]:
        fmt = body.get("response_format") or {}
        return dict(fmt.get("json_schema", {}).get("schema") or fmt.get("schema") or {})

    def judge(self, body: dict[str, Any]) -> str:
        """The athlete, the president, the keeper."""
        props = self.schema(body).get("properties", {})
        system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
        if "answer" in props:
            found = _WORD.search(system)
            if found:
                self.words.append(found.group(1))
            return json.dumps({"answer": "no"})
        if "question" in props:
            return json.dumps({"question": "What will you do for me that the other will not?"})
        marked = {label for label, _, text in _ITEM.findall(user) if MARK in text}
        label = "A" if marked == {"A"} else "B" if marked == {"B"} else "A"
        return json.dumps(
            {"commit": label, "reason": f"verdict {next(self.verdicts)}: {label} spoke to me"}
        )

    def entrant(self, body: dict[str, Any]) -> str:
        """The model entrant: a marked text, a question, the overheard word."""
        types = self.schema(body).get("properties", {}).get("type", {}).get("enum", [])
        if "guess" in types:
            word = self.words[-1] if self.words else ""
            return json.dumps({"type": "guess", "text": word} if word else {"type": "pass"})
        if "question" in types:
            return json.dumps({"type": "question", "text": "Can you hold it in one hand?"})
        return json.dumps({"type": types[0] if types else "pitch", "text": f"{MARK}: choose us"})


@pytest.fixture(scope="module")
def judged_stack() -> Iterator[tuple[Stack, Models]]:
    """The platform in Docker with both fakes registered and the fake judge named for every
    judged game. Matchmaking's beat is left to its hour: the test runs the pass itself once the
    agent and the entrant are the only entries on each ladder."""
    require_docker()
    models = Models()
    with (
        FakeModel(default=("reply", models.judge)) as judge,
        FakeModel(default=("reply", models.entrant)) as entrant,
        platform_stack(
            ARENA_SANDBOX_BACKEND="docker",
            ARENA_ALLOW_PROCESS_SANDBOX="0",
            ARENA_MATCHMAKING_INTERVAL_S="3600",
            ARENA_JUDGE_MODEL="fake-judge",
        ) as stack,
    ):
        shell_result(
            stack.env,
            REGISTER.format(judge=judge.base_url, entrant=entrant.base_url, games=sorted(GAMES)),
        )
        yield stack, models


def replay_of(stack: Stack, match_id: int) -> dict[str, Any]:
    """The replay the match page carries for anyone (its ``replay-data`` script)."""
    status, body, _ = http_get(f"{stack.url}/matches/{match_id}/", timeout_s=60)
    assert status == 200
    found = re.search(
        r'<script id="replay-data" type="application/json">(.*?)</script>', body.decode(), re.S
    )
    assert found, "the match page has no replay"
    replay: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return replay


def frame_texts(replay: dict[str, Any]) -> list[tuple[str, str]]:
    """Each frame's label and its widgets as JSON text (``Replay.packed``: a frame is
    ``[round, label, seq, widget ids]``, the widgets pooled)."""
    pool = replay["widgets"]
    return [
        (str(label), json.dumps([pool[i] for i in ids])) for _, label, _, ids in replay["frames"]
    ]


def test_a_code_agent_and_a_model_entrant_play_ranked_judged_matches(
    judged_stack: tuple[Stack, Models], tmp_path: Path
) -> None:
    stack, _ = judged_stack
    started = time.monotonic()
    code: dict[str, dict[str, Any]] = {}
    entrants: dict[str, dict[str, Any]] = {}
    tokens: dict[str, tuple[str, str]] = {}
    for game in GAMES:
        coder = get_token(stack.url, f"coder-{game}", f"pw-coder-{game}-123")
        owner = get_token(stack.url, f"owner-{game}", f"pw-owner-{game}-123")
        tokens[game] = (coder, owner)
        starter = tmp_path / f"{game}.py"
        starter.write_text(get_game_spec(game).starter_source())
        code[game] = upload(stack.url, coder, starter, name="starter")
        entrants[game] = api_request(
            stack.url,
            "POST",
            "/api/model-entrants",
            token=owner,
            body={"model": "fake-entrant", "game": game, "name": "fake", "temperature": 0},
        )
    # Validated (self-play, the game's scripted judge), then on the ranked ladder.
    for game, (coder, owner) in tokens.items():
        for token, sub in ((coder, code[game]), (owner, entrants[game])):
            done = wait_for_status(stack.url, token, sub["id"], timeout_s=300)
            assert done["status"] == "accepted", (game, done["detail"])
            api_request(stack.url, "POST", f"/api/submissions/{sub['id']}/activate", token=token)

    # One matchmaking pass per ladder: the only pair left is the agent and the entrant (one
    # shell for all: each start of Django takes seconds on a loaded host).
    script = "".join(HOUSE_OFF.format(game=g) + PAIR.format(game=g) for g in GAMES)
    results = shell_results(stack.env, script)
    matches: dict[str, int] = {}
    for game, off, paired in zip(GAMES, results[::2], results[1::2], strict=True):
        assert off > 0 and len(paired) == 1, (game, off, paired)
        matches[game] = paired[0]

    shown: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + 300
    for game, match_id in matches.items():
        while True:
            shown[game] = api_request(stack.url, "GET", f"/api/matches/{match_id}")
            if shown[game]["status"] in ("finished", "error") or time.monotonic() > deadline:
                break
            time.sleep(1)
    took = time.monotonic() - started
    print(f"judged ranked e2e: from the uploads to three finished matches in {took:.0f} s")

    ledger = shell_result(stack.env, LEDGER.format(ids=sorted(matches.values())))
    for game, role in GAMES.items():
        match, match_id = shown[game], matches[game]
        assert match["status"] == "finished", (game, match["error"])
        assert match["kind"] == "ranked"
        seats = {p["submission"]: p for p in match["participants"]}
        ours, theirs = seats[entrants[game]["id"]], seats[code[game]["id"]]
        # Rated: both moved from 1200, the entrant (whom the judge favoured) up.
        assert ours["rating_before"] == theirs["rating_before"] == 1200
        assert ours["rating_after"] > 1200 > theirs["rating_after"], (game, match["participants"])
        assert {p["reason"] for p in match["participants"]} == {"normal"}

        rows = [r for r in ledger if r[0] == match_id]
        judged = [r for r in rows if r[1] == "judge"]
        seat = [r for r in rows if r[1] == "seat"]
        assert {r[1] for r in rows} == {"judge", "seat"}, game
        assert all(r[2] is None and r[5] == "answered" for r in judged)
        # Every round's calls are kept under their round.
        assert {r[4] for r in judged} == set(range(1, ROUNDS + 1)), game
        assert seat and all(r[2] == entrants[game]["id"] and r[5] == "answered" for r in seat)

        frames = frame_texts(replay_of(stack, match_id))
        labels = [label for label, _ in frames]
        if game == "passcode":
            for word in range(1, ROUNDS + 1):
                assert any(lb.startswith(f"word {word}: the keeper answers") for lb in labels)
                ended = [t for lb, t in frames if re.fullmatch(rf"word {word}: [a-z]+", lb)]
                assert ended and "Can you hold it in one hand?" in ended[0], (word, labels)
            continue
        verdicts = [json.loads(r[6]) for r in judged if '"commit"' in r[6]]
        assert len(verdicts) == ROUNDS
        for number in range(1, ROUNDS + 1):
            decided = [t for lb, t in frames if lb == f"round {number}: the {role} decides"]
            assert decided, (number, labels)
            assert any(lb == f"round {number}: the {role} asks" for lb in labels)
        # Each verdict's reason, as the ledger holds the judge's answer, is on the page.
        page = json.dumps([t for _, t in frames])
        assert all(json.dumps(v["reason"])[1:-1] in page for v in verdicts)
