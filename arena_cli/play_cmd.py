"""``arena play``: a full match on your machine, with the real referee and the real sandbox.

    arena play AGENT.py [--opponent house:NAME | OTHER.py | llm:MODEL] [--game ID] [--seed N]
               [--sandbox docker|process] [--untimed] [--json] [--log FILE]
               [--agent-model-base-url URL [--agent-model NAME]... [--agent-model-key-env VAR]]
               [--agent-model NAME... [--models-file FILE]]

Your agent (and an opponent file) run in the sandbox: Docker when an engine answers and the image
exists (``make image``), else the process backend, which isolates nothing and says so. House bots
run in this process. The sandboxed path is the platform's: the waiting agent is frozen, each call
is charged the agent's own time as the sandbox measured it, with the same backstop. Without
``--json`` it prints what each agent printed, turn by turn, then the result; with ``--json`` it
prints one JSON object and nothing else.

With ``--agent-model-base-url`` your agent gets the platform's model gateway (docs/sandbox.md):
``OpenAI()`` with no arguments inside its sandbox reaches that endpoint through the same path as on
the platform (its model time is not charged to its clock; refusals are OpenAI errors), the key
named by ``--agent-model-key-env`` staying in this process. ``--agent-model`` names the models it
may call (default: ``default``, sent to the endpoint as it is).

Without ``--agent-model-base-url``, ``--agent-model NAME`` picks registered models from a TOML
file, ``--models-file FILE`` or else ~/.config/agent-arena/models.toml (``$ARENA_CONFIG_DIR``),
one table a model under the name the agent asks for:

    [models.smollm2]
    base_url = "http://127.0.0.1:8080/v1"   # the OpenAI-compatible endpoint (required)
    model = "smollm2"                       # the id it expects (default: the table's name)
    key_env = "MY_KEY"                      # the NAME of the variable holding its key
    max_tokens = 256                        # when a request names none
    max_tokens_cap = 1024                   # the most a request may ask for

The key stays in this process's environment; the file never holds it.

Exit status: 0 when your agent played to the end (win, loss or draw), 1 when it forfeited (it
failed to start, crashed, timed out or made four illegal actions in a row), 2 for a mistake on
the command line, 1 when the platform could not play the match.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

from arena_cli import add_command
from arena_cli.models_file import ModelsFileError, models_file_path, models_pick
from games.core import (
    MatchRecord,
    MatchSettings,
    Reason,
    UnknownGameError,
    get_game_spec,
    play_match,
)
from games.core.agent import AgentHandle
from games.core.record import reason_text, score_text
from games.core.registry import offline_judge
from llm_seat import Endpoint, LlmSeat, Sampling, SeatPolicy
from llm_seat.gateway import ClientBackend, GatewayModel
from sandbox import (
    BACKENDS,
    CLI_INSTANCE,
    ModelAllowance,
    ModelGateway,
    SandboxLimits,
    create_handle,
    detect_backend,
    remove_orphans,
    trusted_handle,
)

HOUSE_PREFIX = "house:"
LLM_PREFIX = "llm:"


def register(subparsers: Any) -> None:
    """Add ``play``."""
    play = add_command(
        subparsers,
        "play",
        "play a local match: your agent against a house bot or another file, in the sandbox",
        __doc__,
    )
    play.add_argument("agent", metavar="AGENT.py", help="your agent file (defines class Agent)")
    play.add_argument(
        "--opponent",
        help="house:NAME for a house bot (default: the game's first), another agent file, or "
        "llm:MODEL for a language model at --llm-base-url",
    )
    play.add_argument(
        "--llm-base-url",
        help="with --opponent llm:MODEL: the OpenAI-compatible endpoint, e.g. "
        "http://127.0.0.1:8080/v1",
    )
    play.add_argument(
        "--llm-key-env",
        help="with --opponent llm:MODEL: the NAME of the environment variable holding its key",
    )
    play.add_argument(
        "--llm-max-tokens", type=int, default=256, help="max_tokens per model call (default 256)"
    )
    play.add_argument("--game", help="game id (default: your Agent's GAME)")
    play.add_argument("--seed", type=int, default=0, help="the match seed (default 0)")
    play.add_argument(
        "--sandbox",
        choices=BACKENDS,
        help="docker (isolated) or process (NOT isolated); default: docker when available",
    )
    play.add_argument(
        "--untimed",
        action="store_true",
        help="no 2 s budget a turn (a 60 s cap instead), for debugging",
    )
    play.add_argument(
        "--agent-model-base-url",
        metavar="URL",
        help="give your agent a model gateway to this OpenAI-compatible endpoint "
        "(OpenAI() with no arguments reaches it from inside the sandbox)",
    )
    play.add_argument(
        "--agent-model",
        action="append",
        metavar="NAME",
        help="a model your agent may call (repeatable): with --agent-model-base-url sent to it "
        "as it is (default: default), else a name of the models file",
    )
    play.add_argument(
        "--agent-model-key-env",
        metavar="VAR",
        help="with --agent-model-base-url: the NAME of the environment variable holding the "
        "endpoint's key (it never enters the sandbox)",
    )
    play.add_argument(
        "--models-file",
        metavar="FILE",
        help="without --agent-model-base-url: the TOML file --agent-model names models of "
        "(default: ~/.config/agent-arena/models.toml; the format is above)",
    )
    play.add_argument(
        "--agent-model-turn-s",
        type=float,
        default=10.0,
        help="model time your agent has per turn, apart from its own clock (default 10)",
    )
    play.add_argument("--json", action="store_true", help="print one JSON object: the result")
    play.add_argument("--log", metavar="FILE", help="write the full match record (JSON) to FILE")
    play.set_defaults(func=cmd_play)


class PlayError(Exception):
    """A mistake in the command line or the agent file, said to the person who typed it."""


def declared_game(source: str, path: str) -> str | None:
    """``Agent.GAME`` read from the source without running it (``None`` when not a literal)."""
    try:
        tree = ast.parse(source, filename=path)
    except SyntaxError as exc:
        raise PlayError(f"{path}, line {exc.lineno}: {exc.msg}") from None
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Agent"]
    if not classes:
        raise PlayError(
            f"{path} defines no class Agent at the top level: an agent file needs "
            '`class Agent:` with `GAME = "<game id>"` and an on_turn method '
            "(start from a starter agent: `arena games` lists the games)"
        )
    for node in classes:
        if isinstance(node, ast.ClassDef) and node.name == "Agent":
            for statement in node.body:
                if (
                    isinstance(statement, ast.Assign)
                    and any(isinstance(t, ast.Name) and t.id == "GAME" for t in statement.targets)
                    and isinstance(statement.value, ast.Constant)
                    and isinstance(statement.value.value, str)
                ):
                    return statement.value.value
    return None


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PlayError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise PlayError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise PlayError(f"{path}: {exc.strerror}") from None


def model_handle(args: argparse.Namespace, model: str) -> AgentHandle:
    """A language-model seat (docs/llm-seats.md) for ``--opponent llm:MODEL``."""
    if not model or not args.llm_base_url:
        raise PlayError(
            "--opponent llm:MODEL needs the model's name and --llm-base-url (an OpenAI-compatible "
            "endpoint such as http://127.0.0.1:8080/v1)"
        )
    key = ""
    if args.llm_key_env:
        key = os.environ.get(args.llm_key_env, "")
        if not key:
            raise PlayError(f"--llm-key-env {args.llm_key_env}: that environment variable is empty")
    return LlmSeat(
        endpoint=Endpoint(name=model, base_url=args.llm_base_url, model=model, api_key=key),
        sampling=Sampling(max_tokens=max(1, args.llm_max_tokens)),
        policy=SeatPolicy(),
        display_name=f"{LLM_PREFIX}{model}",
    )


def agent_gateway(args: argparse.Namespace) -> ModelGateway | None:
    """The model gateway of ``--agent-model-base-url``, or of the models file's
    ``--agent-model`` names; ``None`` with neither."""
    if not args.agent_model_base_url:
        if args.agent_model_key_env:
            raise PlayError("--agent-model-key-env needs --agent-model-base-url")
        if not args.agent_model:
            if args.models_file:
                raise PlayError("--models-file needs --agent-model NAME (a model of the file)")
            return None
        return _file_gateway(args)
    if args.models_file:
        raise PlayError("give --agent-model-base-url or --models-file, not both")
    key = ""
    if args.agent_model_key_env:
        key = os.environ.get(args.agent_model_key_env, "")
        if not key:
            raise PlayError(
                f"--agent-model-key-env {args.agent_model_key_env}: that environment variable "
                "is empty"
            )
    names = args.agent_model or ["default"]
    return _gateway(
        args,
        [
            GatewayModel(
                name=name,
                endpoint=Endpoint(
                    name=name, base_url=args.agent_model_base_url, model=name, api_key=key
                ),
            )
            for name in names
        ],
    )


def _file_gateway(args: argparse.Namespace) -> ModelGateway:
    """The gateway to the models file's ``--agent-model`` names."""
    path = Path(args.models_file) if args.models_file else models_file_path()
    try:
        entries = models_pick(path, [n for n in args.agent_model if n])
        models = [
            GatewayModel(
                name=entry.name,
                endpoint=Endpoint(
                    name=entry.name, base_url=entry.base_url, model=entry.model, api_key=entry.key()
                ),
                default_max_tokens=entry.max_tokens,
                max_tokens_cap=entry.max_tokens_cap,
            )
            for entry in entries
        ]
    except ModelsFileError as exc:
        raise PlayError(str(exc)) from None
    if not models:
        raise PlayError("--agent-model needs a model's name")
    return _gateway(args, models)


