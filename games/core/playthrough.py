"""Golden playthroughs: seeded house-bot matches recorded as text, replayed by the tests.

OpenSpiel keeps a playthrough for every game so that a rule change cannot slip in unnoticed; so
do we. A playthrough is one match between house bots, untimed, written as one line per call the
referee made: every state each seat was sent (``on_turn``), every action applied and every refusal,
every round result and the match result, then the outcome. The rules text in ``match_info`` is
written as a placeholder: editing a rules page is not a rule change.

The files live in ``games/<game>/playthroughs/``. ``arena playthroughs --write`` records them;
``tests/games/test_playthroughs.py`` replays each one and fails on any difference unless the game's
``version`` has changed since it was recorded (a version bump starts a new ladder and asks for new
recordings).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.core.agent import InProcessAgentHandle
from games.core.figures import Playthrough
from games.core.referee import MatchSettings, play_match
from games.core.registry import get_game_spec, offline_judge

#: Where a game's playthroughs live, inside its package.
PLAYTHROUGH_DIR = "playthroughs"
#: What replaces ``match_info["rules"]`` in a recording.
RULES_PLACEHOLDER = "<rules.md>"


def playthrough_dir(game_id: str) -> Path:
    """``games/<game>/playthroughs``."""
    return get_game_spec(game_id).package_dir / PLAYTHROUGH_DIR


def _line(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def record_playthrough(game_id: str, playthrough: Playthrough) -> str:
    """Play the match and return its text (deterministic: same code, same text)."""
    spec = get_game_spec(game_id)
    names = playthrough.bots
    record = play_match(
        game_id,
        [InProcessAgentHandle(spec.bots[name], name) for name in names],
        seed=playthrough.seed,
        config=playthrough.config,
        judge=offline_judge(game_id),
        settings=MatchSettings(timed=False, keep_stdout=False),
    )
    if record.platform_error:
        raise RuntimeError(f"{game_id} {names} seed {playthrough.seed}: {record.platform_error}")
    lines = [
        f"# game: {game_id}",
        f"# version: {spec.version}",
        f"# seats: {names[0]}, {names[1]}",
        f"# seed: {playthrough.seed}",
        f"# config: {_line(record.config)}",
        "# one line per call: seat, method, then what the seat was sent; '-> ' the action applied,",
        "# '!! ' a refusal; match_info's rules text is a placeholder. Regenerate with",
        "#   arena playthroughs --write",
    ]
    for entry in record.log:
        method = entry.get("method")
        if method in ("load", "close"):
            continue
        payload = dict(entry.get("payload") or {})
        if method == "on_match_start" and "rules" in payload:
            payload["rules"] = RULES_PLACEHOLDER
        lines.append(f"{entry.get('seat')} {method} {_line(payload)}")
        if entry.get("illegal"):
            lines.append(f"!! {entry['illegal']}")
        if entry.get("action") is not None:
            lines.append(f"-> {_line(entry['action'])}")
    for seat in record.seats:
        lines.append(
            f"= seat {seat.seat} {seat.name}: {seat.outcome} ({seat.reason}), score {seat.score:g}"
        )
    if record.stats:
        lines.append(f"= stats {_line(record.stats)}")
    return "\n".join(lines) + "\n"


def recorded_version(text: str) -> int | None:
    """The game version a recording was made with (its ``# version:`` line)."""
    for line in text.splitlines():
        if line.startswith("# version:"):
            return int(line.split(":", 1)[1])
    return None


@dataclass(frozen=True)
class Replay:
    """A recording replayed: ``diff`` is empty when identical; ``stale`` when the game's version
    is newer than the recording's (a deliberate rule change waiting to be recorded again)."""

    path: Path
    diff: str
    recorded_version: int | None
    version: int

    @property
    def stale(self) -> bool:
        """Whether the version was bumped since the recording was made."""
        return self.recorded_version is not None and self.recorded_version < self.version


def replay(game_id: str, playthrough: Playthrough, *, context_lines: int = 12) -> Replay:
    """Play a recorded match again and compare; the diff keeps its first ``context_lines``."""
    path = playthrough_dir(game_id) / playthrough.filename
    recorded = path.read_text(encoding="utf-8") if path.is_file() else ""
    replayed = record_playthrough(game_id, playthrough)
    lines = difflib.unified_diff(
        recorded.splitlines(keepends=True),
        replayed.splitlines(keepends=True),
        fromfile=f"{path.name} (recorded)",
        tofile="replayed",
        n=0,
    )
    diff = "".join(list(lines)[:context_lines])
    return Replay(path, diff, recorded_version(recorded), get_game_spec(game_id).version)


def write_playthroughs(game_id: str) -> list[Path]:
    """Record every playthrough of ``game_id`` into its directory; remove stale files."""
    directory = playthrough_dir(game_id)
    directory.mkdir(exist_ok=True)
    wanted = {p.filename: p for p in get_game_spec(game_id).playthroughs}
    for old in directory.glob("*.txt"):
        if old.name not in wanted:
            old.unlink()
    written = []
    for name, playthrough in wanted.items():
        path = directory / name
        path.write_text(record_playthrough(game_id, playthrough), encoding="utf-8")
        written.append(path)
    return written
