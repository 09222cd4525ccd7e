"""Match history and head-to-head: filters, keyset pages that cover every match once, who sees
which kinds, the head-to-head figures, and query counts that do not grow with the history."""

from __future__ import annotations

from datetime import timedelta

import pytest
from arena.accounts.models import User
from arena.matches.models import Match, Participant
from arena.ratings.models import Rating
from arena.submissions.models import Submission
from django.test import Client
from django.utils import timezone

from tests.arena.ratings.test_ladder import _queries, make_entries, play

pytestmark = pytest.mark.django_db


def unrated(kind: str, a: Submission, b: Submission, outcome_a: str, by: User) -> Match:
    other = {"win": "loss", "loss": "win", "draw": "draw"}[outcome_a]
    match = Match.objects.create(
        game=a.agent.game,
        game_version=a.game_version,
        kind=kind,
        status=Match.Status.FINISHED,
        seed=1,
        requested_by=by,
        finished=timezone.now(),
    )
    Participant.objects.create(
        match=match, seat=0, submission=a, outcome=outcome_a, reason="normal", detail="my secret"
    )
    Participant.objects.create(
        match=match, seat=1, submission=b, outcome=other, reason="crash", detail="their traceback"
    )
    return match


def login(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_pages_cover_every_match_once_and_filters_narrow_them() -> None:
    a, b, c = make_entries("simple-card", 3)
    played = [play(a, b if i % 2 else c, ("win", "loss", "draw")[i % 3]) for i in range(23)]
    api = Client()
    seen, before, pages = [], "", 0
    while True:
        page = api.get(f"/api/matches?agent={a.agent_id}&per_page=5{before}").json()
        seen += [r["match"] for r in page["matches"]]
        pages += 1
        if page["next_before"] is None:
            break
        before = f"&before={page['next_before']}"
    assert seen == sorted((m.pk for m in played), reverse=True) and pages == 5
    versus_b = api.get(f"/api/matches?agent={a.agent_id}&opponent={b.agent_id}").json()["matches"]
    assert {r["opponents"][0]["agent_id"] for r in versus_b} == {b.agent_id}
    assert len(versus_b) == 11
    wins = api.get(f"/api/matches?agent={a.agent_id}&result=win").json()["matches"]
    assert len(wins) == 8 and {r["outcome"] for r in wins} == {"win"}
    assert api.get(f"/api/matches?agent={a.agent_id}&kind=ranked").json()["matches"]
    Match.objects.filter(pk=played[0].pk).update(created=timezone.now() - timedelta(days=10))
    day = (timezone.now() - timedelta(days=10)).date().isoformat()
    old = api.get(f"/api/matches?agent={a.agent_id}&since={day}&until={day}").json()["matches"]
    assert [r["match"] for r in old] == [played[0].pk]
    bad = api.get(f"/api/matches?agent={a.agent_id}&kind=friendly")
    assert bad.status_code == 400 and "use one of" in bad.json()["error"]
    assert "challenge" in bad.json()["error"] and "validation" not in bad.json()["error"]
    assert api.get("/api/matches?agent=999999").status_code == 404
    # The page's filter form does the same.
    html = api.get(f"/agents/{a.agent_id}/matches/?result=win&kind=ranked").content.decode()
    assert html.count('data-outcome="win"') == 8 and 'data-outcome="loss"' not in html


def test_others_see_public_kinds_only_and_no_private_texts() -> None:
    a, b, c = make_entries("simple-card", 3)
    alice, bob, carol = (s.agent.owner for s in (a, b, c))
    ranked = play(a, b, "win")
    training = unrated("training", a, a, "draw", alice)
    challenge = unrated("challenge", b, a, "win", bob)

    def listed(client: Client) -> list[tuple[int, str]]:
        rows = client.get(f"/api/matches?agent={a.agent_id}").json()["matches"]
        return [(r["match"], r["kind"]) for r in rows]

    everything = [(challenge.pk, "challenge"), (training.pk, "training"), (ranked.pk, "ranked")]
    assert listed(login(alice)) == everything  # her own training vs itself listed once
    assert listed(login(bob)) == [(challenge.pk, "challenge"), (ranked.pk, "ranked")]
    assert listed(login(carol)) == [(ranked.pk, "ranked")]
    assert listed(Client()) == [(ranked.pk, "ranked")]
    # Bob reads the public facts of alice's seat, never its texts.
    row = login(bob).get(f"/api/matches?agent={b.agent_id}&kind=challenge").json()["matches"][0]
    assert row["detail"] == "my secret"  # his own seat
    assert row["opponents"][0]["reason"] == "crash" and "detail" not in row["opponents"][0]
    own = login(alice).get(f"/api/matches?agent={a.agent_id}&kind=challenge").json()["matches"]
    assert own[0]["detail"] == "their traceback"
    page = login(carol).get(f"/agents/{a.agent_id}/matches/").content.decode()
    assert "training" not in page.split("<tbody>")[1].split("</tbody>")[0]
    # Head-to-head: others count the public kinds only.
    public = Client().get(f"/api/agents/{a.agent_id}/head-to-head").json()["rows"]
    assert [(r["opponent_id"], r["played"]) for r in public] == [(b.agent_id, 1)]
    mine = login(alice).get(f"/api/agents/{a.agent_id}/head-to-head").json()["rows"]
    assert [(r["opponent_id"], r["played"], r["wins"], r["losses"]) for r in mine] == [
        (b.agent_id, 2, 1, 1)
    ]


def test_head_to_head_counts_and_the_pair_page() -> None:
    a, b, c = make_entries("split-or-steal", 3)
    for outcome, scores in (("win", (3, 0)), ("win", (3, 0)), ("draw", (1, 1)), ("loss", (0, 3))):
        play(a, b, outcome, scores=scores)
    play(c, a, "win", scores=(5, 0))
    rows = Client().get(f"/api/agents/{a.agent_id}/head-to-head").json()["rows"]
    by = {r["opponent_id"]: r for r in rows}
    assert [r["opponent_id"] for r in rows] == [b.agent_id, c.agent_id]  # most played first
    assert (by[b.agent_id]["played"], by[b.agent_id]["wins"], by[b.agent_id]["draws"]) == (4, 2, 1)
    assert by[b.agent_id]["losses"] == 1
    assert by[b.agent_id]["mean_payoff"] == pytest.approx(7 / 4)
    assert by[b.agent_id]["opponent_mean_payoff"] == pytest.approx(4 / 4)
    assert (by[c.agent_id]["losses"], by[c.agent_id]["mean_payoff"]) == (1, 0.0)
    page = Client().get(f"/agents/{a.agent_id}/versus/{b.agent_id}/").content.decode()
    assert "4 matches: 2 won, 1 drawn, 1 lost" in page and "mean payoff 1.75" in page
    assert page.count("<svg") == 2  # both ratings over time
    agent_page = Client().get(f"/submissions/agents/{a.agent_id}/").content.decode()
    assert f'data-opponent="{b.agent_id}"' in agent_page
    table = Client().get(f"/agents/{a.agent_id}/head-to-head/").content.decode()
    assert table.index(f'data-opponent="{b.agent_id}"') < table.index(
        f'data-opponent="{c.agent_id}"'
    )


def test_the_agent_pages_head_to_head_counts_its_latest_matches_and_the_table_all(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from arena.competitions import selectors

    a, b, c = make_entries("split-or-steal", 3)
    play(a, c, "win")  # the oldest: out of the agent page's window of 3
    for outcome in ("win", "loss", "draw"):
        play(b, a, outcome)
    monkeypatch.setattr(selectors, "RECENT_MATCHES", 3)
    agent_page = Client().get(f"/submissions/agents/{a.agent_id}/").content.decode()
    panel = agent_page.split('id="head-to-head"')[1].split("</table>")[0]
    assert f'data-opponent="{b.agent_id}"' in panel and f'data-opponent="{c.agent_id}"' not in panel
    assert "latest 3 matches" in agent_page
    # b's seat is 0 in these: a's outcomes are the other side's (loss, win, draw).
    recent = selectors.head_to_head(agent=a.agent, viewer=None, recent=3)
    assert [(r["opponent_id"], r["played"], r["wins"], r["losses"]) for r in recent] == [
        (b.agent_id, 3, 1, 1)
    ]
    table = Client().get(f"/agents/{a.agent_id}/head-to-head/").content.decode()
    assert f'data-opponent="{c.agent_id}"' in table and f'data-opponent="{b.agent_id}"' in table
    # A second version: the latest matches are merged across versions, newest first.
    a2 = Submission.objects.create(
        agent=a.agent,
        version=2,
        source="",
        sha256="1" * 64,
        game_version=a.game_version,
        status=Submission.Status.ACCEPTED,
    )
    Rating.objects.create(submission=a2, game=a.agent.game, game_version=a.game_version)
    play(a2, c, "win")
    play(a2, c, "win")
    recent = selectors.head_to_head(agent=a.agent, viewer=None, recent=3)
    assert [(r["opponent_id"], r["played"], r["wins"]) for r in recent] == [
        (c.agent_id, 2, 2),
        (b.agent_id, 1, 0),
    ]


def test_history_pages_cost_the_same_queries_at_two_sizes() -> None:
    counts = []
    for agents, matches in ((3, 4), (12, 150)):
        Match.objects.all().delete()
        Rating.objects.all().delete()
        Submission.objects.all().delete()
        subs = make_entries("split-or-steal", agents)
        for i in range(matches):
            play(subs[0], subs[1 + i % (agents - 1)], ("win", "loss", "draw")[i % 3])
        a, b = subs[0], subs[1]
        owner = login(a.agent.owner)
        anonymous = Client()
        pages = {
            "history": (owner, f"/agents/{a.agent_id}/matches/"),
            "history filtered": (
                anonymous,
                f"/agents/{a.agent_id}/matches/?kind=ranked&result=win&opponent={b.agent_id}",
            ),
            "api history": (anonymous, f"/api/matches?agent={a.agent_id}&per_page=10"),
            "api head-to-head": (anonymous, f"/api/agents/{a.agent_id}/head-to-head"),
            "head-to-head page": (owner, f"/agents/{a.agent_id}/head-to-head/"),
            "pair": (anonymous, f"/agents/{a.agent_id}/versus/{b.agent_id}/"),
            "agent page": (owner, f"/submissions/agents/{a.agent_id}/"),
        }
        counts.append(
            {
                name: _queries(lambda c=client, u=url: c.get(u))
                for name, (client, url) in pages.items()
            }
        )
    assert counts[0] == counts[1]
    assert all(n >= 2 for n in counts[0].values()), counts
