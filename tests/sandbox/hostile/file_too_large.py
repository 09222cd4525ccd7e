"""Writes one 12 MB file.

Expected: the fsize ulimit (8 MB) stops the write with EFBIG (Python ignores SIGXFSZ); the agent
plays on. Same in the process backend (an rlimit).
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED big file'], 'process': {}}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            try:
                with open("big.bin", "wb") as f:
                    for _ in range(12):
                        f.write(b"x" * (1024 * 1024))
                        f.flush()
                print("ESCAPED wrote 12 MB")
            except OSError as exc:
                print("BLOCKED big file:", exc.strerror)
        return {"type": "play_card", "card": max(state["hand"])}
