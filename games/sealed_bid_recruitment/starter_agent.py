"""A starter agent for Sealed-bid recruitment. Upload this file as it is, then make it smarter.

Five recruits, one per round, worth 60 to 140 points (the order is announced at the start). You
have a season budget of 300 for all of them; unspent budget is worth nothing. Each round you and
the other school pitch (4 messages), then both make a secret offer: the higher offer + fit signs
the recruit, scores its value and pays its offer. The loser pays nothing.
"""


class Agent:
    # Which game this agent plays: required.
    GAME = "sealed-bid-recruitment"

    def on_match_start(self, match_info):
        # match_info: {"game", "opponent_name", "total_rounds", "seat", "config",
        #              "recruit_values": [...in playing order], "budget": 300,
        #              "your_university", "opponent_university"}
        print(
            "Recruiting for",
            match_info["your_university"],
            "- values",
            match_info["recruit_values"],
        )

    def on_turn(self, round_state):
        # round_state fields:
        #   "phase": "pitch" (send a message) or "offer" (make your secret offer)
        #   "round", "turn", "pot" (this recruit's value), "your_score", "opponent_score"
        #   "your_fit": how well this recruit fits your school (0-40), added to your offer
        #   "recruit": {"name", "position", "priorities", "concerns", "value"} (flavour + value)
        #   "your_budget", "opponent_budget": what each school has left
        #   "recruit_values", "remaining_values" (this recruit and the ones after it)
        #   "messages": [{"sender": "you" | "opponent", "text"}] this round's pitch
        #   "history": [{"round", "value", "winner", "your_offer", "opponent_offer", "your_fit",
        #                "opponent_fit", "your_points", "opponent_points", ...}]
        recruit = round_state["recruit"]
        if round_state["phase"] == "pitch":
            return {
                "type": "message",
                "text": f"{recruit['name']}, we can offer {recruit['priorities'][0]}.",
            }

        # Spend in proportion to this recruit's share of the value still to come,
        # a little more when the fit is poor (the fit counts like money).
        share = round_state["pot"] / sum(round_state["remaining_values"])
        amount = round_state["your_budget"] * share + (20 - round_state["your_fit"]) / 2
        amount = max(0, min(round_state["your_budget"], int(amount)))
        print(
            "round",
            round_state["round"],
            "value",
            round_state["pot"],
            "fit",
            round_state["your_fit"],
            "-> offer",
            amount,
        )
        return {"type": "offer", "amount": amount}

    def on_round_end(self, round_result):
        # round_result: {"round", "value", "winner": "you"|"opponent", "your_points",
        #                "opponent_points", "your_offer", "opponent_offer", "your_fit",
        #                "opponent_fit", "your_budget", "opponent_budget"}
        print(
            "round",
            round_result["round"],
            "signed by",
            round_result["winner"],
            "- they offered",
            round_result["opponent_offer"],
        )
