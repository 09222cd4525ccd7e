"""The conformance check every game passes (OpenSpiel/PettingZoo style).

``check_game(game_id, seeds)`` plays random legal games to the end and checks, at every decision:

* the current player is seated and has at least one available action, each with ``action_type``;
* every seat's ``round_state`` is plain JSON and carries the common fields (docs/games.md);
* an unlisted action is refused with a reason and leaves the state untouched;
* every available action (a sample when there are many) is accepted by ``step``, and the parser
  turns its agent form (``{"type": ...}``) back into a legal action;
* in a simultaneous phase, the next chooser's view does not depend on the hidden choice just made;
* a finished round reports ``round_result`` for every player;

and that the same seed gives an identical game, and that the game ends.

``check_public_view`` (run by ``check_game``) checks the spectator view of the game contract:

* while a round runs, the public view of a seat's state does not change when the seat's secrets
  (every ``get_private_state`` key but ``open_private_fields``) are swapped with the opponent's;
* the public view of an action in a simultaneous phase does not depend on the choice until the
  round has ended;
* after a round, whatever the public view of a seat's round result (or of that round in a later
  ``history``) shows as ``your_X`` is what the opponent was shown as ``opponent_X``: a spectator
  learns no more about a seat than its opponent did (poker: no mucked hole cards). It raises
``AssertionError`` with a reason; tests call it from ``tests/games/<game>/test_conformance.py``.

Random play needs concrete actions: a parser whose templates the base ``get_random_action`` cannot
fill (it knows ``min``/``max`` -> ``amount`` and ``max_length`` -> ``text``) overrides it.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterable
from typing import Any

from games.core.action_parser import ActionParser
from games.core.config import ArenaConfig
from games.core.game import Action, Game
from games.core.judge import JudgedGame, RandomJudge
from games.core.registry import create_game, get_game_spec
from games.core.state_adapter import StateAdapter, agent_action

COMMON_ROUND_STATE_FIELDS = (
    "phase",
    "round",
    "turn",
    "pot",
    "your_score",
    "opponent_score",
    "history",
    "messages",
)
_UNLISTED: Action = {"action_type": "__not_an_action__"}


def check_game(
    game_id: str,
    seeds: Iterable[int] = range(20),
    *,
    config: dict[str, Any] | None = None,
    max_steps: int = 200_000,
    actions_checked_per_step: int = 4,
) -> None:
    """Run every check over ``seeds``; raise ``AssertionError`` naming the first failure."""
    spec = get_game_spec(game_id)
    assert spec.game_class.game_type == game_id, (
        f"{spec.game_class.__name__}.game_type is {spec.game_class.game_type!r}, not {game_id!r}"
    )
    assert isinstance(spec.version, int) and spec.version >= 1, "version must be an int >= 1"
    assert len(spec.bots) >= 3, f"{game_id} needs at least three house bots, has {list(spec.bots)}"
    assert spec.rules_markdown().strip(), "rules.md is empty"
    compile(spec.starter_source(), "starter_agent.py", "exec")
    seeds = list(seeds)
    for seed in seeds:
        first = _playthrough(game_id, seed, config, max_steps, actions_checked_per_step)
        second = _playthrough(game_id, seed, config, max_steps, 0)
        assert first == second, f"seed {seed}: the same seed and actions gave a different game"
    check_public_view(game_id, seeds, config=config, max_steps=max_steps)


def check_public_view(
    game_id: str,
    seeds: Iterable[int] = range(20),
    *,
    config: dict[str, Any] | None = None,
    max_steps: int = 200_000,
) -> None:
    """Play random games and check the public view hides each seat's secrets (module doc)."""
    spec = get_game_spec(game_id)
    cls = spec.game_class
    for seed in seeds:
        game = _new_game(game_id, seed, config)
        adapter = spec.state_adapter_class()
        parser = spec.action_parser_class(fallback_to_random=False, seed=seed)
        rng = random.Random(seed)
        results: dict[int, dict[str, Any]] = {}  # round -> {player id: round_result}
        for step_no in range(max_steps):
            if game.is_over():
                break
            where = f"{game_id} seed {seed} step {step_no}"
            player = game.get_current_player()
            valid = game.get_available_actions()
            for pid in game.players:
                _check_public_state(cls, adapter, game, pid, valid, results, where)
            phase = game.get_public_state().get("phase")
            action = _concrete(parser, valid, rng, where)
            if phase in cls.simultaneous_phases:
                others = [_concrete(parser, valid, rng, where) for _ in range(3)]
                shown = {
                    json.dumps(cls.public_action(phase, agent_action(a), None), sort_keys=True)
                    for a in [action, *others]
                }
                assert len(shown) == 1, (
                    f"{where}: the public view of {player}'s action in simultaneous phase "
                    f"{phase!r} shows the choice before the round ends"
                )
            info, _ = game.step(action)
            if "round_result" in info:
                result = info["round_result"]
                results[next(iter(result.values()))["round"]] = result
                for pid in game.players:
                    shown_result = cls.public_payload("on_round_end", result[pid], result[pid])
                    _check_no_more_than_opponent(
                        shown_result, result[game.opponent_of(pid)], f"{where}: {pid}'s result"
                    )
        else:
            raise AssertionError(f"{game_id} seed {seed}: not over after {max_steps} steps")


