"""What the platform benches seed in their throw-away databases (Django must be set up first)."""

from __future__ import annotations

from typing import Any


def starter_entry(owner: Any, game: str, name: str, *, active: bool = True) -> Any:
    """An accepted submission of ``game``'s starter agent, owned by ``owner`` (a new agent), on
    the ladder when ``active``: what a participant's first upload becomes once validated."""
    from arena.submissions.models import Agent, Submission

    from games.core import get_game_spec

    spec = get_game_spec(game)
    return Submission.objects.create(
        agent=Agent.objects.create(owner=owner, game=game, name=name),
        version=1,
        source=spec.starter_source(),
        sha256="0" * 64,
        game_version=spec.version,
        status=Submission.Status.ACCEPTED,
        active=active,
    )
