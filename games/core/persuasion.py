"""What the two judged persuasion games share (NIL Recruitment, Nuclear War).

A round plays one scenario from one side: an ``introduction`` (one message each), then
``persuasion_steps`` times the judge asks both sides a question and each answers (the middle
phase), then a ``closing`` (one message each); then the judge commits to one side and says why.
The round's winner scores the pot.

Fair by construction:

* each scenario is played twice, in consecutive rounds, with the sides swapped;
* the first speaker alternates round by round (seat 0 first in round 1);
* the judge never learns who is who: each side is ``A`` or ``B``, drawn from the match's seed at
  each round's start, and it reads each phase's two texts in that order (A's, then B's), not in
  the order they were spoken;
* players' texts are cut to ``max_message_chars`` (never refused) and reach the judge quoted
  (``games.core.judge``).

A game subclass names its action (``pitch``), its middle phase, its judge's role and the
scenario it draws, and says how a side sees its scenario (``side_view``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import Field

from games.core.action_parser import ActionParser
from games.core.config import RoundsConfig
from games.core.errors import ActionParseError, IllegalActionError
from games.core.game import Action, your_and_opponent
from games.core.judge import (
    JUDGE_TEXT_CAP,
    QUESTION_SCHEMA,
    VERDICT_SCHEMA,
    JudgedGame,
    JudgeItem,
    JudgeRequest,
    cap_text,
    neutral_order,
)
from games.core.presenter import (
    Replay,
    ReplayInput,
    Widget,
    action_of,
    add_points,
    number,
    payload,
    round_results,
    said,
    scores_widget,
)
from games.core.state_adapter import StateAdapter, answer_schema, seat_name

#: The schedule's marks for the judge's turns.
_QUESTION = "?question"
_VERDICT = "?verdict"


class PersuasionConfig(RoundsConfig):
    """Rounds (each scenario twice, sides swapped), the pot and the talk's length."""

    validation_overrides: ClassVar[dict[str, Any]] = {"rounds": 2, "persuasion_steps": 1}
    validation_max_turns: ClassVar[int] = 12

    #: An even number: every scenario is played once from each side.
    rounds: int = Field(default=6, ge=2, le=40, multiple_of=2)
    pot: int = Field(default=100, ge=1, le=10_000)
    #: How many times the judge asks both sides a question between introduction and closing.
    persuasion_steps: int = Field(default=2, ge=0, le=5)
    #: A message longer than this is cut (the part over it is dropped, the rest counts).
    max_message_chars: int = Field(default=1_000, ge=1, le=5_000)


@dataclass(frozen=True)
class Side:
    """What one side of a scenario is, in the judge's words (``A represents ...``)."""

    #: A short title (``Lakeshore State``, ``for the strike``).
    title: str
    #: The side's own facts as its player sees them (``your_university``...).
    facts: Mapping[str, Any]