def _check_public_state(
    cls: type[Game],
    adapter: StateAdapter,
    game: Game,
    pid: str,
    valid: list[Action],
    results: dict[int, dict[str, Any]],
    where: str,
) -> None:
    public = game.get_public_state()
    private = game.get_private_state(pid)
    other = game.get_private_state(game.opponent_of(pid))
    swapped = {k: v for k, v in private.items() if k in cls.open_private_fields}
    swapped.update({k: v for k, v in other.items() if k not in cls.open_private_fields})
    own_view = cls.public_payload(
        "on_turn", adapter.to_round_state(public, private, pid, valid), None
    )
    swapped_view = cls.public_payload(
        "on_turn", adapter.to_round_state(public, swapped, pid, valid), None
    )
    # A blanked field and an absent one look the same to a spectator.
    own_shown = {k: v for k, v in own_view.items() if v is not None}
    swapped_shown = {k: v for k, v in swapped_view.items() if v is not None}
    if own_shown != swapped_shown:
        leaked = sorted(
            k
            for k in own_shown.keys() | swapped_shown.keys()
            if own_shown.get(k) != swapped_shown.get(k)
        )
        raise AssertionError(
            f"{where}: the public view of {pid}'s state shows its secrets while the round runs "
            f"(fields {leaked}); hide them with secret_fields/sealed_fields or public_payload"
        )
    history = own_view.get("history")
    for entry in history if isinstance(history, list) else []:
        if isinstance(entry, dict) and entry.get("round") in results:
            opponent_result = results[entry["round"]][game.opponent_of(pid)]
            _check_no_more_than_opponent(
                entry, opponent_result, f"{where}: {pid}'s history of round {entry['round']}"
            )


def _check_no_more_than_opponent(
    shown: dict[str, Any], opponent_saw: dict[str, Any], where: str
) -> None:
    """Every ``your_X`` a spectator is shown equals the ``opponent_X`` the opponent was shown."""
    for key, value in shown.items():
        if not key.startswith("your_") or value is None:
            continue
        counterpart = "opponent_" + key.removeprefix("your_")
        if counterpart in opponent_saw:
            assert value == opponent_saw[counterpart], (
                f"{where}: the public view shows {key}={value!r}, but the opponent was only "
                f"shown {counterpart}={opponent_saw[counterpart]!r}"
            )


def _new_game(game_id: str, seed: int, config: dict[str, Any] | None) -> Game:
    # A judged game plays with a judge whose answers follow from each request (copies of the
    # game, as the checks make, get the same answers).
    return create_game(
        ArenaConfig.for_seats(game_id, ["A", "B"], seed, config), judge=RandomJudge(seed)
    )


def _playthrough(
    game_id: str, seed: int, config: dict[str, Any] | None, max_steps: int, sample: int
) -> list[str]:
    spec = get_game_spec(game_id)
    game = _new_game(game_id, seed, config)
    adapter = spec.state_adapter_class()
    parser = spec.action_parser_class(fallback_to_random=False, seed=seed)
    rng = random.Random(seed)  # the moves played
    check_rng = random.Random(seed + 1)  # the extra probes, so probing never changes the moves
    trace: list[str] = []
    rounds_seen: set[int] = set()
    for step_no in range(max_steps):
        if game.is_over():
            break
        where = f"{game_id} seed {seed} step {step_no}"
        player = game.get_current_player()
        assert player in game.players, f"{where}: current player {player!r} is not seated"
        valid = game.get_available_actions()
        assert valid, f"{where}: the game is not over but {player} has no available action"
        assert all("action_type" in a for a in valid), f"{where}: an action lacks action_type"
        for pid in game.players:
            _check_view(adapter, game, pid, valid, where)
        if sample:
            _check_unlisted_refused(game, where)
            _check_actions_accepted(game, parser, valid, check_rng, sample, where)
        action = _concrete(parser, valid, rng, where)
        before = copy.deepcopy(game) if sample else None
        phase = game.get_public_state().get("phase")
        info, over = game.step(action)
        assert over == game.is_over(), f"{where}: step() said over={over}, is_over()={over}"
        if before is not None and phase in game.simultaneous_phases:
            _check_hidden_choice(before, parser, action, adapter, check_rng, where)
        if "round_result" in info:
            result = info["round_result"]
            assert set(result) == set(game.players), f"{where}: round_result lacks a player"
            for pid, entry in result.items():
                for key in ("round", "your_points", "opponent_points"):
                    assert key in entry, f"{where}: round_result[{pid}] has no {key!r}"
            rounds_seen.add(next(iter(result.values()))["round"])
        trace.append(json.dumps([player, action], sort_keys=True, default=str))
    else:
        raise AssertionError(f"{game_id} seed {seed}: not over after {max_steps} steps")
    scores = game.get_scores()
    assert set(scores) == set(game.players), f"{game_id} seed {seed}: scores lack a player"
    winner = game.get_winner()
    if winner is not None:
        assert scores[winner] == max(scores.values()), f"seed {seed}: the winner is not ahead"
    assert rounds_seen, f"{game_id} seed {seed}: no round_result was ever reported"
    trace.append(json.dumps(game.get_public_state(), sort_keys=True, default=str))
    return trace