def _gateway(args: argparse.Namespace, models: list[GatewayModel]) -> ModelGateway:
    if args.agent_model_turn_s <= 0:
        raise PlayError("--agent-model-turn-s must be positive")
    return ModelGateway(
        ClientBackend(models), allowance=ModelAllowance(per_turn_s=args.agent_model_turn_s)
    )


def build_handles(args: argparse.Namespace) -> tuple[str, list[AgentHandle], str]:
    """The game id, the two seats' handles and the backend used."""
    source = _read(args.agent)
    game_id = args.game or declared_game(source, args.agent)
    if game_id is None:
        raise PlayError(
            f'{args.agent} has no `GAME = "..."` in class Agent; add one or pass --game'
        )
    try:
        spec = get_game_spec(game_id)
    except UnknownGameError as exc:
        raise PlayError(str(exc)) from None
    backend = args.sandbox or detect_backend()
    name = Path(args.agent).stem
    opponent = args.opponent or HOUSE_PREFIX + next(iter(spec.bots))
    house_bot = opponent.startswith(HOUSE_PREFIX)
    # The platform's ranked path: the waiting agent frozen (the cgroup freezer where this process
    # can write it, else docker pause), each call charged the harness's window, the backstop.
    limits = SandboxLimits(freeze_idle=True)
    if backend == "docker":
        # Containers an earlier `arena play` left (killed before it could remove them); only
        # `arena play`'s own instance: a platform's containers on this engine are its business.
        remove_orphans(instance=CLI_INSTANCE)
    handles: list[AgentHandle] = [
        create_handle(
            source,
            name=name,
            backend=backend,
            limits=limits,
            instance=CLI_INSTANCE,
            gateway=agent_gateway(args),
        )
    ]
    if opponent.startswith(LLM_PREFIX):
        handles.append(model_handle(args, opponent[len(LLM_PREFIX) :]))
    elif house_bot:
        bot = opponent[len(HOUSE_PREFIX) :]
        if bot not in spec.bots:
            raise PlayError(
                f"{game_id} has no house bot {bot!r}; its bots: "
                + ", ".join(HOUSE_PREFIX + b for b in spec.bots)
            )
        handles.append(trusted_handle(spec.bots[bot], name=opponent))
    else:
        if not Path(opponent).exists() and not opponent.endswith(".py"):
            bots = ", ".join(HOUSE_PREFIX + b for b in spec.bots)
            hint = (
                f"did you mean {HOUSE_PREFIX}{opponent}? "
                if opponent in spec.bots
                else f"for a house bot write {HOUSE_PREFIX}NAME ({game_id}'s bots: {bots}); "
            )
            raise PlayError(f"--opponent {opponent}: no such file; {hint}or give an agent file")
        other = Path(opponent).stem
        other_name = other if other != name else f"{other} (2)"
        other_source = _read(opponent)
        handles.append(
            create_handle(
                other_source, name=other_name, backend=backend, limits=limits, instance=CLI_INSTANCE
            )
        )
    return game_id, handles, backend


