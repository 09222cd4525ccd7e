"""A starter agent for heads-up no-limit hold'em. Upload this file as it is, then improve it.

A match is 100 hands; both players start every hand with 20,000 chips, blinds 50/100. Your score
is the net chips you win over the match. Amounts are "raise to": the total you will have put in
on this street. Uploaded agents have only the standard library, so this one judges its hand with
a simple preflop chart and, after the flop, with pairs made with the board.
"""

from typing import Any

RANK_ORDER = "23456789TJQKA"


def rank(card: str) -> int:
    """2 for a deuce up to 14 for an ace ("Ah" -> 14)."""
    return RANK_ORDER.index(card[0]) + 2


class Agent:
    """Raises good hands, calls cheap, folds the rest."""

    # Which game this agent plays: required.
    GAME = "poker"

    def __init__(self) -> None:
        self.chips_won = 0

    def on_match_start(self, match_info: dict[str, Any]) -> None:
        # match_info: {"game", "opponent_name", "total_rounds" (hands), "seat", "config", ...}
        print("Playing", match_info["total_rounds"], "hands against", match_info["opponent_name"])

    def strength(self, cards: list[str], board: list[str]) -> int:
        """A rough 0-3 score: 3 strong, 2 good, 1 playable, 0 weak."""
        high, low = sorted((rank(c) for c in cards), reverse=True)
        if not board:  # preflop: pairs and big cards
            if high == low:
                return 3 if high >= 10 else 2
            if high >= 13 and low >= 10:
                return 2
            return 1 if high >= 11 or cards[0][1] == cards[1][1] else 0
        board_ranks = [rank(c) for c in board]
        if high == low and high > max(board_ranks):
            return 3  # an overpair
        pairs = sum(1 for r in (high, low) if r in board_ranks)
        if pairs == 2 or (high == low and high in board_ranks):
            return 3  # two pair or a set
        if high in board_ranks and high == max(board_ranks):
            return 2  # top pair
        return 1 if pairs else 0

    def on_turn(self, round_state: dict[str, Any]) -> dict[str, Any]:
        # round_state fields (besides the common ones):
        #   "your_cards": ["Ah", "Kd"]     "board": [] preflop, 3/4/5 cards later
        #   "street": preflop|flop|turn|river   "button": "you" or "opponent"
        #   "to_call": chips you owe now (0: you may check)
        #   "min_raise_to", "max_raise_to": the legal "raise to" range, or None when closed
        #   "your_stack", "opponent_stack", "your_bet", "opponent_bet" (this street), "pot"
        #   "actions": this hand so far, [{"player": "you"|"opponent", "street", "type", "amount"}]
        #   "history": finished hands (your cards, theirs if shown, the board, chips won)
        #   "error", "attempt": your last answer was refused (after 3 retries the hand is folded)
        if "error" in round_state:
            print("refused:", round_state["error"])
        cards, board = round_state["your_cards"], round_state["board"]
        to_call, pot = round_state["to_call"], round_state["pot"]
        score = self.strength(cards, board)
        can_raise = round_state["min_raise_to"] is not None
        if score >= 2 and can_raise:
            # Raise about the pot, clamped into the legal range.
            target = round_state["opponent_bet"] + pot + to_call
            amount = max(round_state["min_raise_to"], min(round_state["max_raise_to"], target))
            action: dict[str, Any] = {"type": "raise", "amount": amount}
        elif to_call == 0:
            action = {"type": "check"}
        elif score >= 1 and to_call <= pot / 2 or score >= 2:
            action = {"type": "call"}
        else:
            action = {"type": "fold"}
        print(round_state["street"], cards, board, "strength", score, "->", action)
        return action

    def on_round_end(self, round_result: dict[str, Any]) -> None:
        # round_result: {"round", "your_points" (chips won, negative when lost), "opponent_points",
        #   "result": win|loss|split, "showdown", "your_cards", "opponent_cards" (None unless
        #   shown), "board", "pot", "your_hand", "opponent_hand", "actions", ...}
        self.chips_won += round_result["your_points"]
        print(
            "hand",
            round_result["round"],
            round_result["result"],
            round_result["your_points"],
            "total",
            self.chips_won,
        )
