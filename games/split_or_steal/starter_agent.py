"""A starter agent for Split or Steal. Upload it as it is, then make it yours.

Each of the 5 rounds: a negotiate phase (4 messages, taking turns, at most 280 characters each),
then a commit phase where you and your opponent choose at the same time:
    split / split -> 50 each      steal / split -> 100 for the stealer      steal / steal -> 0
Everything you print() shows on the training match page, next to the turn that printed it.
"""


class Agent:
    GAME = "split-or-steal"  # required: the game this agent plays

    def __init__(self):
        # Keep state between turns on self.
        self.betrayed = False

    def on_match_start(self, match_info):
        # match_info: {"game", "opponent_name", "total_rounds", "seat", "config", ...}
        self.opponent = match_info["opponent_name"]
        print("Match against", self.opponent, "over", match_info["total_rounds"], "rounds")

    def on_round_start(self, round_info):
        # round_info: {"round": 1, "pot": 100}
        print("Round", round_info["round"], "for a pot of", round_info["pot"])

    def on_turn(self, round_state):
        # round_state holds:
        #   phase          "negotiate" or "commit"
        #   round, turn    where we are (both start at 1)
        #   pot            points at stake this round
        #   your_score, opponent_score   totals so far
        #   history        [{"round", "your_choice", "opponent_choice", "your_points",
        #                    "opponent_points"}] for finished rounds
        #   messages       [{"sender": "you" | "opponent", "text"}] said this round
        #   available_actions   what you may do now
        #   error, attempt      only when your last answer was refused: why, and which retry
        if "error" in round_state:
            print("My last answer was refused:", round_state["error"])

        if round_state["phase"] == "negotiate":
            return {"type": "message", "text": "I'll split if you split. Deal?"}

        # commit: split unless the opponent has ever stolen from us
        for past in round_state["history"]:
            if past["opponent_choice"] == "steal":
                self.betrayed = True
        choice = "steal" if self.betrayed else "split"
        print("Round", round_state["round"], "choosing", choice)
        return {"type": "commit", "choice": choice}

    def on_round_end(self, round_result):
        # round_result: {"round", "your_choice", "opponent_choice", "your_points",
        #                "opponent_points"}
        print("Opponent chose", round_result["opponent_choice"])

    def on_match_end(self, match_result):
        # match_result: {"winner": "you" | "opponent" | None, "your_total", "opponent_total",
        #                "rounds", "reason"}
        print("Final:", match_result["your_total"], "to", match_result["opponent_total"])
