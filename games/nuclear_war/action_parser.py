"""Nuclear War's parser: ``{"type" | "action_type": "argument", "text": ...}``, cut at the cap."""

from __future__ import annotations

from games.core.persuasion import PersuasionActionParser


class NuclearWarActionParser(PersuasionActionParser):
    """The shared persuasion parser (``message`` is read as ``argument``)."""
