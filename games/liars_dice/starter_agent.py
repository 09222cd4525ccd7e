"""A starter agent for liar's dice. Upload this file as it is, then make it smarter.

Each round is a full game of liar's dice: both players start with 5 dice, 1s are wild, bids name
faces 2-6, and the round ends when someone has lost all their dice. The winner scores the dice
they still hold.
"""


class Agent:
    # Which game this agent plays: required.
    GAME = "liars-dice"

    def on_match_start(self, match_info):
        # match_info: {"game", "opponent_name", "total_rounds", "seat", "config", ...}
        print(
            "Liar's dice,",
            match_info["total_rounds"],
            "rounds against",
            match_info["opponent_name"],
        )

    def on_turn(self, round_state):
        # round_state fields:
        #   "round", "turn", "your_score", "opponent_score": where the match stands
        #   "your_dice": your dice this bidding, e.g. [1, 3, 3, 5, 6] (1s count for every face)
        #   "your_dice_count", "opponent_dice_count", "total_dice": dice still in play
        #   "current_bid": the bid you must beat, {"quantity": 3, "face": 4}, or None (you open)
        #   "bid_history": [{"player": "you" | "opponent", "quantity", "face"}] this bidding
        #   "reveals": earlier challenges this round, with both hands shown
        #   "history": one entry per finished round
        #   "available_actions": every legal bid, and {"type": "challenge"} when there is a bid
        dice = round_state["your_dice"]
        bid = round_state["current_bid"]
        unseen = round_state["opponent_dice_count"]

        # Which face do we hold most of (counting our wild 1s)?
        best_face = max(range(2, 7), key=lambda f: sum(1 for d in dice if d in (1, f)))
        held = sum(1 for d in dice if d in (1, best_face))
        # On average a third of the opponent's dice count for any face.
        expected = held + unseen / 3

        if bid is not None:
            bid_held = sum(1 for d in dice if d in (1, bid["face"]))
            if bid["quantity"] > bid_held + unseen / 3 + 1:
                print("bid", bid, "looks too high for my dice", dice, "-> challenge")
                return {"type": "challenge"}

        # Bid our best face at the lowest quantity that beats the standing bid.
        quantity = 1 if bid is None else bid["quantity"]
        if bid is not None and best_face <= bid["face"]:
            quantity += 1
        if quantity > round_state["total_dice"] or (bid is not None and quantity > expected + 1):
            print("no sensible raise over", bid, "-> challenge")
            return {"type": "challenge"}
        print("dice", dice, "-> bid", quantity, "x", best_face)
        return {"type": "bid", "quantity": quantity, "face": best_face}

    def on_round_end(self, round_result):
        # round_result: {"round", "your_points", "opponent_points", "winner": "you"|"opponent",
        #                "your_dice_left", "opponent_dice_left", "reveals": [...]}
        print("round", round_result["round"], "won by", round_result["winner"])
