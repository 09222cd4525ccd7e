"""Where a tournament tells people what happened: the one place its events are emitted.

``tournament_event`` is called inside the transaction that changed the tournament. It logs the
event and tells the owner of every entry through the notification service (inbox, and email or
webhook as each owner chose, ``arena.notifications``), once per owner and event: a retried
transition stores nothing twice. A notification that cannot be stored is logged and never undoes
the tournament's transition.
"""

from __future__ import annotations

import logging
from typing import Literal

from django.db import transaction

from arena.notifications.models import Kind
from arena.notifications.services import notify
from arena.tournaments.models import Tournament

logger = logging.getLogger(__name__)

#: ``started``: entries frozen and the first games released; ``published``: results public;
#: ``cancelled``: the tournament will not be played.
TournamentEvent = Literal["started", "published", "cancelled"]

#: What each event tells an entrant: the notification kind and the subject's wording.
MESSAGES: dict[TournamentEvent, tuple[str, str]] = {
    "started": (Kind.TOURNAMENT_STARTED, "Tournament {name} has started"),
    "published": (Kind.TOURNAMENT_RESULT, "Tournament {name}: the results are published"),
    "cancelled": (Kind.TOURNAMENT_CANCELLED, "Tournament {name} was cancelled"),
}


def tournament_event(*, tournament: Tournament, event: TournamentEvent) -> None:
    """Emit ``event`` of ``tournament`` to the owners of its entries."""
    users = {entry.owner_id: entry.owner for entry in tournament.entries.select_related("owner")}
    logger.info(
        "tournament %s (%s): %s; %d entrants to tell",
        tournament.pk,
        tournament.name,
        event,
        len(users),
    )
    kind, subject = MESSAGES[event]
    for user in users.values():
        try:
            with transaction.atomic():
                notify(
                    user=user,
                    kind=kind,
                    subject=subject.format(name=tournament.name)[:200],
                    url=f"/tournaments/{tournament.pk}/",
                    dedupe_key=f"tournament-{event}:{tournament.pk}",
                )
        except Exception:
            logger.exception("telling user %s of tournament %s %s", user.pk, tournament.pk, event)
