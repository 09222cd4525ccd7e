"""Writes for agents and submissions (HackSoft style: keyword-only, ``<entity>_<action>``)."""

from __future__ import annotations

import hashlib
import inspect
from pathlib import PurePath

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from arena.accounts.models import User
from arena.errors import Forbidden, Refused
from arena.submissions.checks import check_upload
from arena.submissions.models import Agent, Submission
from games.core import get_game_spec

#: The only moves ``submission_set_status`` allows.
ALLOWED_TRANSITIONS = {
    Submission.Status.PENDING: {Submission.Status.ACCEPTED, Submission.Status.REJECTED},
}


def agent_name_from(name: str | None, filename: str | None) -> str:
    """The agent's name: the one given, else the file's stem, else ``agent``."""
    chosen = (name or "").strip() or (PurePath(filename).stem if filename else "") or "agent"
    cleaned = "".join(c if c.isalnum() or c in "-_." else "-" for c in chosen)[:64].strip("-")
    return cleaned or "agent"


@transaction.atomic
def submission_create(
    *,
    owner: User,
    data: bytes | None = None,
    source: str | None = None,
    name: str | None = None,
    filename: str | None = None,
    size: int | None = None,
) -> Submission:
    """Check an upload and store it (pending) as the next version of the named agent.

    Its validation match is the upload workflow's business (``arena.workflows.submissions``).
    ``size`` is the uploaded file's real size when ``data`` holds only its start.

    Raises ``Refused`` with one detail per problem (rule, line, message) when a check fails.
    """
    limits = {
        "max_bytes": settings.ARENA_UPLOAD_MAX_BYTES,
        "max_depth": settings.ARENA_UPLOAD_MAX_AST_DEPTH,
    }
    if data is not None:
        checked = check_upload(data, **limits, size=size)
    else:
        encoded = (source or "").encode("utf-8", errors="surrogatepass")
        checked = check_upload(encoded, **limits)
    if not checked.ok or checked.game is None:
        first = checked.problems[0]
        shown = PurePath(filename).name if filename else "agent.py"
        raise Refused(
            f"{shown} was refused: {first}", details=[p.as_dict() for p in checked.problems]
        )
    spec = get_game_spec(checked.game)
    agent, _ = Agent.objects.get_or_create(
        owner=owner, game=checked.game, name=agent_name_from(name, filename)
    )
    # Lock the agent row so two uploads at once cannot take the same version number.
    agent = Agent.objects.select_for_update().get(pk=agent.pk)
    version = (agent.submissions.aggregate(v=Max("version"))["v"] or 0) + 1
    submission = Submission.objects.create(
        agent=agent,
        version=version,
        source=checked.source,
        sha256=hashlib.sha256(checked.source.encode("utf-8")).hexdigest(),
        game_version=spec.version,
    )
    return submission


def submission_set_status(*, submission: Submission, status: str, detail: str = "") -> Submission:
    """Move a submission to ``status``; only pending → accepted | rejected is allowed."""
    allowed = ALLOWED_TRANSITIONS.get(Submission.Status(submission.status), set())
    if status not in allowed:
        raise Refused(f"a {submission.status} submission cannot become {status}")
    submission.status = status
    submission.status_detail = detail
    submission.save(update_fields=["status", "status_detail"])
    return submission


@transaction.atomic
def submission_mark_active(*, submission: Submission, user: User) -> Submission:
    """Mark an accepted submission active (at most ``ARENA_ACTIVE_PER_GAME``); its ladder row is
    the activation workflow's business (``arena.workflows.submissions``)."""
    submission = (
        Submission.objects.select_for_update().select_related("agent").get(pk=submission.pk)
    )
    if submission.agent.owner_id != user.pk:
        raise Forbidden("only the agent's owner can activate it")
    if submission.status != Submission.Status.ACCEPTED:
        raise Refused(
            f"only accepted submissions play ranked; this one is {submission.status}"
            + (f": {submission.status_detail}" if submission.status_detail else "")
        )
    if submission.active:
        return submission
    if submission.agent.archived is not None:
        raise Refused(f"{submission.agent.name} is archived: unarchive it on its page first")
    limit = settings.ARENA_ACTIVE_PER_GAME
    active = Submission.objects.filter(
        agent__owner=user, agent__game=submission.agent.game, active=True
    ).count()
    if active >= limit:
        raise Refused(
            f"you already have {active} active submissions in {submission.agent.game} "
            f"(the limit is {limit}); deactivate one first"
        )
    submission.active = True
    submission.save(update_fields=["active"])
    return submission


def submission_deactivate(*, submission: Submission, user: User) -> Submission:
    """Take a submission off the ladder; its rating and history stay."""
    if submission.agent.owner_id != user.pk:
        raise Forbidden("only the agent's owner can deactivate it")
    submission.active = False
    submission.save(update_fields=["active"])
    return submission


@transaction.atomic
def house_submission_ensure(*, game: str, bot: str, active: bool = False) -> Submission:
    """The submission standing for a house bot (owned by the ``house`` user), created once."""
    spec = get_game_spec(game)
    if bot not in spec.bots:
        raise Refused(f"{game} has no house bot {bot!r}; its bots: {', '.join(sorted(spec.bots))}")
    owner, _ = User.objects.get_or_create(
        username=settings.ARENA_HOUSE_USERNAME, defaults={"is_active": False}
    )
    agent, _ = Agent.objects.get_or_create(owner=owner, game=game, name=bot)
    existing = agent.submissions.filter(game_version=spec.version).first()
    if existing is not None:
        return existing

    try:
        source = inspect.getsource(spec.bots[bot])
    except (OSError, TypeError):
        source = f"# house bot {bot} of {game}"
    version = (agent.submissions.aggregate(v=Max("version"))["v"] or 0) + 1
    return Submission.objects.create(
        agent=agent,
        version=version,
        source=source,
        sha256=hashlib.sha256(source.encode()).hexdigest(),
        game_version=spec.version,
        status=Submission.Status.ACCEPTED,
        status_detail="house bot",
        house_bot=bot,
        active=active,
    )


@transaction.atomic
def agent_archive(*, agent: Agent, user: User) -> Agent:
    """Archive an agent: every version leaves the ladder (ratings and matches stay) and the
    agent leaves its owner's default list. ``agent_unarchive`` brings it back (off the ladder:
    the owner activates a version again when they want it to play)."""
    if agent.owner_id != user.pk:
        raise Forbidden("only the agent's owner can archive it")
    Submission.objects.filter(agent=agent, active=True).update(active=False)
    if agent.archived is None:
        agent.archived = timezone.now()
        agent.save(update_fields=["archived"])
    return agent


def agent_unarchive(*, agent: Agent, user: User) -> Agent:
    """Show an archived agent in its owner's list again."""
    if agent.owner_id != user.pk:
        raise Forbidden("only the agent's owner can unarchive it")
    agent.archived = None
    agent.save(update_fields=["archived"])
    return agent
