"""Pages: an agent's match history, its head-to-head table, a pair page, challenges."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from arena.accounts.selectors import signed_in_user
from arena.competitions import selectors
from arena.competitions.forms import ChallengePolicyForm, HistoryFilterForm
from arena.competitions.services import challenge_policy_get, challenge_policy_set
from arena.errors import NotFound, RateLimited, Refused
from arena.ratings.charts import rating_chart_svg
from arena.ratings.selectors import rating_history
from arena.submissions.models import Agent, Submission
from arena.submissions.selectors import agent_get, submissions_accepted_of
from arena.workflows.competitions import challenge_request
from games.core import get_game_spec

#: How many opponents the agent page's head-to-head summary lists.
PANEL_OPPONENTS = 10


def _agent(agent_id: int) -> Agent:
    try:
        return agent_get(agent_id=agent_id)
    except NotFound:
        raise Http404("no such agent") from None


def _mean_payoff_game(game: str) -> bool:
    try:
        return get_game_spec(game).ranking == "mean_payoff"
    except Exception:
        return False


def agent_panel(
    request: HttpRequest, agent: Agent, versions: list[Submission] | None = None
) -> dict[str, Any]:
    """What the agent page shows of competitions: the challenge form (or why not), the owner's
    challenge settings, auto-pauses, the head-to-head summary and the history link.
    ``versions``: the agent's submissions, when the caller has read them."""
    user = request.user
    is_owner = user.is_authenticated and agent.owner_id == user.pk
    policy = challenge_policy_get(agent=agent)
    # Versions read with ``selectors.pause_flag`` say whether a pause is in force.
    flagged = versions is not None and all("ladder_paused" in s.__dict__ for s in versions)
    paused = not flagged or any(s.__dict__["ladder_paused"] for s in versions or ())
    challengers = []
    if user.is_authenticated and not is_owner:
        challengers = list(submissions_accepted_of(user=signed_in_user(request), game=agent.game))
    return {
        "is_owner": is_owner,
        "policy": policy,
        "challengers": challengers,
        # The pauses in force (one a version at most).
        "pauses": (selectors.pauses_in_force(agent=agent, versions=versions) if paused else []),
        "head_to_head": selectors.head_to_head_cells(
            agent,
            selectors.head_to_head(
                agent=agent,
                viewer=user,
                recent=selectors.RECENT_MATCHES,
                limit=PANEL_OPPONENTS,
                versions=None if versions is None else [s.pk for s in versions],
            ),
        ),
        "recent_matches": selectors.RECENT_MATCHES,
        "mean_payoff": _mean_payoff_game(agent.game),
    }


def history(request: HttpRequest, agent_id: int) -> HttpResponse:
    """Every match of the agent the visitor may see, filtered, newest first, a page at a time."""
    agent = _agent(agent_id)
    form = HistoryFilterForm(request.GET or None)
    error = ""
    page = None
    if request.GET and not form.is_valid():
        # An ErrorList yields each message as text.
        error = "; ".join(
            f"{k}: {' '.join(str(message) for message in v)}" for k, v in form.errors.items()
        )
    else:
        data = form.cleaned_data if request.GET else {}
        filters = selectors.HistoryFilters(
            kind=data.get("kind") or "",
            opponent=data.get("opponent"),
            result=data.get("result") or "",
            since=data.get("since"),
            until=data.get("until"),
            before=data.get("before"),
        )
        page = selectors.history_page(agent=agent, viewer=request.user, filters=filters)
    query = request.GET.copy()
    query.pop("before", None)
    return render(
        request,
        "competitions/history.html",
        {
            "agent": agent,
            "form": form,
            "page": page,
            "error": error,
            "query": query.urlencode(),
        },
        status=400 if error else 200,
    )


def head_to_head(request: HttpRequest, agent_id: int) -> HttpResponse:
    """The agent's whole head-to-head table (most played opponents first)."""
    agent = _agent(agent_id)
    return render(
        request,
        "competitions/head_to_head.html",
        {
            "agent": agent,
            "head_to_head": selectors.head_to_head_cells(
                agent, selectors.head_to_head(agent=agent, viewer=request.user)
            ),
            "mean_payoff": _mean_payoff_game(agent.game),
            "owner_view": selectors.sees_everything(viewer=request.user, agent=agent),
        },
    )


def pair(request: HttpRequest, agent_id: int, opponent_id: int) -> HttpResponse:
    """Agent A against agent B: their record, their matches, both ratings over time."""
    agent, other = _agent(agent_id), _agent(opponent_id)
    try:
        before = int(request.GET.get("before", "")) or None
    except ValueError:
        before = None
    record = selectors.head_to_head(agent=agent, viewer=request.user, opponent=other.pk)
    page = selectors.history_page(
        agent=agent,
        viewer=request.user,
        filters=selectors.HistoryFilters(opponent=other.pk, before=before),
    )
    charts = []
    for a in (agent, other):
        points = rating_history(agent=a)
        values = [points[0]["before"]] + [h["after"] for h in points] if points else []
        charts.append({"agent": a, "chart": rating_chart_svg(values)})
    return render(
        request,
        "competitions/pair.html",
        {
            "agent": agent,
            "other": other,
            "record": record[0] if record else None,
            "page": page,
            "charts": charts,
            "mean_payoff": _mean_payoff_game(agent.game),
        },
    )


@login_required
@require_POST
def challenge(request: HttpRequest, agent_id: int) -> HttpResponse:
    """Challenge the agent with one of the user's accepted submissions (form field
    ``submission``); the match page on success."""
    agent = _agent(agent_id)
    try:
        submission_id = int(request.POST.get("submission", ""))
    except ValueError:
        messages.error(request, "choose one of your accepted agents to challenge with")
        return redirect("submissions:agent", agent_id=agent.pk)
    try:
        match = challenge_request(
            user=signed_in_user(request), submission_id=submission_id, agent_id=agent.pk
        )
    except RateLimited as exc:
        page = render(
            request, "competitions/challenge_refused.html", {"agent": agent, "error": exc.message}
        )
        page.status_code = 429
        page["Retry-After"] = str(exc.retry_after_s)
        return page
    except Refused as exc:
        messages.error(request, exc.message)
        return redirect("submissions:agent", agent_id=agent.pk)
    messages.success(
        request, f"Challenge sent: an unrated match against {agent.name}. Your prints show here."
    )
    return redirect("matches:detail", match_id=match.pk)


@login_required
@require_POST
def challenge_settings(request: HttpRequest, agent_id: int) -> HttpResponse:
    """The owner: whether the agent accepts challenges, and from which rating up."""
    agent = _agent(agent_id)
    form = ChallengePolicyForm(request.POST)
    if not form.is_valid():
        messages.error(request, "the minimum rating must be a number between -10000 and 10000")
        return redirect("submissions:agent", agent_id=agent.pk)
    try:
        challenge_policy_set(
            agent=agent,
            user=signed_in_user(request),
            accepts=form.cleaned_data["accepts"],
            min_rating=form.cleaned_data["min_rating"],
        )
    except Refused as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "Challenge settings saved.")
    return redirect("submissions:agent", agent_id=agent.pk)
