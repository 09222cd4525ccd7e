"""The ``Game`` contract (docs/games.md, "What every game shares").

A game is a deterministic state machine: ``reset(seed)``, then while not over the current player
picks one of ``get_available_actions()`` and ``step(action)`` applies it. All randomness comes from
the seed. The referee (``games.core.referee``) drives it; agents never touch it directly.

Beyond the minimal state machine:

* **Rounds.** ``get_round()`` is the 1-based round; when a round ends, ``step`` puts
  ``round_result`` (a dict per player id, from that player's point of view) into its info. A game
  played round after round builds on ``RoundByRoundGame`` (``RoundsGame`` when ``config.rounds``
  counts them): it keeps the round, the scores and the finished rounds, and starts and closes
  each round.
* **Simultaneous choices** are taken one player after the other; phases listed in
  ``simultaneous_phases`` must not show the second player the first one's choice (the conformance
  check verifies it).
* **Parametric actions** appear as templates, e.g. ``{"action_type": "raise", "min": 200,
  "max": 20000}``; the game's ``ActionParser`` checks the parameters.
* **Public view.** What a spectator at the table sees of the payloads sent to one seat
  (``public_payload``) and of the actions it played (``public_action``), computed from the
  stored payload plus what the round later revealed (that seat's ``round_result``, ``None``
  while the round runs). Declare ``secret_fields``, ``sealed_fields`` and ``secret_phases``, or
  override the two methods (poker shows hole cards only of hands shown down). The conformance
  check verifies the view hides a seat's secrets.
* **Retries exhausted.** After the last illegal retry the referee asks ``on_retries_exhausted``;
  ``None`` (the default) forfeits the match, an action (poker's fold) is applied instead.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from games.core.config import GameConfig, RoundsConfig
from games.core.errors import IllegalActionError
from games.core.figures import LadderFigure, Playthrough

Action = dict[str, Any]


def your_and_opponent(viewer: str, opponent: str, **per_seat: Mapping[str, Any]) -> dict[str, Any]:
    """Per-seat values as ``viewer`` sees them: for each ``name=values`` (keyed by player id),
    ``your_<name>`` then ``opponent_<name>``, in the order given."""
    view: dict[str, Any] = {}
    for name, values in per_seat.items():
        view[f"your_{name}"] = values[viewer]
        view[f"opponent_{name}"] = values[opponent]
    return view


class Game(ABC):
    """Base class of every game engine."""

    #: Kebab-case id agents put in ``GAME`` (``"split-or-steal"``).
    game_type: ClassVar[str]
    #: Ids the game had before (a stand-in renamed when a judged game took its id): an agent
    #: uploaded under one of them, whose source still declares it in ``GAME``, keeps playing this
    #: game (``games.core.agent.DeclaredGameHandle``).
    former_ids: ClassVar[frozenset[str]] = frozenset()
    #: Human title for pages and ``arena games``.
    title: ClassVar[str]
    #: Bumped on any rule change: leaderboards are keyed by (game, version).
    version: ClassVar[int] = 1
    #: The pydantic config class; ``create_game`` validates ``ArenaConfig.config`` with it.
    config_class: ClassVar[type[GameConfig]]
    #: How the ladder ranks this game (docs/architecture.md, "Ratings and matchmaking"):
    #: ``"elo"`` on win/draw/loss for zero-sum games; ``"mean_payoff"`` (mean payoff per match
    #: against the field, with a confidence interval) for non-zero-sum games, where head-to-head
    #: wins reward a trivial strategy.
    ranking: ClassVar[Literal["elo", "mean_payoff"]] = "elo"
    #: Phases in which both players choose "at once" (collected one after the other).
    simultaneous_phases: ClassVar[frozenset[str]] = frozenset()
    #: Payload fields a spectator never sees (a hand of cards, private probes). The default
    #: ``public_payload`` blanks them in every payload sent to a seat.
    secret_fields: ClassVar[frozenset[str]] = frozenset()
    #: Payload fields a spectator sees once their round has ended (its result reveals them).
    sealed_fields: ClassVar[frozenset[str]] = frozenset()
    #: Phases whose chosen actions a spectator never sees (passcode's private probes). Actions
    #: of ``simultaneous_phases`` stay hidden until the round ends.
    secret_phases: ClassVar[frozenset[str]] = frozenset()
    #: The golden playthroughs recorded for the game (``arena playthroughs --write``).
    playthroughs: ClassVar[tuple[Playthrough, ...]] = ()
    #: Figures of the game's own its ladder shows beside the rating (poker's BB/100).
    ladder_figures: ClassVar[tuple[LadderFigure, ...]] = ()
    #: Where the game comes in lists (lower first; ties by id).
    order: ClassVar[int] = 100
    #: Keys of ``get_private_state`` that are not secrets (chess's colour); the conformance check
    #: swaps every other key with the opponent's and expects the public view not to change.
    open_private_fields: ClassVar[frozenset[str]] = frozenset({"player_id", "history"})

    def __init__(
        self, players: Sequence[str], config: GameConfig | None = None, seed: int | None = None
    ) -> None:
        if len(set(players)) != len(players) or not players:
            raise ValueError(f"players must be distinct and non-empty, got {list(players)!r}")
        self.players: list[str] = list(players)
        self.config = config if config is not None else self.config_class()
        self.rng = random.Random(0)
        if seed is not None:
            self.reset(seed)

    # --- required -----------------------------------------------------------------------------

    @abstractmethod
    def reset(self, seed: int) -> None:
        """Initialise all state from ``seed`` (the only source of randomness)."""

    @abstractmethod
    def get_current_player(self) -> str:
        """The id of the player to act, or ``""`` when the game is over."""

    @abstractmethod
    def get_public_state(self) -> dict[str, Any]:
        """State every seat may see: scores, history, messages, phase."""

    @abstractmethod
    def get_private_state(self, player_id: str) -> dict[str, Any]:
        """State only ``player_id`` may see (their hand, their own pending choice)."""

    @abstractmethod
    def get_available_actions(self) -> list[Action]:
        """Legal actions (or templates) for the current player; each has ``action_type``."""

    @abstractmethod
    def step(self, action: Action) -> tuple[dict[str, Any], bool]:
        """Apply ``action`` for the current player; return ``(info, game_over)``.

        Raises ``IllegalActionError`` (a ``ValueError``) naming the rule when the action is illegal.
        """

    @abstractmethod
    def get_scores(self) -> dict[str, float]:
        """Match totals per player id."""

    @abstractmethod
    def get_round(self) -> int:
        """The current round, 1-based (the last round once the game is over)."""

    @property
    @abstractmethod
    def total_rounds(self) -> int:
        """How many rounds a full match has."""

    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.get_current_player() == ""

    def get_winner(self) -> str | None:
        """The player with the strictly highest score once over; ``None`` for a draw or in play."""
        if not self.is_over():
            return None
        scores = self.get_scores()
        best = max(scores.values())
        leaders = [p for p, s in scores.items() if s == best]
        return leaders[0] if len(leaders) == 1 else None

    # --- optional -----------------------------------------------------------------------------

    def get_current_role(self) -> str:
        """The role of the current player; every game here has just ``"player"``."""
        return "player"

    def get_players(self) -> list[str]:
        """All player ids, in seat order."""
        return list(self.players)

    def get_teams(self) -> dict[str, list[str]] | None:
        """Team to player ids; ``None``: no teams."""
        return None

    def serialize(self) -> dict[str, Any]:
        """A snapshot for logs and replays."""
        return {
            "game": self.game_type,
            "version": self.version,
            "public": self.get_public_state(),
            "private": {p: self.get_private_state(p) for p in self.players},
        }

    # --- rounds, seats, figures -----------------------------------------------------------------

    def opponent_of(self, player_id: str) -> str:
        """The other player of a two-player game."""
        return self.players[1] if player_id == self.players[0] else self.players[0]

    def get_match_info(self, player_id: str) -> dict[str, Any]:
        """Game-specific fields added to ``match_info`` for ``player_id`` (e.g. NIL's values)."""
        return {}

    def get_round_info(self, player_id: str) -> dict[str, Any]:
        """The payload of ``on_round_start`` for ``player_id``: ``{round, pot, …}``."""
        return {"round": self.get_round(), "pot": self.get_public_state().get("pot")}

    def get_match_stats(self) -> dict[str, Any]:
        """Extra figures for the match record (poker's BB/100); empty by default."""
        return {}

    # --- the public (spectator) view -------------------------------------------------------

    @classmethod
    def public_payload(
        cls, method: str, payload: Mapping[str, Any], revealed: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """What a spectator sees of ``payload``, sent to one seat by the referee's ``method``.

        ``revealed`` is that seat's ``round_result`` of the payload's round once the round has
        ended, ``None`` while it runs (or if the match ended before it did). The default blanks
        ``secret_fields`` always and ``sealed_fields`` until the round has ended. Payloads come
        back from storage, so a field may hold a placeholder string instead of its value.
        """
        hidden = (
            cls.secret_fields if revealed is not None else cls.secret_fields | cls.sealed_fields
        )
        return {key: None if key in hidden else value for key, value in payload.items()}

    @classmethod
    def public_action(
        cls, phase: object, action: object, revealed: Mapping[str, Any] | None
    ) -> object:
        """What a spectator sees of an action played in ``phase`` (``None``: hidden).

        Default: actions of ``secret_phases`` never, of ``simultaneous_phases`` once the round
        has ended (``revealed`` is not ``None``), every other action at once.
        """
        if phase in cls.secret_phases:
            return None
        if phase in cls.simultaneous_phases and revealed is None:
            return None
        return action

    def on_retries_exhausted(self, player_id: str) -> Action | None:
        """The action applied after the last illegal retry, or ``None`` to forfeit (default)."""
        return None


class RoundByRoundGame(Game):
    """A two-seat game played round after round, ``total_rounds`` of them.

    ``reset`` seeds the generator, counts ``self.round`` from 1, zeroes ``self.scores``, empties
    ``self.finished`` (one seat-neutral entry per finished round), then calls ``_start_match``
    and ``_start_round``; ``_finish_round`` closes a round and starts the next one, or sets
    ``self.over`` and calls ``_end_match`` after the last. ``_begin_step`` opens a ``step``
    (refusing any action once over) and ``_round_order`` gives the seats in the round's turn
    order (seat 0 first in round 1, then alternating).
    """

    round: int
    scores: dict[str, int]
    finished: list[dict[str, Any]]
    over: bool

    def reset(self, seed: int) -> None:
        """Seed the generator with ``seed``, zero the scores and start round 1."""
        self.rng.seed(seed)
        self.round = 1
        self.scores = dict.fromkeys(self.players, 0)
        self.finished = []
        self.over = False
        self._start_match()
        self._start_round()

    def _start_match(self) -> None:
        """Set up what lasts the whole match, before round 1 (nothing by default)."""

    @abstractmethod
    def _start_round(self) -> None:
        """Set up round ``self.round``."""

    def _end_match(self) -> None:
        """Tidy up after the last round (nothing by default)."""

    def _round_order(self) -> list[str]:
        """Both seats in this round's order: seat 0 first in round 1, then the first seat
        alternates round by round."""
        first = (self.round - 1) % 2
        return [self.players[first], self.players[1 - first]]

    def _begin_step(self, action: Action) -> tuple[str, dict[str, Any]]:
        """The start of every ``step``: refuse any action once the match is over, else return
        the player to act and the step's ``info`` so far (that player and a copy of ``action``).
        """
        if self.over:
            raise IllegalActionError("the match is over")
        player = self.get_current_player()
        return player, {"player": player, "action": dict(action)}

    def _finish_round(
        self,
        points: Mapping[str, int],
        entry: dict[str, Any],
        view: Callable[[str, str], dict[str, Any]],
    ) -> dict[str, dict[str, Any]]:
        """Close round ``self.round`` and return its ``round_result``.

        Adds ``points`` to the scores, keeps ``entry`` in ``finished``, takes each seat's result
        from ``view(seat, opponent)`` while the round's state is still there, then starts the
        next round, or ends the match after the last one.
        """
        for p in self.players:
            self.scores[p] += points[p]
        self.finished.append(entry)
        result = {p: view(p, self.opponent_of(p)) for p in self.players}
        self.round += 1
        if self.round > self.total_rounds:
            self.over = True
            self._end_match()
        else:
            self._start_round()
        return result

    def get_round(self) -> int:
        """The current round (the last one once over)."""
        return min(self.round, self.total_rounds)

    def get_scores(self) -> dict[str, float]:
        """The points of the rounds finished so far."""
        return {p: float(s) for p, s in self.scores.items()}


class RoundsGame(RoundByRoundGame):
    """A ``RoundByRoundGame`` of ``config.rounds`` rounds."""

    config: RoundsConfig

    @property
    def total_rounds(self) -> int:
        """``config.rounds``."""
        return self.config.rounds
