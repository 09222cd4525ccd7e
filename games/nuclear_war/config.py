"""Nuclear War's config (defaults of ``rules.md``)."""

from games.nuclear_war.game import NuclearWarConfig

__all__ = ["NuclearWarConfig"]