def _check_view(
    adapter: StateAdapter, game: Game, pid: str, valid: list[Action], where: str
) -> None:
    view = adapter.to_round_state(game.get_public_state(), game.get_private_state(pid), pid, valid)
    try:
        json.dumps(view, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise AssertionError(f"{where}: {pid}'s round_state is not plain JSON: {exc}") from exc
    missing = [k for k in COMMON_ROUND_STATE_FIELDS if k not in view]
    assert not missing, f"{where}: {pid}'s round_state lacks {missing}"
    # A judged game's judge speaks too (an athlete's question), under its role's name.
    speakers = {"you", "opponent"}
    if isinstance(game, JudgedGame):
        speakers.add(game.judge_role)
    for message in view["messages"]:
        assert message["sender"] in speakers, f"{where}: a raw player id in messages"


def _check_unlisted_refused(game: Game, where: str) -> None:
    snapshot = json.dumps(game.serialize(), sort_keys=True, default=str)
    try:
        game.step(dict(_UNLISTED))
    except ValueError as exc:
        assert str(exc).strip(), f"{where}: an unlisted action was refused without a reason"
    else:
        raise AssertionError(f"{where}: step() accepted an action that is not available")
    after = json.dumps(game.serialize(), sort_keys=True, default=str)
    assert snapshot == after, f"{where}: a refused action changed the state"


def _concrete(parser: ActionParser, valid: list[Action], rng: random.Random, where: str) -> Action:
    """A random concrete action, checked to survive the agent-form round trip through the parser."""
    parser._rng = rng  # one stream of randomness per playthrough, for determinism
    action = parser.get_random_action(valid)
    try:
        parsed = parser.parse(agent_action(action), valid)
    except ValueError as exc:
        raise AssertionError(
            f"{where}: the parser refused its own random action {action}: {exc}"
        ) from exc
    return parsed


def _check_actions_accepted(
    game: Game,
    parser: ActionParser,
    valid: list[Action],
    rng: random.Random,
    sample: int,
    where: str,
) -> None:
    candidates = valid if len(valid) <= sample else rng.sample(valid, sample)
    for template in candidates:
        action = _concrete(parser, [template], rng, where)
        trial = copy.deepcopy(game)
        try:
            trial.step(action)
        except ValueError as exc:
            raise AssertionError(f"{where}: available action {action} was refused: {exc}") from exc


def _check_hidden_choice(
    before: Game,
    parser: ActionParser,
    played: Action,
    adapter: StateAdapter,
    rng: random.Random,
    where: str,
) -> None:
    """The next chooser in a simultaneous phase must see the same thing whatever was chosen."""
    chooser = before.get_current_player()
    phase = before.get_public_state().get("phase")
    valid = before.get_available_actions()
    views = []
    for action in [played] + [_concrete(parser, valid, rng, where) for _ in range(3)]:
        trial = copy.deepcopy(before)
        info, _ = trial.step(action)
        nxt = trial.get_current_player()
        public = trial.get_public_state()
        if (
            not nxt
            or nxt == chooser
            or "round_result" in info
            or public.get("phase") != phase
            or public.get("round") != before.get_public_state().get("round")
        ):
            return  # the phase ended with this choice: a reveal is legitimate
        views.append(
            json.dumps(
                adapter.to_round_state(
                    trial.get_public_state(),
                    trial.get_private_state(nxt),
                    nxt,
                    trial.get_available_actions(),
                ),
                sort_keys=True,
            )
        )
    assert len(set(views)) == 1, (
        f"{where}: in simultaneous phase {phase!r} the next player's view reveals "
        f"{chooser}'s hidden choice"
    )
