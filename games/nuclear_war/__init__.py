"""Nuclear War: two advisors argue for and against a nuclear strike before a president, a
language model playing the president."""

from games.nuclear_war.game import NuclearWarConfig, NuclearWarGame

__all__ = ["NuclearWarConfig", "NuclearWarGame"]
