"""Fills /tmp with 4 MB files until the disk is full.

Expected (docker): the tmpfs holds 16 MB; the write fails with ENOSPC; the agent plays on.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED full after']}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            written = 0
            try:
                for i in range(100):
                    with open(f"/tmp/fill-{i}", "wb") as f:
                        for _ in range(4):
                            f.write(b"x" * (1024 * 1024))
                            written += 1
            except OSError as exc:
                print("BLOCKED full after", written, "MB:", exc.strerror)
        return {"type": "play_card", "card": max(state["hand"])}
