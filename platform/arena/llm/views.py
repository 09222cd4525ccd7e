"""Pages: enter a model; a match's model calls (answers, reasoning; the ledger to owners)."""

from __future__ import annotations

from decimal import Decimal

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from arena.accounts.selectors import signed_in_user
from arena.errors import Forbidden, NotFound, RateLimited, Refused
from arena.llm.forms import AgentModelsForm, ModelEntrantForm
from arena.llm.models import ModelCall
from arena.llm.selectors import (
    agent_model_policy_of,
    match_model_calls,
    models_agents_may_call,
    models_enabled,
)
from arena.llm.services import agent_model_policy_set
from arena.matches.logstore import match_log_entries
from arena.matches.models import Match
from arena.matches.selectors import match_get_visible, owned_seats
from arena.matches.visibility import RETRY_FIELDS, round_reveals
from arena.submissions.selectors import submission_get_owned
from arena.workflows.llm import model_entrant_submit
from games.core import get_game_spec


@login_required
def new_entrant(request: HttpRequest) -> HttpResponse:
    """The form; on success the new version's page (pending until its self-play is done)."""
    models = [(m.name, f"{m.display_name} ({m.model_id})") for m in models_enabled()]
    form = ModelEntrantForm(request.POST or None, models=models, initial={"json_output": True})
    error = ""
    status = 200
    if request.method == "POST" and form.is_valid():
        fields = dict(form.cleaned_data)
        try:
            submission = model_entrant_submit(
                owner=signed_in_user(request), model_name=fields.pop("model"), **fields
            )
        except RateLimited as exc:
            error, status = exc.message, 429
        except Refused as exc:
            error, status = exc.message, exc.status
        else:
            return redirect("submissions:detail", submission_id=submission.pk)
    response = render(
        request, "llm/new.html", {"form": form, "error": error, "has_models": bool(models)}
    )
    response.status_code = status
    return response


def _public_seat_turns(match: Match) -> set[tuple[int, int, object]]:
    """(seat, round, turn) of the model turns whose state the game's public view shows whole:
    there the model's answer and reasoning (which may quote that state) are public too."""
    game = get_game_spec(match.game).game_class
    entries = match_log_entries(match)
    reveals = round_reveals(entries, match.rounds or [])
    shown: set[tuple[int, int, object]] = set()
    for e in entries:
        payload, seat, round_no = e.get("payload"), e.get("seat"), e.get("round")
        if e.get("method") != "on_turn" or not isinstance(payload, dict):
            continue
        if not isinstance(seat, int) or not isinstance(round_no, int):
            continue
        state = {k: v for k, v in payload.items() if k not in RETRY_FIELDS}
        if game.public_payload("on_turn", state, reveals.get((seat, round_no))) == state:
            shown.add((seat, round_no, e.get("turn")))
    return shown


def match_calls(request: HttpRequest, match_id: int) -> HttpResponse:
    """Per model call of a match: the answer and reasoning (to the seat's owner always; to
    others when the game's public view of that turn hides nothing of the seat, e.g. chess at
    once, poker once a showdown shows the hand), and to the owner the prompt, tokens, latency
    and cost."""
    try:
        match = match_get_visible(match_id=match_id, user=request.user)
    except (NotFound, Forbidden):
        raise Http404("no such match") from None
    mine_seats = owned_seats(match, request.user)
    calls = match_model_calls(match_id=match.pk)
    public = _public_seat_turns(match) if calls else set()
    rows = []
    total = Decimal(0)
    for call in calls:
        if call.purpose == ModelCall.Purpose.JUDGE:
            # A judge's prompt quotes both sides (a keeper's, private questions): its calls
            # are the site's, read by staff in the admin, and its verdicts are in the replay.
            continue
        mine = call.seat in mine_seats
        # A code agent's own calls are its owner's alone, whatever the game shows of its seat.
        public_call = call.purpose == ModelCall.Purpose.SEAT
        shown = mine or (public_call and (call.seat, call.round, call.turn) in public)
        rows.append({"call": call, "mine": mine, "shown": shown})
        if mine:
            total += call.cost_usd
    return render(
        request, "llm/match_calls.html", {"match": match, "rows": rows, "owner_cost": total}
    )


@login_required
def agent_models(request: HttpRequest, submission_id: int) -> HttpResponse:
    """The owner's form: which models this version may call, its budgets per match and day."""
    user = signed_in_user(request)
    try:
        submission = submission_get_owned(submission_id=submission_id, user=user)
    except (NotFound, Forbidden):
        raise Http404("no such submission of yours") from None
    policy = agent_model_policy_of(submission)
    choices = [(m.name, f"{m.display_name} ({m.model_id})") for m in models_agents_may_call()]
    initial = {
        "models": [m.name for m in policy.allowed_models.all()] if policy else [],
        "match_budget_usd": policy.match_budget_usd if policy else 0,
        "day_budget_usd": policy.day_budget_usd if policy else 0,
    }
    form = AgentModelsForm(request.POST or None, models=choices, initial=initial)
    error, status, saved = "", 200, False
    if request.method == "POST" and form.is_valid():
        try:
            agent_model_policy_set(
                submission=submission,
                user=user,
                model_names=list(form.cleaned_data["models"]),
                match_budget_usd=form.cleaned_data["match_budget_usd"],
                day_budget_usd=form.cleaned_data["day_budget_usd"],
            )
        except Refused as exc:
            error, status = exc.message, exc.status
        else:
            saved = True
    response = render(
        request,
        "llm/agent_models.html",
        {"form": form, "submission": submission, "error": error, "saved": saved},
    )
    response.status_code = status
    return response
