"""How the registry reads a game's folder.

By convention a game package holds ``game.py`` (its ``Game`` subclass, which also declares its
playthroughs, ladder figures and place in lists), ``state_adapter.py``, ``action_parser.py``,
``bots.py`` (``BOTS``) and optionally ``presenter.py`` (``present``). A package whose layout
differs declares ``ARENA_GAME = GamePackage(...)`` in its ``__init__.py`` instead. The registry
(``games.core.registry``) finds every such package under ``games/`` and those named in
``ARENA_GAME_PACKAGES``; nothing outside the game's folder lists it (docs/games.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from games.core.action_parser import ActionParser
from games.core.game import Game
from games.core.state_adapter import StateAdapter


@dataclass(frozen=True)
class GamePackage:
    """A game as its folder declares it.

    ``bots`` and ``presenter`` are paths relative to the game's package, imported only when used
    (``"bots.BOTS"``: a dict of bot name to ``Agent`` class; ``"presenter.present"``: the replay
    presenter, the generic one when the module is absent). Playthroughs, ladder figures and
    order are the game class's (``Game.playthroughs``, ``ladder_figures``, ``order``).
    ``rules.md``, ``starter_agent.py``, ``strength.json`` and ``playthroughs/`` are files in the
    folder.
    """

    game_class: type[Game]
    state_adapter_class: type[StateAdapter]
    action_parser_class: type[ActionParser]
    bots: str = "bots.BOTS"
    presenter: str | None = "presenter.present"


def package_by_convention(module_name: str) -> GamePackage | None:
    """The ``GamePackage`` of a folder laid out by convention, or ``None`` if it is not a game:
    the ``Game``, ``StateAdapter`` and ``ActionParser`` subclasses its own modules define."""
    import importlib
    import importlib.util

    def defined(submodule: str, base: type) -> type | None:
        name = f"{module_name}.{submodule}"
        if importlib.util.find_spec(name) is None:
            return None
        module = importlib.import_module(name)
        own = [
            value
            for value in vars(module).values()
            if isinstance(value, type) and issubclass(value, base) and value.__module__ == name
        ]
        return own[0] if len(own) == 1 else None

    game = defined("game", Game)
    adapter = defined("state_adapter", StateAdapter)
    parser = defined("action_parser", ActionParser)
    if game is None or adapter is None or parser is None:
        return None
    return GamePackage(game_class=game, state_adapter_class=adapter, action_parser_class=parser)
