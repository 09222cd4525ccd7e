"""A starter agent for bulls and cows. Upload this file as it is, then make it smarter.

Each round hides one code of 4 distinct digits (the same code for you and your opponent). Each
cycle you ask one private question (any 4 distinct digits) and learn how many digits are right
and in the right place (bulls) and right but misplaced (cows); then you guess or pass. The first
correct guess wins the pot; a wrong guess locks you out of the round.
"""

from itertools import permutations

ALL_CODES = ["".join(p) for p in permutations("0123456789", 4)]


def bulls_and_cows(probe, code):
    bulls = sum(1 for a, b in zip(probe, code, strict=False) if a == b)
    return bulls, len(set(probe) & set(code)) - bulls


class Agent:
    # Which game this agent plays: required.
    GAME = "bulls-and-cows"

    def on_match_start(self, match_info):
        # match_info: {"game", "opponent_name", "total_rounds", "seat", "config", ...}
        print(
            "Bulls and cows,",
            match_info["total_rounds"],
            "rounds against",
            match_info["opponent_name"],
        )

    def on_turn(self, round_state):
        # round_state fields:
        #   "phase": "question" (ask a probe) or "guess" (guess the code or pass)
        #   "round", "cycle" (1-based), "cycle_limit" (10): the round ends 0/0 after the last cycle
        #   "your_qa_history": [{"question": "0123", "answer": {"bulls": 1, "cows": 2}}] this round
        #   "opponent_guessed", "opponent_locked_out", "your_locked_out": true/false
        #   "your_score", "opponent_score", "pot", "history" (finished rounds, with the code)
        # Keep only the codes that would have given every answer so far.
        candidates = ALL_CODES
        for qa in round_state["your_qa_history"]:
            answer = (qa["answer"]["bulls"], qa["answer"]["cows"])
            candidates = [c for c in candidates if bulls_and_cows(qa["question"], c) == answer]

        if round_state["phase"] == "question":
            probe = candidates[0]  # asking a code that could be the answer always makes progress
            print("cycle", round_state["cycle"], len(candidates), "codes left, asking", probe)
            return {"type": "question", "code": probe}

        last_cycle = round_state["cycle"] >= round_state["cycle_limit"]
        if len(candidates) == 1 or last_cycle:
            print("guessing", candidates[0])
            return {"type": "guess", "code": candidates[0]}
        return {"type": "pass"}  # not sure yet: a wrong guess would lock us out

    def on_round_end(self, round_result):
        # round_result: {"round", "your_points", "opponent_points", "code", "outcome", "cycles",
        #                "your_guess", "opponent_guess", "your_guess_cycle",
        #                "opponent_guess_cycle", "your_questions"}
        print(
            "round",
            round_result["round"],
            "code was",
            round_result["code"],
            "points",
            round_result["your_points"],
        )