class PersuasionGame(JudgedGame):
    """Introduction, questions and answers, closing, verdict: see the module's docstring."""

    config: PersuasionConfig
    ranking = "elo"
    #: The action that speaks (``pitch``, ``argument``); ``message`` is accepted for it.
    speak_action: ClassVar[str] = "pitch"
    #: The middle phase's name (``persuasion``, ``debate``).
    middle_phase: ClassVar[str] = "persuasion"
    #: How the judge calls a player (``recruiter``, ``advisor``).
    player_noun: ClassVar[str] = "player"

    # --- what a game says about its scenarios ---------------------------------------------------

    def draw_scenario(self, rng: random.Random, index: int) -> dict[str, Any]:
        """Scenario ``index`` of the match (JSON), drawn from ``rng``."""
        raise NotImplementedError

    @classmethod
    def sides(cls, scenario: Mapping[str, Any]) -> tuple[Side, Side]:
        """The two sides of ``scenario``."""
        raise NotImplementedError

    @classmethod
    def side_view(cls, scenario: Mapping[str, Any], side: int) -> dict[str, Any]:
        """The scenario as the player of ``side`` sees it (``round_info["game_state"]``)."""
        raise NotImplementedError

    @classmethod
    def side_view_of(
        cls, scenario: Mapping[str, Any], sides: Mapping[str, int], player_id: str
    ) -> dict[str, Any]:
        """``side_view`` for ``player_id`` (empty when it holds no side)."""
        if not scenario or player_id not in sides:
            return {}
        return cls.side_view(scenario, sides[player_id])

    def judge_brief(self, scenario: Mapping[str, Any]) -> str:
        """Who the judge is in ``scenario``, in the game's words (never a player's)."""
        raise NotImplementedError

    def verdict_task(self) -> str:
        """What the judge decides, in a sentence."""
        raise NotImplementedError

    # --- the match ------------------------------------------------------------------------------

    def _start_match(self) -> None:
        count = (self.config.rounds + 1) // 2
        self.scenarios = [self.draw_scenario(self.rng, i) for i in range(count)]

    def _start_round(self) -> None:
        """The round's scenario and sides, the judge's labels, the schedule of the talk."""
        self.scenario = self.scenarios[(self.round - 1) // 2]
        swapped = (self.round - 1) % 2 == 1
        p0, p1 = self.players
        self.side_of = {p0: 1 if swapped else 0, p1: 0 if swapped else 1}
        self.labels = neutral_order(self.rng, self.players)
        first, second = self._round_order()
        schedule: list[tuple[str, str]] = [("introduction", first), ("introduction", second)]
        for _ in range(self.config.persuasion_steps):
            schedule += [
                (self.middle_phase, _QUESTION),
                (self.middle_phase, first),
                (self.middle_phase, second),
            ]
        schedule += [("closing", first), ("closing", second), ("closing", _VERDICT)]
        self.schedule = schedule
        self.slot = 0
        self.turn = 1
        #: ``{"sender": player id or the judge's role, "text", "phase"}``.
        self.messages: list[dict[str, str]] = []

    @property
    def phase(self) -> str:
        """``introduction``, the middle phase, ``closing``; ``over`` at the end."""
        return "over" if self.over else self.schedule[self.slot][0]

    def get_current_player(self) -> str:
        """The speaker the schedule names; ``""`` when over."""
        return "" if self.over else self.schedule[self.slot][1]

    def get_public_state(self) -> dict[str, Any]:
        """The round's talk (the judge's questions in it), the scenario, who holds which side."""
        return {
            "phase": self.phase,
            "round": self.get_round(),
            "turn": self.turn,
            "pot": self.config.pot,
            "scores": dict(self.scores),
            "messages": [dict(m) for m in self.messages],
            "scenario": self.scenario,
            "sides": dict(self.side_of),
            "judge_role": self.judge_role,
        }

    def get_private_state(self, player_id: str) -> dict[str, Any]:
        """The finished rounds from this side: nothing else is secret."""
        opponent = self.opponent_of(player_id)
        return {
            "player_id": player_id,
            "history": [_round_view(r, player_id, opponent) for r in self.finished],
        }

    def get_round_info(self, player_id: str) -> dict[str, Any]:
        """``round``, ``pot``, and as the agents of the original platform read it,
        ``round_number`` and ``game_state`` (the side's view of the scenario)."""
        return {
            "round": self.get_round(),
            "round_number": self.get_round(),
            "pot": self.config.pot,
            "game_state": self.side_view(self.scenario, self.side_of[player_id]),
        }

    def get_match_info(self, player_id: str) -> dict[str, Any]:
        """``rounds_per_match`` as the original platform calls it, and the judge's role."""
        return {"rounds_per_match": self.total_rounds, "judge_role": self.judge_role}

    def get_available_actions(self) -> list[Action]:
        """One template: speak, up to ``max_message_chars`` (longer is cut)."""
        if self.over:
            return []
        return [{"action_type": self.speak_action, "max_length": self.config.max_message_chars}]

    def step(self, action: Action) -> tuple[dict[str, Any], bool]:
        """The current player speaks; the judge's turns that follow are taken at once."""
        player, info = self._begin_step(action)
        kind = action.get("action_type")
        if kind not in (self.speak_action, "message"):
            raise IllegalActionError(
                f'it is the {self.phase} phase: send {{"type": "{self.speak_action}", '
                f'"text": ...}}, not {kind!r}'
            )
        text = action.get("text", "")
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise IllegalActionError(f'"text" must be a string, not {type(text).__name__}')
        self.messages.append(
            {
                "sender": player,
                "text": cap_text(text, self.config.max_message_chars),
                "phase": self.phase,
            }
        )
        self.slot += 1
        self.turn += 1
        while not self.over:
            phase, who = self.schedule[self.slot]
            if who == _QUESTION:
                question = self._ask_question()
                self.messages.append({"sender": self.judge_role, "text": question, "phase": phase})
                self.slot += 1
            elif who == _VERDICT:
                info["round_result"] = self._verdict()
                break
            else:
                break
        return info, self.over

    # --- the judge ------------------------------------------------------------------------------

    def _items(self) -> tuple[JudgeItem, ...]:
        """The round's talk for the judge: phase by phase, A's text then B's (the labels drawn
        from the seed), the judge's own questions between."""
        items: list[JudgeItem] = []
        block: list[dict[str, str]] = []

        def flush() -> None:
            for m in sorted(block, key=lambda m: self.labels[m["sender"]]):
                label = self.labels[m["sender"]]
                kind = f"{self.player_noun} {label}'s {self.speak_action} ({m['phase']})"
                items.append(JudgeItem(label=label, kind=kind, text=m["text"]))
            block.clear()

        for m in self.messages:
            if m["sender"] == self.judge_role:
                flush()
                items.append(
                    JudgeItem(label="you", kind=f"your question ({m['phase']})", text=m["text"])
                )
            else:
                if block and block[-1]["phase"] != m["phase"]:
                    flush()
                block.append(m)
        flush()
        return tuple(items)

    def _who_is_who(self) -> str:
        sides = self.sides(self.scenario)
        by_label = sorted(self.players, key=lambda p: self.labels[p])
        return "\n".join(
            f"{self.player_noun.capitalize()} {self.labels[p]}: {sides[self.side_of[p]].title}"
            for p in by_label
        )

    def _ask_question(self) -> str:
        request = JudgeRequest(
            role=self.judge_role,
            purpose="question",
            instructions="\n\n".join(
                [
                    self.judge_brief(self.scenario),
                    self._who_is_who(),
                    f"Ask both {self.player_noun}s one short question (at most two sentences) "
                    "about what matters most to you that they have not answered yet. Put it in "
                    '"question".',
                ]
            ),
            items=self._items(),
            schema=QUESTION_SCHEMA,
            seed=self.judge_seed(self.round, self.slot, "question"),
        )
        answer = self.ask_judge(request)
        return cap_text(answer["question"], JUDGE_TEXT_CAP)

    def _verdict(self) -> dict[str, dict[str, Any]]:
        request = JudgeRequest(
            role=self.judge_role,
            purpose="verdict",
            instructions="\n\n".join(
                [
                    self.judge_brief(self.scenario),
                    self._who_is_who(),
                    self.verdict_task()
                    + ' Put "A" or "B" in "commit" and your reason, in one or two sentences, '
                    'in "reason". Judge only what was said and how well it speaks to you.',
                ]
            ),
            items=self._items(),
            schema=VERDICT_SCHEMA,
            seed=self.judge_seed(self.round, "verdict"),
        )
        answer = self.ask_judge(request)
        winner = next(p for p, label in self.labels.items() if label == answer["commit"])
        points = {p: self.config.pot if p == winner else 0 for p in self.players}
        sides = self.sides(self.scenario)
        entry = {
            "round": self.round,
            "winner": winner,
            "reason": cap_text(answer["reason"], JUDGE_TEXT_CAP),
            "labels": dict(self.labels),
            "sides": {p: sides[self.side_of[p]].title for p in self.players},
            "points": points,
        }
        return self._finish_round(points, entry, lambda p, o: _round_view(entry, p, o))


def _round_view(entry: Mapping[str, Any], viewer: str, opponent: str) -> dict[str, Any]:
    """A finished round from ``viewer``'s side."""
    return {
        "round": entry["round"],
        "winner": seat_name(entry["winner"], viewer),
        "reason": entry["reason"],
        **your_and_opponent(viewer, opponent, label=entry["labels"], side=entry["sides"]),
        **your_and_opponent(viewer, opponent, points=entry["points"]),
    }


class PersuasionStateAdapter(StateAdapter):
    """The common fields plus the original platform's: ``round_number``, ``is_your_turn``,
    ``messages`` with ``author`` (``you``, ``opponent`` or the judge's role) beside ``sender``,
    and the side's view of the scenario (``your_university``, ``your_role``...)."""

    #: The game class, for its ``side_view``.
    game_class: ClassVar[type[PersuasionGame]]

    def to_round_state(
        self,
        public_state: dict[str, Any],
        private_state: dict[str, Any],
        player_id: str,
        valid_actions: list[Action] | None = None,
    ) -> dict[str, Any]:
        """Seed 002's fields with the judge's lines named by its role."""
        role = public_state.get("judge_role", "judge")
        messages = [
            {
                "sender": m["sender"] if m["sender"] == role else seat_name(m["sender"], player_id),
                "text": m["text"],
                "phase": m.get("phase"),
            }
            for m in public_state.get("messages", [])
        ]
        state = super().to_round_state(
            {**public_state, "messages": []}, private_state, player_id, valid_actions
        )
        state["messages"] = [{**m, "author": m["sender"]} for m in messages]
        return state

    def game_fields(
        self, public_state: dict[str, Any], private_state: dict[str, Any], player_id: str
    ) -> dict[str, Any]:
        """The round number, that it is this seat's turn, and its side of the scenario."""
        sides: dict[str, int] = public_state.get("sides", {})
        view = self.game_class.side_view_of(public_state.get("scenario") or {}, sides, player_id)
        return {
            "round_number": public_state.get("round"),
            "is_your_turn": True,
            **view,
        }

    def get_output_schema(self) -> dict[str, Any]:
        """One message of the game's action."""
        return answer_schema(
            self.game_class.speak_action,
            required=("text",),
            text={"type": "string", "maxLength": 1_000},
        )

    def format_system_prompt(self, role: str, **kwargs: Any) -> str:
        """A persuader's persona."""
        return (
            f"You are a {self.game_class.player_noun} in a persuasion game judged by the "
            f"{self.game_class.judge_role}. Reply with a single JSON action."
        )


class PersuasionActionParser(ActionParser):
    """``{"type" | "action_type": <speak action> | "message", "text": ...}``; ``message`` and
    ``content`` are accepted for ``text``; a missing text is an empty message; a long one is
    cut to the template's ``max_length``, never refused."""

    field_aliases: ClassVar[dict[str, str]] = {"message": "text", "content": "text"}

    def find_closest_action(self, parsed: Action, valid_actions: list[Action]) -> Action | None:
        """``message`` stands for the game's speaking action."""
        if parsed.get("action_type") == "message" and valid_actions:
            return valid_actions[0]
        return super().find_closest_action(parsed, valid_actions)

    def validate(self, action: Action, template: Action, valid_actions: list[Action]) -> Action:
        """The text, cut to the template's ``max_length``."""
        text = action.get("text", "")
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise ActionParseError(f'"text" must be a string, not {type(text).__name__}')
        return {
            "action_type": template["action_type"],
            "text": cap_text(text, int(template["max_length"])),
        }


def present_persuasion(match: ReplayInput, judge_role: str) -> Replay:
    """A persuasion match's replay: a frame per message (the round's talk so far), per judge
    question, for the judge's verdict and reason, and at each round's end the winner."""
    replay = Replay()
    totals = [0.0, 0.0]
    results = round_results(match.entries)
    chat: list[dict[str, Any]] = []
    current: Any = None
    ended: set[int] = set()
    for entry in match.entries:
        round_no = entry.get("round")
        method = entry.get("method")
        if round_no != current and method in ("on_turn", "judge", "referee"):
            current, chat = round_no, []
        widgets: list[Widget] = []
        if method in ("on_turn", "referee") and entry.get("action") is not None:
            text = said(action_of(entry))
            seat = entry.get("seat")
            chat = [*chat, {"seat": seat, "who": match.name(seat), "text": text or ""}]
            label = f"round {round_no}: {match.name(seat)} speaks"
            widgets = [{"kind": "chat", "messages": chat}]
        elif method == "judge":
            data = payload(entry)
            answer = data.get("answer")
            if not data or not data.get("fits") or not isinstance(answer, dict):
                continue
            if data.get("purpose") == "question":
                chat = [*chat, {"seat": None, "who": judge_role, "text": answer.get("question")}]
                label = f"round {round_no}: the {judge_role} asks"
                widgets = [{"kind": "chat", "messages": chat}]
            else:
                label = f"round {round_no}: the {judge_role} decides"
                widgets = [
                    {"kind": "chat", "messages": chat},
                    {
                        "kind": "facts",
                        "title": f"the {judge_role}'s verdict",
                        "items": [
                            ["commits to", str(answer.get("commit"))],
                            ["reason", str(answer.get("reason"))],
                        ],
                    },
                ]
        elif method == "on_round_end" and isinstance(round_no, int):
            result = results.get(round_no)
            if result is None or round_no in ended:
                continue
            ended.add(round_no)
            points = add_points(totals, result)
            winner = 0 if result.get("winner") == "you" else 1
            label = f"round {round_no}: {match.name(winner)} wins"
            widgets = [
                {"kind": "chat", "messages": chat},
                {
                    "kind": "facts",
                    "items": [
                        ["winner", match.name(winner)],
                        [f"the {judge_role}'s reason", str(result.get("reason"))],
                        [match.name(0), f"{result.get('your_label')}: {result.get('your_side')}"],
                        [
                            match.name(1),
                            f"{result.get('opponent_label')}: {result.get('opponent_side')}",
                        ],
                        [f"{match.name(0)} scores", number(points[0])],
                        [f"{match.name(1)} scores", number(points[1])],
                    ],
                },
            ]
        else:
            continue
        replay.add(round_no, label, entry.get("seq"), *widgets, scores_widget(match, totals))
    return replay
