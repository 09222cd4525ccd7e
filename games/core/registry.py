"""Every game the platform knows, found by its folder.

A game is a package under ``games/`` laid out by convention (``games.core.manifest``: its
``game.py``, ``state_adapter.py``, ``action_parser.py``, ``bots.py``, ``presenter.py``), or one
whose ``__init__.py`` declares ``ARENA_GAME`` (a ``GamePackage``); its ``Game`` subclass declares
its playthroughs and its ladder figures. Packages named in the
environment variable ``ARENA_GAME_PACKAGES`` (comma-separated importable names, e.g. a game kept
outside this tree) are added the same way. Nothing else lists games: adding one is adding a folder
(docs/games.md). Games are discovered on first use, not at import (a game's package imports
``games.core`` itself); bots and presenters are imported only when used.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pkgutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import games
from games.core.action_parser import ActionParser
from games.core.config import ArenaConfig, GameConfig
from games.core.figures import LadderFigure, Playthrough
from games.core.game import Game
from games.core.judge import Judge, JudgedGame, JudgeListener
from games.core.manifest import GamePackage, package_by_convention
from games.core.presenter import Presenter, generic_present
from games.core.state_adapter import StateAdapter

#: The environment variable naming extra game packages (comma-separated import names).
EXTRA_GAME_PACKAGES_ENV = "ARENA_GAME_PACKAGES"


@dataclass(frozen=True)
class _Found:
    """A discovered game: its package's import name and what it declares."""

    module: str
    package: GamePackage


def _game_packages_to_scan() -> list[str]:
    builtin = [
        f"games.{info.name}"
        for info in pkgutil.iter_modules(games.__path__)
        if info.ispkg and info.name != "core"
    ]
    extra = os.environ.get(EXTRA_GAME_PACKAGES_ENV, "")
    return builtin + [name.strip() for name in extra.split(",") if name.strip()]


@cache
def _discovered() -> dict[str, _Found]:
    """Game id -> its package, in listing order (``GamePackage.order``, then id)."""
    found: dict[str, _Found] = {}
    for module_name in _game_packages_to_scan():
        module = importlib.import_module(module_name)
        declared = getattr(module, "ARENA_GAME", None)
        package = declared if isinstance(declared, GamePackage) else None
        package = package or package_by_convention(module_name)
        if package is None:
            continue  # a helper package, not a game
        game_id = package.game_class.game_type
        if game_id in found:
            raise ValueError(
                f"two game packages declare the id {game_id!r}: "
                f"{found[game_id].module} and {module_name}"
            )
        found[game_id] = _Found(module_name, package)
    return dict(sorted(found.items(), key=lambda item: (item[1].package.game_class.order, item[0])))


def game_packages() -> dict[str, _Found]:
    """The discovered games (a dict tests may extend with ``register_game``)."""
    return _discovered()


def register_game(module_name: str, package: GamePackage) -> None:
    """Add a game that is not in a scanned folder (tests); ``forget_games`` undoes it."""
    _discovered()[package.game_class.game_type] = _Found(module_name, package)
    get_game_spec.cache_clear()


def forget_games() -> None:
    """Discover the games again on next use (after ``ARENA_GAME_PACKAGES`` changed)."""
    _discovered.cache_clear()
    get_game_spec.cache_clear()


class UnknownGameError(KeyError):
    """A game id that is not in the registry."""

    def __str__(self) -> str:
        return f"unknown game {self.args[0]!r}; known games: {', '.join(available_game_ids())}"


def resolve(dotted_path: str) -> Any:
    """Import ``package.module.attr`` and return the attribute."""
    module_name, _, attr = dotted_path.rpartition(".")
    return getattr(importlib.import_module(module_name), attr)


def available_game_ids() -> list[str]:
    """Ids of every discovered game, in listing order."""
    return list(game_packages())


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
    #: The golden playthroughs recorded for the game.
    playthroughs: tuple[Playthrough, ...] = ()
    #: Figures of the game's own its ladder shows (poker's BB/100).
    ladder_figures: tuple[LadderFigure, ...] = ()

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
    """Resolve a discovered game; raise ``UnknownGameError`` for an id no folder declares."""
    found = game_packages().get(game_id)
    if found is None:
        raise UnknownGameError(game_id)
    module = importlib.import_module(found.module)
    package = found.package
    return GameSpec(
        id=game_id,
        game_class=package.game_class,
        state_adapter_class=package.state_adapter_class,
        action_parser_class=package.action_parser_class,
        config_class=package.game_class.config_class,
        bots=dict(resolve(f"{found.module}.{package.bots}")),
        package_dir=Path(module.__file__ or "").parent,
        presenter=_presenter(found),
        playthroughs=package.game_class.playthroughs,
        ladder_figures=package.game_class.ladder_figures,
    )


def _presenter(found: _Found) -> Presenter:
    """The game's replay presenter, or the generic one for a game that has none."""
    if found.package.presenter is None:
        return generic_present
    path = f"{found.module}.{found.package.presenter}"
    if importlib.util.find_spec(path.rpartition(".")[0]) is None:
        return generic_present
    presenter: Presenter = resolve(path)
    return presenter


def create_game(
    arena_config: ArenaConfig,
    *,
    judge: Judge | None = None,
    judge_listener: JudgeListener | None = None,
) -> Game:
    """Instantiate and reset the game ``arena_config`` names, its config validated.

    A judged game (``games.core.judge.JudgedGame``) gets ``judge`` and reports each of its
    answers to ``judge_listener`` (the referee's log); without a judge it fails at its first
    question. Other games ignore both."""
    spec = get_game_spec(arena_config.game)
    config: GameConfig = spec.config_class(**arena_config.config)
    game = spec.game_class(
        players=[p.id for p in arena_config.players], config=config, seed=arena_config.seed
    )
    if isinstance(game, JudgedGame):
        game.bind_judge(judge, judge_listener)
    return game


def offline_judge(game_id: str) -> Judge | None:
    """A judged game's scripted stand-in for its judge (``JudgedGame.offline_judge``), for
    offline tools only (golden playthroughs, strength tables, tests, ``arena play``); ``None``
    for a game without a judge. Rated play on the platform uses the operator's model."""
    game_class = get_game_spec(game_id).game_class
    return game_class.offline_judge() if issubclass(game_class, JudgedGame) else None


def is_judged(game_id: str) -> bool:
    """Whether ``game_id`` is decided by a judge the operator must provide."""
    return issubclass(get_game_spec(game_id).game_class, JudgedGame)


def house_bot_class(game_id: str, bot_name: str) -> type:
    """The ``Agent`` class of a house bot; ``KeyError`` with the known names otherwise."""
    bots = get_game_spec(game_id).bots
    if bot_name not in bots:
        raise KeyError(
            f"{game_id} has no house bot {bot_name!r}; its bots: {', '.join(sorted(bots))}"
        )
    return bots[bot_name]
