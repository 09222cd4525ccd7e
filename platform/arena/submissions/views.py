"""Pages: upload, my agents, a submission (owner only), an agent (public)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from arena.accounts.selectors import signed_in_user
from arena.competitions.selectors import pause_flag, pause_in_force
from arena.competitions.views import agent_panel
from arena.errors import Forbidden, NotFound, RateLimited, Refused
from arena.llm.selectors import (
    model_entrant_of,
    model_names_of_versions,
    models_agents_may_call,
    spend_today_usd,
    spend_total_usd,
)
from arena.matches.selectors import (
    match_find,
    match_log,
    match_progress,
    match_queue_wait,
    trainings_of,
    validation_bounds,
)
from arena.ratings.charts import rating_chart_svg
from arena.ratings.presenter import agent_ranked_cells
from arena.ratings.selectors import agent_ranked_rows, rating_history
from arena.ratings.waits import annotated_flight, ladder_wait, ranked_flight, ranked_flight_of
from arena.submissions import selectors
from arena.submissions.checks import UPLOAD_READ_LIMIT_BYTES
from arena.submissions.forms import TrainingForm, UploadForm
from arena.submissions.models import Submission
from arena.submissions.services import agent_archive, agent_unarchive, submission_deactivate
from arena.workflows.matches import training_request
from arena.workflows.submissions import submission_activate, submission_upload
from games.core import get_game_spec
from games.core.record import LogEntry


def _owned(request: HttpRequest, submission_id: int) -> Submission:
    try:
        return selectors.submission_get_owned(submission_id=submission_id, user=request.user)
    except NotFound:
        raise Http404("no such submission") from None
    except Forbidden as exc:
        raise PermissionDenied(exc.message) from None


def what_went_wrong(log: list[LogEntry]) -> list[dict[str, object]]:
    """The failed calls of a validation log, each different failure once: the same exception
    raised on four retries is one traceback "4 times in a row", not four copies."""
    shown: list[dict[str, object]] = []
    for e in log:
        error, illegal = e.get("error") or "", e.get("illegal") or ""
        if not (error or illegal):
            continue
        # An exception's summary (``illegal``) repeats the first line of its traceback.
        text = str(error) if error else str(illegal)
        if illegal and error and not str(error).startswith(str(illegal).split("raised ")[-1]):
            text = f"{illegal}\n{error}"
        if shown and shown[-1]["text"] == text and shown[-1]["method"] == e.get("method"):
            shown[-1]["times"] = int(str(shown[-1]["times"])) + 1
            continue
        shown.append(
            {
                "method": e.get("method"),
                "turn": e.get("turn"),
                "text": text,
                "stdout": e.get("stdout") or "",
                "times": 1,
            }
        )
    return shown


@login_required
def upload(request: HttpRequest) -> HttpResponse:
    """The upload form; on success, the submission page (pending until validated)."""
    callable_models = [
        (m.name, f"{m.display_name} ({m.model_id})") for m in models_agents_may_call()
    ]
    form = UploadForm(request.POST or None, request.FILES or None, models=callable_models)
    problems: list[dict[str, object]] = []
    error = ""
    if request.method == "POST" and form.is_valid():
        upload_file = form.cleaned_data["file"]
        try:
            submission = submission_upload(
                owner=signed_in_user(request),
                data=upload_file.read(UPLOAD_READ_LIMIT_BYTES),
                name=form.cleaned_data["name"],
                filename=upload_file.name,
                size=upload_file.size,
                **form.agent_models(),
            )
        except RateLimited as exc:
            return _throttled(
                request,
                render(
                    request,
                    "submissions/upload.html",
                    {"validations": validation_bounds(), "form": form, "error": exc.message},
                ),
                exc,
            )
        except Refused as exc:
            error, problems = exc.message, exc.details
        else:
            return redirect("submissions:detail", submission_id=submission.pk)
    return render(
        request,
        "submissions/upload.html",
        {"validations": validation_bounds(), "form": form, "error": error, "problems": problems},
    )


def _throttled(request: HttpRequest, page: HttpResponse, exc: RateLimited) -> HttpResponse:
    """The page that says when to retry, as a 429 with ``Retry-After``."""
    page.status_code = 429
    page["Retry-After"] = str(exc.retry_after_s)
    return page


@login_required
def mine(request: HttpRequest) -> HttpResponse:
    """The user's agents and submissions; archived agents only with ``?archived=1``."""
    archived = request.GET.get("archived") == "1"
    return render(
        request,
        "submissions/mine.html",
        {
            "submissions": selectors.submissions_of(user=request.user, archived=archived),
            "archived": archived,
            "archived_count": selectors.archived_agents_count(user=request.user),
        },
    )


