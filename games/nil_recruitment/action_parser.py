"""NIL Recruitment's parser: ``{"type" | "action_type": "pitch", "text": ...}``, cut at the cap."""

from __future__ import annotations

from games.core.persuasion import PersuasionActionParser


class NilRecruitmentActionParser(PersuasionActionParser):
    """The shared persuasion parser (``message`` is read as ``pitch``)."""
