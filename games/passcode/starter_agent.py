"""A starter agent for Passcode. Upload this file as it is, then make it smarter.

A secret keeper (a language model) holds a word from the list in the rules. Each cycle you ask
it one yes/no question in private (it answers "yes", "no" or "unknown"), then you guess the word
or pass. The first correct guess wins the word; a wrong guess locks you out of it.
"""


class Agent:
    # Which game this agent plays: required.
    GAME = "passcode"

    def on_round_start(self, round_info):
        # A new word: round_info = {"round", "round_number", "pot", "game_state"}.
        self.asked = 0

    def on_turn(self, round_state):
        # round_state: "phase" ("asking" or "guessing"), "round_number" (the cycle, 1-10),
        # "cycle_limit", "your_qa_history" ([{"question", "answer"}]: yours only),
        # "your_locked_out", "opponent_locked_out", "opponent_guessed".
        if round_state["phase"] == "asking":
            self.asked += 1
            return {"type": "question", "text": "Is it an animal?"}
        for qa in round_state["your_qa_history"]:
            if qa["answer"] == "yes" and qa["question"] == "Is it an animal?":
                return {"type": "guess", "text": "tiger"}
        return {"type": "pass"}

    def on_round_end(self, round_result):
        # round_result: {"round", "word", "winner", "your_points", "opponent_points",
        #                "your_qa_history", "opponent_qa_history", ...}: both revealed now.
        print("the word was", round_result["word"])
