"""A starter agent for brinkmanship. Upload this file as it is, then make it smarter.

Six crises. In each, a hidden war threshold K (1 to 5) is drawn and the escalation level starts
at 0. Every step both sides send one message, then both choose "stand" or "yield" at once:
yield/yield scores 50 - 10*level each, stand/yield gives the stander 100 - 10*level and the
yielder -10*level, stand/stand raises the level and, once level >= K, it is war: -100 each.
"""


class Agent:
    # Which game this agent plays: required.
    GAME = "brinkmanship"

    def __init__(self):
        self.opponent_first_moves = []  # what the opponent chose first in each earlier crisis

    def on_match_start(self, match_info):
        # match_info: {"game", "opponent_name", "total_rounds", "seat", "config", ...}
        print(
            "Brinkmanship,",
            match_info["total_rounds"],
            "crises against",
            match_info["opponent_name"],
        )

    def on_turn(self, round_state):
        # round_state fields:
        #   "phase": "negotiate" (send one message) or "commit" (choose stand or yield)
        #   "round": the crisis (1-6), "step": the step within it, "turn": actions so far + 1
        #   "escalation_level": how many times both have stood this crisis (war once >= K)
        #   "your_choices", "opponent_choices": both sides' choices at earlier steps of this crisis
        #   "messages": [{"sender": "you" | "opponent", "text"}] this crisis
        #   "your_score", "opponent_score", "pot"
        #   "history": [{"round", "your_choices", "opponent_choices", "outcome", "threshold",
        #                "escalation_level", "your_points", "opponent_points"}]
        level = round_state["escalation_level"]
        if round_state["phase"] == "negotiate":
            return {"type": "message", "text": "I stand firm, but I do not want a war."}

        # How often did the opponent yield at the first step of earlier crises?
        firsts = [h["opponent_choices"][0] for h in round_state["history"]]
        yield_rate = firsts.count("yield") / len(firsts) if firsts else 0.5
        # Stand against someone who tends to yield; back off as the danger grows.
        choice = "stand" if yield_rate >= 0.5 and level < 2 else "yield"
        if level == 0 and not firsts:
            choice = "stand"  # the first crisis: test the opponent
        print(
            "crisis",
            round_state["round"],
            "level",
            level,
            "opponent yield rate",
            round(yield_rate, 2),
            "->",
            choice,
        )
        return {"type": "commit", "choice": choice}

    def on_round_end(self, round_result):
        # round_result: {"round", "your_points", "opponent_points", "outcome" (both_yield, war,
        #                you_stood, opponent_stood), "threshold", "escalation_level",
        #                "your_choices", "opponent_choices"}
        print(
            "crisis",
            round_result["round"],
            round_result["outcome"],
            "threshold was",
            round_result["threshold"],
        )
