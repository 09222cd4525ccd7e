"""The contracts every game implements and the referee that plays them (docs/games.md).

Public surface: ``Game``, ``StateAdapter``, ``ActionParser``, ``GameConfig``, ``ArenaConfig``,
the registry of games found by their folder (``GamePackage`` is what a folder declares),
``AgentHandle`` and ``InProcessAgentHandle``, ``play_match`` with ``MatchSettings``, and
``MatchRecord``.
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
from games.core.figures import LadderFigure, Playthrough
from games.core.game import Action, Game
from games.core.manifest import GamePackage
from games.core.record import LogEntry, MatchRecord, Outcome, Reason, SeatResult, public_reason
from games.core.referee import MatchSettings, play_match
from games.core.registry import (
    GameSpec,
    UnknownGameError,
    available_game_ids,
    create_game,
    forget_games,
    game_packages,
    get_game_spec,
    house_bot_class,
    register_game,
)
from games.core.state_adapter import StateAdapter, agent_action, answer_schema, seat_name

__all__ = [
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
    "GamePackage",
    "GameSpec",
    "IllegalActionError",
    "InProcessAgentHandle",
    "LadderFigure",
    "LogEntry",
    "MatchRecord",
    "MatchSettings",
    "Outcome",
    "PlatformError",
    "PlayerSpec",
    "Playthrough",
    "Reason",
    "SeatResult",
    "StateAdapter",
    "UnknownGameError",
    "agent_action",
    "answer_schema",
    "available_game_ids",
    "create_game",
    "forget_games",
    "game_packages",
    "get_game_spec",
    "house_bot_class",
    "play_match",
    "public_reason",
    "register_game",
    "seat_name",
]
