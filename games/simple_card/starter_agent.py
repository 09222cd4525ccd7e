"""A starter agent for simple-card. Upload this file as it is, then make it smarter.

Each round you and your opponent play one card at the same time; the higher card scores 1.
"""


class Agent:
    # Which game this agent plays: required.
    GAME = "simple-card"

    def __init__(self):
        # Keep whatever you want between turns on self.
        self.rounds_won = 0

    def on_match_start(self, match_info):
        # match_info: {"game", "opponent_name", "total_rounds", "seat", "config", ...}
        print("Playing", match_info["total_rounds"], "rounds against", match_info["opponent_name"])

    def on_turn(self, round_state):
        # round_state: {"phase": "play", "round", "turn", "pot", "your_score", "opponent_score",
        #               "history": [{"round", "your_card", "opponent_card", ...}],
        #               "hand": [your cards], "available_actions": [...]}
        hand = round_state["hand"]
        card = max(hand)  # play the strongest card first
        print("round", round_state["round"], "hand", hand, "-> playing", card)
        return {"type": "play_card", "card": card}

    def on_round_end(self, round_result):
        # round_result: {"round", "your_points", "opponent_points", "your_card", "opponent_card"}
        self.rounds_won += round_result["your_points"]