def result_json(record: MatchRecord) -> dict[str, Any]:
    """The ``--json`` object of the issue: winner seat, per-seat outcome, counts, duration."""
    return {
        "game": record.game,
        "seed": record.seed,
        "winner": record.winner,
        "seats": [
            {
                "name": s.name,
                "outcome": None if s.outcome is None else str(s.outcome),
                "reason": None if s.reason is None else str(s.reason),
                "score": s.score,
            }
            for s in record.seats
        ],
        "rounds": record.rounds_played,
        "turns": record.turns,
        "duration_s": record.duration_s,
    }


def _printer(names: list[str]) -> Any:
    def show(entry: dict[str, Any]) -> None:
        seat = entry.get("seat")
        who = names[seat] if isinstance(seat, int) and seat < len(names) else "referee"
        where = f"r{entry.get('round', '?')}"
        # Only moves have a turn; a round's hooks (on_round_end...) belong to the round.
        if entry.get("turn") is not None and entry.get("method") in ("on_turn", "referee"):
            where += f" t{entry['turn']}"
        line = f"[{where}] {who}.{entry.get('method')}"
        if entry.get("method") == "on_turn" and "reply" in entry:
            line += f" -> {json.dumps(entry['reply'])}"
        if entry.get("elapsed_ms") is not None:
            line += f"  ({entry['elapsed_ms']:.1f} ms)"
        print(line)
        stdout = entry.get("stdout")
        if stdout:
            for text in stdout.rstrip("\n").split("\n"):
                print(f"    | {text}")
        if entry.get("illegal"):
            print(f"    ! illegal: {entry['illegal']}")
        elif entry.get("error"):
            for text in str(entry["error"]).rstrip("\n").split("\n"):
                print(f"    ! {text}")

    return show


