"""Three threads and a forked child process compute all the time, to think on the opponent's
time.

The opponent sleeps 0.5 s a turn. Every spinner records the longest pause it saw between two of
its loop iterations (in memory shared with the child); the agent resets those at the end of each
turn and reads them at the start of the next. A spinner that was frozen through the opponent's
turn paused for at least that long; one that computed on the opponent's time never paused more
than a scheduler slice, and the agent prints COMPUTED.

Expected (docker, freezing on): the whole cgroup is frozen while it waits, every thread and the
child included; the match ends normally.
"""
EXPECT = {'reason': 'normal', 'alone': True, 'opponent_sleep_s': 0.5, 'stdout_has': ['longest pauses'], 'stdout_lacks': ['COMPUTED']}
import mmap
import os
import struct
import threading
import time

SPINNERS = 4  # three threads and one child process
SHARED = mmap.mmap(-1, 8 * SPINNERS)  # anonymous and shared: the child writes, we read


def spin(slot):
    last = time.monotonic()
    while True:
        sum(range(200))
        now = time.monotonic()
        gap, last = now - last, now
        if gap > struct.unpack_from("d", SHARED, slot * 8)[0]:
            struct.pack_into("d", SHARED, slot * 8, gap)


class Agent:
    GAME = "simple-card"

    def on_match_start(self, info):
        self.turns = 0
        if os.fork() == 0:
            spin(SPINNERS - 1)
        for slot in range(SPINNERS - 1):
            threading.Thread(target=spin, args=(slot,), daemon=True).start()

    def on_turn(self, state):
        if self.turns:
            pauses = [struct.unpack_from("d", SHARED, i * 8)[0] for i in range(SPINNERS)]
            shown = " ".join(f"{p:.3f}" for p in pauses)
            print(f"longest pauses {shown} s", "COMPUTED on the opponent's time" if min(pauses) < 0.4 else "")
        self.turns += 1
        SHARED[:] = bytes(8 * SPINNERS)
        return {"type": "play_card", "card": max(state["hand"])}
