"""Language-model seats: an ``AgentHandle`` that asks an OpenAI-compatible model for each move.

Django-free, so that the platform's worker (``arena.llm``) and the command line (``arena play
--opponent llm:<model>``) share it. It may import ``games`` only. docs/llm-seats.md describes the
design: the prompt comes from the game's ``StateAdapter``, the reply goes through the referee's
``ActionParser`` (no random fallback), the move budget covers re-asks, and a provider failure is
a ``PlatformError``, never a forfeit.
"""

from llm_seat.client import (
    CallTimedOut,
    Completion,
    Endpoint,
    ModelClient,
    ProviderError,
    ReplyTooLarge,
    Sampling,
)
from llm_seat.handle import CallRecord, LlmSeat, SeatHooks, SeatPolicy

__all__ = [
    "CallRecord",
    "CallTimedOut",
    "Completion",
    "Endpoint",
    "LlmSeat",
    "ModelClient",
    "ProviderError",
    "ReplyTooLarge",
    "Sampling",
    "SeatHooks",
    "SeatPolicy",
]