@login_required
def detail(request: HttpRequest, submission_id: int) -> HttpResponse:
    """Status (polled while pending), source, validation log, ladder and training controls."""
    submission = _owned(request, submission_id)
    validation_id = selectors.submission_validation_match_id(submission)
    validation = match_find(match_id=validation_id)
    log = match_log(validation, request.user) if validation else []
    spec = get_game_spec(submission.agent.game)
    opponents = [(f"house:{b}", f"house bot: {b}") for b in sorted(spec.bots)] + [
        (str(s.pk), f"my {s.label}")
        for s in selectors.submissions_accepted_of(
            user=signed_in_user(request), game=submission.agent.game
        )
    ]
    running = validation is not None and not validation.is_done
    entrant = model_entrant_of(submission)
    context = {
        "submission": submission,
        "model_entrant": entrant,
        "model_spend": (
            {
                "today": spend_today_usd(agent_id=submission.agent_id),
                "total": spend_total_usd(agent_id=submission.agent_id),
            }
            if entrant
            else None
        ),
        "validation": validation,
        # While it runs: turns played and calls answered so far; while queued: what it awaits.
        "progress": match_progress(validation) if running and validation else None,
        "queue_wait": match_queue_wait(validation) if running and validation else None,
        "bound": validation_bounds(game=submission.agent.game)[0],
        "log": log,
        "went_wrong": what_went_wrong(log),
        "training_form": TrainingForm(opponents=opponents),
        "ladder_wait": (
            ladder_wait(submission=submission, flight=ranked_flight_of(submission))
            if submission.active
            else None
        ),
        # Off the ladder by an auto-pause: why, as the agent page says it.
        "pause": None if submission.active else pause_in_force(submission=submission),
        "trainings": trainings_of(submission_id=submission.pk),
    }
    if request.headers.get("HX-Request"):
        response = render(request, "submissions/_status.html", context)
        if submission.status != Submission.Status.PENDING:
            # The verdict is in: reload the whole page so the training and ladder forms appear.
            response["HX-Refresh"] = "true"
        return response
    return render(request, "submissions/detail.html", context)


@login_required
@require_POST
def ladder(request: HttpRequest, submission_id: int) -> HttpResponse:
    """Activate or deactivate (form field ``action``)."""
    submission = _owned(request, submission_id)
    try:
        if request.POST.get("action") == "deactivate":
            submission_deactivate(submission=submission, user=signed_in_user(request))
            messages.success(request, f"{submission.label} left the ladder.")
        else:
            submission_activate(submission=submission, user=signed_in_user(request))
            messages.success(
                request,
                f"{submission.label} is on the {submission.agent.game} ladder: ranked "
                "matches start within a minute.",
            )
    except Refused as exc:
        messages.error(request, exc.message)
    return redirect("submissions:detail", submission_id=submission.pk)


@login_required
@require_POST
def train(request: HttpRequest, submission_id: int) -> HttpResponse:
    """Start a training match and show it."""
    submission = _owned(request, submission_id)
    try:
        match = training_request(
            user=signed_in_user(request),
            submission_id=submission.pk,
            opponent=request.POST.get("opponent", ""),
            timed=bool(request.POST.get("timed")),
        )
    except RateLimited as exc:
        messages.error(request, exc.message)
        return _throttled(request, detail(request, submission.pk), exc)
    except Refused as exc:
        messages.error(request, exc.message)
        return redirect("submissions:detail", submission_id=submission.pk)
    return redirect("matches:detail", match_id=match.pk)


def agent(request: HttpRequest, agent_id: int) -> HttpResponse:
    """An agent's versions, Elo history chart and ranked matches (public; source owner-only)."""
    try:
        the_agent = selectors.agent_get(agent_id=agent_id, with_policy=True)
    except NotFound:
        raise Http404("no such agent") from None
    # One read of the versions serves every part of the page: their ratings and models, the
    # ranked match each has in flight (``ladder_wait``) and whether one is paused (the panel).
    versions = list(
        the_agent.submissions.select_related("rating", "model_entrant__model")
        .defer("source")
        .annotate(**ranked_flight(), **pause_flag())
    )
    # The headline: the rating the ladder holds now for the version on it (the newest active
    # one), else for the newest rated version, with its 95 % interval, as the boards show it.
    rated = [s for s in versions if hasattr(s, "rating") and s.rating.games]
    shown = max(rated, key=lambda s: (s.active, s.version), default=None)
    history = rating_history(agent=the_agent, versions=versions)
    points = [history[0]["before"]] + [h["after"] for h in history] if history else []
    active = [s for s in versions if s.active]
    waits = [
        (s, ladder_wait(submission=s, flight=annotated_flight(s)))
        for s in sorted(active, key=lambda s: -s.version)
    ]
    return render(
        request,
        "submissions/agent.html",
        {
            "agent": the_agent,
            "submissions": versions,
            # Why each active version is (not) playing now; none active: "not active".
            "waits": waits,
            "is_owner": request.user.is_authenticated
            and (the_agent.owner_id == request.user.pk or request.user.is_staff),
            "chart": rating_chart_svg(points),
            "shown": shown,
            "matches": agent_ranked_cells(
                agent_ranked_rows(agent_id=the_agent.pk, versions=[s.pk for s in versions])
            ),
            # A model entrant says which model plays it (its settings and spend are the owner's).
            "model_names": model_names_of_versions(versions),
            # Challenges, head-to-head and auto-pauses (arena.competitions).
            "compete": agent_panel(request, the_agent, versions),
        },
    )


@login_required
@require_POST
def archive(request: HttpRequest, agent_id: int) -> HttpResponse:
    """Archive (``action=archive``) or bring back (``action=unarchive``) one's own agent."""
    try:
        the_agent = selectors.agent_get(agent_id=agent_id)
        if request.POST.get("action") == "unarchive":
            agent_unarchive(agent=the_agent, user=signed_in_user(request))
            messages.success(request, f"{the_agent.name} is back in your list.")
        else:
            agent_archive(agent=the_agent, user=signed_in_user(request))
            messages.success(
                request,
                f"{the_agent.name} is archived: off the ladder and out of your list; its "
                "matches stay.",
            )
    except NotFound:
        raise Http404("no such agent") from None
    except Forbidden as exc:
        raise PermissionDenied(exc.message) from None
    return redirect("submissions:agent", agent_id=agent_id)
