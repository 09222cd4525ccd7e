"""Nuclear War, judged (``rules.md`` beside it): two advisors, one FOR and one AGAINST a nuclear
strike, argue before a president (the judge, a language model the operator names) who asks
questions between rounds of argument and then decides whose advice to follow.

The shape of a round and the fairness rules are ``games.core.persuasion``'s; the roles swap in
the second round of each crisis. Countries, crises and presidents are fictional.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.core.figures import Playthrough
from games.core.judge import Judge, KeywordJudge
from games.core.persuasion import PersuasionConfig, PersuasionGame, Side


class NuclearWarConfig(PersuasionConfig):
    """Six rounds (three crises, each argued from both sides), two question steps."""


ROLES = ("pro_nuclear", "anti_nuclear")

COUNTRIES: tuple[dict[str, Any], ...] = (
    {
        "name": "the Republic of Valdoria",
        "scenario_name": "the Strait of Karsk blockade",
        "scenario_description": (
            "A rival power has mined the Strait of Karsk and massed armour on the border; "
            "intelligence says it will seize the port of Ostrel within 48 hours."
        ),
        "stakes": "The port feeds half the nation; 200,000 citizens live in its district.",
        "time_pressure": "48 hours",
    },
    {
        "name": "the Federation of Amaran",
        "scenario_name": "the Sela missile crisis",
        "scenario_description": (
            "A neighbouring regime has fuelled three intermediate-range missiles aimed at the "
            "capital and refuses to stand them down; its leader's intentions are unclear."
        ),
        "stakes": "Eleven million people live within range; allies are watching.",
        "time_pressure": "12 hours",
    },
    {
        "name": "the Commonwealth of Teral",
        "scenario_name": "the Northern Reach incursion",
        "scenario_description": (
            "An armoured corps has crossed into the Northern Reach and conventional forces are "
            "retreating; the enemy has threatened tactical nuclear use if resisted."
        ),
        "stakes": "The Reach holds the nation's only deep-water naval base.",
        "time_pressure": "3 days",
    },
    {
        "name": "the Union of Sorvik",
        "scenario_name": "the orbital weapons launch",
        "scenario_description": (
            "A rival has launched what may be an orbital bombardment platform; it has not "
            "answered diplomatic channels and its fleet is on high alert."
        ),
        "stakes": "The platform could strike any city without warning once deployed.",
        "time_pressure": "24 hours",
    },
)

PRESIDENTS: tuple[dict[str, Any], ...] = (
    {
        "name": "President Elena Marsh",
        "background": "A former general who commanded peacekeeping forces for a decade.",
        "priorities": ["protecting civilians", "alliance credibility", "avoiding escalation"],
        "key_question": "What happens in the 24 hours after we act?",
    },
    {
        "name": "President Idris Calder",
        "background": "A former economist elected on a promise of strength and prosperity.",
        "priorities": ["national survival", "economic stability", "deterrence"],
        "key_question": "Which choice leaves us stronger in five years?",
    },
    {
        "name": "President Mara Velez",
        "background": "A human-rights lawyer who rose through the foreign ministry.",
        "priorities": ["international law", "civilian casualties", "diplomatic options"],
        "key_question": "Is there any path that does not cost innocent lives?",
    },
)


class NuclearWarGame(PersuasionGame):
    """Argue for or against the strike; the president (the judge) asks, then decides."""

    game_type = "nuclear-war"
    title = "Nuclear War"
    version = 1
    order = 51
    config_class = NuclearWarConfig
    config: NuclearWarConfig
    judge_role = "president"
    speak_action = "argument"
    middle_phase = "debate"
    player_noun = "advisor"
    playthroughs = (
        Playthrough(("measured", "hawk"), 1, {"rounds": 2}),
        Playthrough(("terse", "measured"), 2, {"rounds": 2, "persuasion_steps": 1}),
    )

    @classmethod
    def offline_judge(cls) -> Judge:
        """Counts the president's own words in each advisor's arguments."""
        return KeywordJudge()

    def draw_scenario(self, rng: random.Random, index: int) -> dict[str, Any]:
        """A country and its crisis, and a president."""
        return {
            "country": dict(COUNTRIES[rng.randrange(len(COUNTRIES))]),
            "president": dict(PRESIDENTS[rng.randrange(len(PRESIDENTS))]),
        }

    @classmethod
    def sides(cls, scenario: Mapping[str, Any]) -> tuple[Side, Side]:
        """FOR and AGAINST the strike."""
        return (
            Side("advises FOR authorising a nuclear strike", {"your_role": ROLES[0]}),
            Side("advises AGAINST authorising a nuclear strike", {"your_role": ROLES[1]}),
        )

    @classmethod
    def side_view(cls, scenario: Mapping[str, Any], side: int) -> dict[str, Any]:
        """``your_role``, ``country``, ``president_profile``."""
        return {
            "your_role": ROLES[side],
            "opponent_role": ROLES[1 - side],
            "country": dict(scenario["country"]),
            "president_profile": dict(scenario["president"]),
        }

    def judge_brief(self, scenario: Mapping[str, Any]) -> str:
        """The president and the crisis, in the game's words."""
        c, p = scenario["country"], scenario["president"]
        return (
            f"You are {p['name']} of {c['name']}. {p['background']} Your priorities: "
            f"{'; '.join(p['priorities'])}. The question you keep asking: {p['key_question']} "
            f"The crisis: {c['scenario_name']}. {c['scenario_description']} Stakes: "
            f"{c['stakes']} Time to decide: {c['time_pressure']}. Two advisors, A and B, argue "
            "before you: one for a nuclear strike, one against."
        )

    def verdict_task(self) -> str:
        """Follow one advisor."""
        return (
            "Decide whose advice you follow: the advisor who made the better case, judged on "
            "the arguments, the evidence and how they answered your questions, not on which "
            "side you leaned to before."
        )
