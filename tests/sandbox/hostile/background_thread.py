"""A background thread computes all the time, to think on the opponent's time.

The opponent in this test sleeps 0.5 s a turn. The agent measures the CPU time it got between the
end of one turn and the start of the next and prints COMPUTED when it is over 0.25 s.

Expected (docker, freezing on): the container is frozen while it waits, so it never computes on
the opponent's time; the match ends normally. It runs alone: the CPU it got while thawed for its
own calls counts here too, and on a starved host those calls take longer.
"""
EXPECT = {'reason': 'normal', 'alone': True, 'opponent_sleep_s': 0.5, 'stdout_has': ['idle cpu'], 'stdout_lacks': ['COMPUTED']}
import threading
import time


def spin():
    while True:
        sum(range(1000))


class Agent:
    GAME = "simple-card"

    def on_match_start(self, info):
        self.cpu_at_end = None
        threading.Thread(target=spin, daemon=True).start()

    def on_turn(self, state):
        if self.cpu_at_end is not None:
            idle = time.process_time() - self.cpu_at_end
            print(f"idle cpu {idle:.3f} s", "COMPUTED on the opponent's time" if idle > 0.25 else "")
        self.cpu_at_end = time.process_time()
        return {"type": "play_card", "card": max(state["hand"])}

    def on_round_end(self, result):
        self.cpu_at_end = time.process_time()
