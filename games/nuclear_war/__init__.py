"""Nuclear war: brinkmanship over six crises with a hidden war threshold."""

from games.nuclear_war.config import NuclearWarConfig
from games.nuclear_war.game import NuclearWarGame

__all__ = ["NuclearWarConfig", "NuclearWarGame"]
