"""``GAME_REGISTRY``: every game the platform knows, resolved lazily.

Paths are strings resolved with importlib only when a game is used, so listing games imports
nothing heavy. Beyond the engine's classes each entry names its house bots (``bots``: a dict of
bot name to a zero-argument ``Agent`` class) and its replay presenter (``presenter``: see
``games/core/presenter.py``). The starter agent and rules are files beside the game module.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from games.core.action_parser import ActionParser
from games.core.config import ArenaConfig, GameConfig
from games.core.game import Game
from games.core.presenter import Presenter, generic_present
from games.core.state_adapter import StateAdapter


def _entry(package: str, prefix: str) -> dict[str, str]:
    return {
        "game_module": f"games.{package}",
        "game_class": f"games.{package}.game.{prefix}Game",
        "game_factory": f"games.{package}.create_game",
        "state_adapter_class": f"games.{package}.state_adapter.{prefix}StateAdapter",
        "action_parser_class": f"games.{package}.action_parser.{prefix}ActionParser",
        "config_class": f"games.{package}.config.{prefix}Config",
        "bots": f"games.{package}.bots.BOTS",
        "presenter": f"games.{package}.presenter.present",
    }


GAME_REGISTRY: dict[str, dict[str, str]] = {
    "simple-card": _entry("simple_card", "SimpleCard"),
    "split-or-steal": _entry("split_or_steal", "SplitOrSteal"),
    "liars-dice": _entry("liars_dice", "LiarsDice"),
    "nil-recruitment": _entry("nil_recruitment", "NilRecruitment"),
    "nuclear-war": _entry("nuclear_war", "NuclearWar"),
    "passcode": _entry("passcode", "Passcode"),
    "chess": _entry("chess", "Chess"),
    "poker": _entry("poker", "Poker"),
}


class UnknownGameError(KeyError):
    """A game id that is not in the registry."""

    def __str__(self) -> str:
        return f"unknown game {self.args[0]!r}; known games: {', '.join(available_game_ids())}"


def resolve(dotted_path: str) -> Any:
    """Import ``package.module.attr`` and return the attribute."""
    module_name, _, attr = dotted_path.rpartition(".")
    return getattr(importlib.import_module(module_name), attr)


def available_game_ids() -> list[str]:
    """Ids of registered games whose package is present in this tree, in registry order."""
    ids = []
    for game_id, entry in GAME_REGISTRY.items():
        if importlib.util.find_spec(entry["game_module"]) is not None:
            ids.append(game_id)
    return ids


@dataclass(frozen=True)
class GameSpec:
    """A registry entry with its paths resolved."""

    id: str
    game_class: type[Game]
    state_adapter_class: type[StateAdapter]
    action_parser_class: type[ActionParser]
    config_class: type[GameConfig]
    bots: dict[str, type]
    package_dir: Path
    #: Turns a match's log into replay frames (``games/<game>/presenter.py``).
    presenter: Presenter = generic_present

    @property
    def title(self) -> str:
        """The game's human title."""
        return self.game_class.title

    @property
    def version(self) -> int:
        """The game's rule version."""
        return self.game_class.version

    @property
    def ranking(self) -> str:
        """How the ladder ranks the game: ``"elo"`` or ``"mean_payoff"`` (``Game.ranking``)."""
        return self.game_class.ranking

    @property
    def blurb(self) -> str:
        """What the game is, in a sentence or two: the first paragraph of ``rules.md``."""
        paragraph: list[str] = []
        for line in self.rules_markdown().splitlines():
            text = line.strip()
            if text.startswith("#") or (not text and not paragraph):
                continue
            if not text:
                break
            paragraph.append(text)
        return " ".join(paragraph)

    def rules_markdown(self) -> str:
        """The game's ``rules.md``."""
        return (self.package_dir / "rules.md").read_text(encoding="utf-8")

    def strength_table(self) -> dict[str, Any] | None:
        """The house bots' strength table (``strength.json``, made by ``arena strength --write``),
        or ``None`` when the game has none yet."""
        path = self.package_dir / "strength.json"
        if not path.is_file():
            return None
        table: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return table

    def starter_source(self) -> str:
        """The game's ``starter_agent.py``."""
        return (self.package_dir / "starter_agent.py").read_text(encoding="utf-8")

    def make_config(self, values: dict[str, Any] | None = None) -> GameConfig:
        """Validate ``values`` with the game's config class."""
        return self.config_class(**(values or {}))


@cache
def get_game_spec(game_id: str) -> GameSpec:
    """Resolve a registry entry; raise ``UnknownGameError`` for an id not registered."""
    entry = GAME_REGISTRY.get(game_id)
    if entry is None or importlib.util.find_spec(entry["game_module"]) is None:
        raise UnknownGameError(game_id)
    module = importlib.import_module(entry["game_module"])
    return GameSpec(
        id=game_id,
        game_class=resolve(entry["game_class"]),
        state_adapter_class=resolve(entry["state_adapter_class"]),
        action_parser_class=resolve(entry["action_parser_class"]),
        config_class=resolve(entry["config_class"]),
        bots=dict(resolve(entry["bots"])),
        package_dir=Path(module.__file__ or "").parent,
        presenter=_presenter(entry),
    )


def _presenter(entry: dict[str, str]) -> Presenter:
    """The game's replay presenter, or the generic one for a game that has none yet."""
    path = entry.get("presenter")
    if path is None or importlib.util.find_spec(path.rpartition(".")[0]) is None:
        return generic_present
    presenter: Presenter = resolve(path)
    return presenter


def create_game(arena_config: ArenaConfig) -> Game:
    """Instantiate and reset the game ``arena_config`` names, through its own factory."""
    entry = GAME_REGISTRY.get(arena_config.game)
    if entry is None:
        raise UnknownGameError(arena_config.game)
    factory = resolve(entry["game_factory"])
    game: Game = factory(arena_config)
    return game


def house_bot_class(game_id: str, bot_name: str) -> type:
    """The ``Agent`` class of a house bot; ``KeyError`` with the known names otherwise."""
    bots = get_game_spec(game_id).bots
    if bot_name not in bots:
        raise KeyError(
            f"{game_id} has no house bot {bot_name!r}; its bots: {', '.join(sorted(bots))}"
        )
    return bots[bot_name]
