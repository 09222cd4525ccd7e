"""The API's shape of a code agent's models and budgets, shared by the routers that take it:
``llm/api.py`` (``PUT /api/submissions/<id>/models``) and ``submissions/api.py`` (an upload
that chooses them at once, so its self-play already may call them)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from ninja import Schema
from pydantic import Field, StringConstraints

ModelName = Annotated[str, StringConstraints(max_length=64, pattern=r"^[-a-zA-Z0-9_]+$")]
ModelNames = Annotated[list[ModelName], Field(max_length=16)]
Usd = Annotated[Decimal, Field(ge=0, le=1000, max_digits=10, decimal_places=4)]


class AgentModelsIn(Schema):
    """The models the version may call (empty: none) and its budgets in USD."""

    models: ModelNames
    match_budget_usd: Usd = Decimal(0)
    day_budget_usd: Usd = Decimal(0)
