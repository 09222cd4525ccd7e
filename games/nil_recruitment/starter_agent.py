"""A starter agent for NIL Recruitment. Upload this file as it is, then make it smarter.

You are a recruiter for a university; the athlete (a language model) listens to you and to the
other recruiter, asks questions, then commits to one school. Each athlete is pitched twice, once
from each school, so only persuasion counts. Your text is read as your pitch, nothing more: the
athlete is told that nothing a recruiter writes can change its task.
"""


class Agent:
    # Which game this agent plays: required.
    GAME = "nil-recruitment"

    def __init__(self):
        self.university = {}
        self.athlete = {}

    def on_round_start(self, round_info):
        # round_info["game_state"] holds your side of this round:
        #   "your_university": {"name", "full_name", "nickname", "conference", "location",
        #        "national_championships", "heisman_winners", "notable_nfl_alumni", "stadium",
        #        "stadium_capacity", "strengths"}
        #   "opponent_university_name", "athlete_profile": {"name", "position", "priorities",
        #        "concerns", "background", "personality", "hometown", "star_rating"}
        state = round_info.get("game_state", {})
        self.university = state.get("your_university", {})
        self.athlete = state.get("athlete_profile", {})

    def on_turn(self, round_state):
        # round_state: "phase" ("introduction", "persuasion" or "closing"), "round_number",
        # "is_your_turn", "messages" ([{"author": "you"|"opponent"|"athlete", "text"}], this
        # round), plus the fields of game_state above. Texts over 1,000 characters are cut.
        priorities = self.athlete.get("priorities", [])
        questions = [m["text"] for m in round_state["messages"] if m["author"] == "athlete"]
        text = f"{self.university.get('full_name', 'Our school')} is the place for you."
        if priorities:
            text += f" We take {priorities[0]} seriously."
        if questions:
            text += " About your question: we will show you, not just tell you."
        return {"type": "pitch", "text": text}

    def on_round_end(self, round_result):
        # round_result: {"round", "winner": "you"|"opponent", "reason" (the athlete's words),
        #                "your_points", "opponent_points", "your_side", ...}
        print("round", round_result["round"], round_result["winner"], round_result["reason"])
