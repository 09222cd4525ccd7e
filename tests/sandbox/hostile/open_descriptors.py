"""Opens descriptors in a loop and keeps them.

Expected: the nofile limit (256) stops it with EMFILE; the harness needs no new descriptor to
answer, so the match ends normally. Same in the process backend.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED open'], 'process': {}}
import os


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            self.kept = []
            try:
                for _ in range(100000):
                    self.kept.append(os.open("/dev/null", os.O_RDONLY))
            except OSError as exc:
                print("BLOCKED open after", len(self.kept), exc.strerror)
        return {"type": "play_card", "card": max(state["hand"])}
