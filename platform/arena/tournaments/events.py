"""Where a tournament tells people what happened: the one place its events are emitted.

``tournament_event`` is called inside the transaction that changed the tournament; it logs the
event and is the single function to wire to notifications (inbox, email, webhooks): call the
notification service from here, on commit, for each owner of an entry.
"""

from __future__ import annotations

import logging
from typing import Literal

from arena.tournaments.models import Tournament

logger = logging.getLogger(__name__)

#: ``started``: entries frozen and the first games released; ``published``: results public.
TournamentEvent = Literal["started", "published", "cancelled"]


def tournament_event(*, tournament: Tournament, event: TournamentEvent) -> None:
    """Emit ``event`` of ``tournament`` to the owners of its entries (for now: the log)."""
    owners = list(tournament.entries.values_list("owner_id", flat=True))
    logger.info(
        "tournament %s (%s): %s; %d entrants to tell",
        tournament.pk,
        tournament.name,
        event,
        len(owners),
    )