def _why_not_docker() -> str:
    """Why ``detect_backend`` chose the process backend, in words a participant can act on."""
    from sandbox.engine import docker_client

    try:
        docker_client().api.ping()
    except Exception:  # any failure means the same to a person: no engine to use
        return "no Docker engine answers"
    return "the sandbox image is missing: run `make image` to play in Docker"


def cmd_play(args: argparse.Namespace) -> int:
    """``arena play``."""
    try:
        game_id, handles, backend = build_handles(args)
    except PlayError as exc:
        print(f"arena play: {exc}", file=sys.stderr)
        return 2
    settings = MatchSettings(timed=not args.untimed, keep_stdout=True)
    names = [h.name for h in handles]
    if not args.json:
        print(f"{game_id}: {names[0]} vs {names[1]}, seed {args.seed}, sandbox {backend}")
    if backend == "process":
        why = "" if args.sandbox else f" ({_why_not_docker()})"
        print(
            "arena play: WARNING: the process sandbox does NOT isolate agents; they run as you"
            + why,
            file=sys.stderr,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # said once above, in plain words
        record = play_match(
            game_id,
            handles,
            seed=args.seed,
            settings=settings,
            on_event=None if args.json else _printer(names),
            # A judged game plays locally with its scripted judge (docs/games.md, "Judged
            # games"); its real judge is the operator's model on the platform.
            judge=offline_judge(game_id),
        )
    if args.log:
        Path(args.log).write_text(json.dumps(record.to_dict(), indent=2) + "\n", encoding="utf-8")
    if record.platform_error:
        print(
            f"arena play: the match could not be played: {record.platform_error}", file=sys.stderr
        )
        return 1
    # The match was played, but a script (or CI) must know when the agent forfeited it.
    failed = record.seats[0].reason not in (Reason.NORMAL, None)
    if args.json:
        print(json.dumps(result_json(record)))
        return 1 if failed else 0
    print()
    for seat in record.seats:
        reasons = [] if seat.reason in (Reason.NORMAL, None) else [reason_text(seat.reason)]
        if seat.detail:
            reasons.append(seat.detail)
        shown = f" ({'; '.join(reasons)})" if reasons else ""
        print(f"{seat.name}: {seat.outcome}, score {score_text(seat.score)}{shown}")
    print(record.summary())
    print(f"{record.rounds_played} rounds, {record.turns} turns, {record.duration_s:.2f} s")
    if failed:
        print(
            f"arena play: {record.seats[0].name} {reason_text(record.seats[0].reason)}; "
            "see the ! lines above for why",
            file=sys.stderr,
        )
        return 1
    return 0
