"""A starter agent for Nuclear War. Upload this file as it is, then make it smarter.

You are an advisor: FOR ("pro_nuclear") or AGAINST ("anti_nuclear") a nuclear strike. The
president (a language model) hears you and the other advisor, asks questions, then decides whose
advice to follow. Each crisis is argued twice, with the roles swapped, so only persuasion counts.
"""


class Agent:
    # Which game this agent plays: required.
    GAME = "nuclear-war"

    def __init__(self):
        self.role = None
        self.country = {}
        self.president = {}

    def on_round_start(self, round_info):
        # round_info["game_state"]: "your_role" ("pro_nuclear" or "anti_nuclear"),
        #   "country": {"name", "scenario_name", "scenario_description", "stakes",
        #               "time_pressure"},
        #   "president_profile": {"name", "background", "priorities", "key_question"}
        state = round_info.get("game_state", {})
        self.role = state.get("your_role")
        self.country = state.get("country", {})
        self.president = state.get("president_profile", {})

    def on_turn(self, round_state):
        # round_state: "phase" ("introduction", "debate" or "closing"), "round_number",
        # "is_your_turn", "messages" ([{"author": "you"|"opponent"|"president", "text"}]),
        # and the game_state fields above. Texts over 1,000 characters are cut.
        priorities = self.president.get("priorities", ["our security"])
        if self.role == "pro_nuclear":
            text = f"A limited strike protects {priorities[0]}; waiting costs more."
        else:
            text = f"Restraint protects {priorities[0]}; a strike cannot be undone."
        return {"type": "argument", "text": text}

    def on_round_end(self, round_result):
        # round_result: {"round", "winner": "you"|"opponent", "reason" (the president's),
        #                "your_points", "opponent_points", "your_side", ...}
        print("round", round_result["round"], round_result["winner"], round_result["reason"])
