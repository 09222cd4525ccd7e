"""The contracts every game implements and the referee that plays them (docs/games.md).

Public surface: ``Game``, ``StateAdapter``, ``ActionParser``, ``GameConfig``, ``ArenaConfig``,
``GAME_REGISTRY`` with its helpers, ``AgentHandle`` and ``InProcessAgentHandle``, ``play_match``
with ``MatchSettings``, and ``MatchRecord``.
"""

from games.core.action_parser import ActionParser
from games.core.agent import AgentHandle, CallError, CallResult, InProcessAgentHandle
from games.core.config import ArenaConfig, GameConfig, PlayerSpec
from games.core.errors import (
    ActionParseError,
    AgentCrash,
    AgentError,
    AgentInitError,
    AgentTimeout,
    IllegalActionError,
    PlatformError,
)
from games.core.game import Action, Game
from games.core.record import LogEntry, MatchRecord, Outcome, Reason, SeatResult, public_reason
from games.core.referee import MatchSettings, play_match
from games.core.registry import (
    GAME_REGISTRY,
    GameSpec,
    UnknownGameError,
    available_game_ids,
    create_game,
    get_game_spec,
    house_bot_class,
)
from games.core.state_adapter import StateAdapter, agent_action, seat_name

__all__ = [
    "GAME_REGISTRY",
    "Action",
    "ActionParseError",
    "ActionParser",
    "AgentCrash",
    "AgentError",
    "AgentHandle",
    "AgentInitError",
    "AgentTimeout",
    "ArenaConfig",
    "CallError",
    "CallResult",
    "Game",
    "GameConfig",
    "GameSpec",
    "IllegalActionError",
    "InProcessAgentHandle",
    "LogEntry",
    "MatchRecord",
    "MatchSettings",
    "Outcome",
    "PlatformError",
    "PlayerSpec",
    "Reason",
    "SeatResult",
    "StateAdapter",
    "UnknownGameError",
    "agent_action",
    "available_game_ids",
    "create_game",
    "get_game_spec",
    "house_bot_class",
    "play_match",
    "public_reason",
    "seat_name",
]
