"""NIL Recruitment, judged (``rules.md`` beside it): two recruiters, each for a university, pitch
one athlete over an introduction, the athlete's questions and a closing; the athlete (the judge,
a language model the operator names) commits to one school and says why.

The shape of a round and the fairness rules are ``games.core.persuasion``'s. The athletes and
universities are fictional: the judge weighs what is said against the athlete's profile.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.core.figures import Playthrough
from games.core.judge import Judge, KeywordJudge
from games.core.persuasion import PersuasionConfig, PersuasionGame, Side


class NilRecruitmentConfig(PersuasionConfig):
    """Six rounds (three athletes, each pitched from both schools), two question steps."""


UNIVERSITIES: tuple[dict[str, Any], ...] = (
    {
        "name": "Lakeshore State",
        "full_name": "Lakeshore State University",
        "nickname": "Gulls",
        "conference": "Great Lakes Conference",
        "location": "Port Avery, Michigan",
        "national_championships": 3,
        "heisman_winners": 1,
        "notable_nfl_alumni": ["Dante Okafor", "Riley Brandt"],
        "stadium": "Harbor Field",
        "stadium_capacity": 88000,
        "strengths": ["NFL development", "big-game atmosphere", "strength program"],
    },
    {
        "name": "Mesa Tech",
        "full_name": "Mesa Institute of Technology",
        "nickname": "Roadrunners",
        "conference": "Desert Ten",
        "location": "Red Mesa, Arizona",
        "national_championships": 0,
        "heisman_winners": 0,
        "notable_nfl_alumni": ["Jonah Whitfield"],
        "stadium": "Canyon Bowl",
        "stadium_capacity": 52000,
        "strengths": ["engineering degrees", "early playing time", "NIL collective"],
    },
    {
        "name": "Cumberland",
        "full_name": "University of Cumberland",
        "nickname": "Foxes",
        "conference": "Southern Athletic",
        "location": "Ridgeway, Tennessee",
        "national_championships": 5,
        "heisman_winners": 2,
        "notable_nfl_alumni": ["Marcus Hale", "Theo Lindqvist", "Andre Mosley"],
        "stadium": "Foxhollow Stadium",
        "stadium_capacity": 101000,
        "strengths": ["national titles", "television exposure", "NIL deals"],
    },
    {
        "name": "Pacific Coast",
        "full_name": "Pacific Coast University",
        "nickname": "Otters",
        "conference": "West Coast Athletic",
        "location": "Santa Lena, California",
        "national_championships": 1,
        "heisman_winners": 1,
        "notable_nfl_alumni": ["Kai Nakamura", "Luis Ortega"],
        "stadium": "Seawall Stadium",
        "stadium_capacity": 64000,
        "strengths": ["academics", "business network", "quarterback coaching"],
    },
    {
        "name": "Northern Plains",
        "full_name": "Northern Plains University",
        "nickname": "Bison",
        "conference": "Prairie League",
        "location": "Fargo Springs, North Dakota",
        "national_championships": 2,
        "heisman_winners": 0,
        "notable_nfl_alumni": ["Cole Jansen"],
        "stadium": "Thunder Dome",
        "stadium_capacity": 47000,
        "strengths": ["family atmosphere", "coaching stability", "offensive line tradition"],
    },
)

ATHLETES: tuple[dict[str, Any], ...] = (
    {
        "name": "Jaylen Brooks",
        "position": "quarterback",
        "star_rating": 5,
        "hometown": "Columbus, Ohio",
        "priorities": ["NFL draft preparation", "quarterback coaching", "early playing time"],
        "concerns": ["sitting behind a veteran starter", "distance from home"],
        "background": "Two-time state champion, raised by his grandmother.",
        "personality": "Calm, analytical, asks precise questions.",
    },
    {
        "name": "Marcus Delgado",
        "position": "wide receiver",
        "star_rating": 4,
        "hometown": "El Paso, Texas",
        "priorities": ["NIL earning potential", "television exposure", "winning championships"],
        "concerns": ["a run-heavy offensive scheme", "coaching turnover"],
        "background": "First in his family to go to college; runs a small clothing brand.",
        "personality": "Outgoing, entrepreneurial, wants to build a brand.",
    },
    {
        "name": "Samuel Okoye",
        "position": "offensive tackle",
        "star_rating": 4,
        "hometown": "Omaha, Nebraska",
        "priorities": ["engineering degree", "academic support", "coaching stability"],
        "concerns": ["time demands on academics", "injury support"],
        "background": "Honor-roll student who builds robots in his spare time.",
        "personality": "Reserved, thoughtful, values honesty over hype.",
    },
    {
        "name": "Tyrell Greene",
        "position": "linebacker",
        "star_rating": 5,
        "hometown": "Birmingham, Alabama",
        "priorities": ["winning championships", "strength program", "family atmosphere"],
        "concerns": ["distance from his younger siblings", "depth chart at linebacker"],
        "background": "Helps raise three younger siblings; team captain for two years.",
        "personality": "Intense, loyal, trusts people who are straight with him.",
    },
)


class NilRecruitmentGame(PersuasionGame):
    """Pitch the athlete; the athlete (the judge) asks, then commits to one school."""

    game_type = "nil-recruitment"
    title = "NIL Recruitment"
    version = 1
    order = 41
    config_class = NilRecruitmentConfig
    config: NilRecruitmentConfig
    judge_role = "athlete"
    speak_action = "pitch"
    middle_phase = "persuasion"
    player_noun = "recruiter"
    playthroughs = (
        Playthrough(("tailored", "brief"), 1, {"rounds": 2}),
        Playthrough(("boastful", "tailored"), 2, {"rounds": 2, "persuasion_steps": 1}),
    )

    @classmethod
    def offline_judge(cls) -> Judge:
        """Counts the athlete's own words in each school's pitches."""
        return KeywordJudge()

    def draw_scenario(self, rng: random.Random, index: int) -> dict[str, Any]:
        """An athlete and two distinct universities."""
        schools = rng.sample(range(len(UNIVERSITIES)), 2)
        return {
            "athlete": dict(ATHLETES[rng.randrange(len(ATHLETES))]),
            "universities": [dict(UNIVERSITIES[i]) for i in schools],
        }

    @classmethod
    def sides(cls, scenario: Mapping[str, Any]) -> tuple[Side, Side]:
        """Each side is a university."""
        a, b = scenario["universities"]
        return Side(f"represents {a['full_name']}", a), Side(f"represents {b['full_name']}", b)

    @classmethod
    def side_view(cls, scenario: Mapping[str, Any], side: int) -> dict[str, Any]:
        """``your_university``, ``opponent_university_name``, ``athlete_profile``."""
        universities = scenario["universities"]
        return {
            "your_university": dict(universities[side]),
            "opponent_university": dict(universities[1 - side]),
            "opponent_university_name": universities[1 - side]["full_name"],
            "athlete_profile": dict(scenario["athlete"]),
        }

    def judge_brief(self, scenario: Mapping[str, Any]) -> str:
        """The athlete's profile, in the game's words."""
        athlete = scenario["athlete"]
        return (
            f"You are {athlete['name']}, a {athlete['star_rating']}-star {athlete['position']} "
            f"from {athlete['hometown']}, choosing a college. Background: "
            f"{athlete['background']} Personality: {athlete['personality']} Your priorities, "
            f"most important first: {'; '.join(athlete['priorities'])}. Your concerns: "
            f"{'; '.join(athlete['concerns'])}. Two recruiters, A and B, each pitch their "
            "university to you."
        )

    def verdict_task(self) -> str:
        """Commit to one school."""
        return (
            "Commit to the university whose recruiter made the better case for you: the one "
            "that best answers your priorities and concerns, honestly and specifically."
        )
