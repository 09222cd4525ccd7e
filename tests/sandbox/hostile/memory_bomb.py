"""Memory bomb: touches memory in 1 GB blocks, up to 8 GB.

Expected (docker): the memory cgroup (256 MB, no swap) kills it: a crash that says out of memory.
It runs alone: on a CPU-starved host the kernel's reclaim before the kill can outlast 2 s.
Process backend: the address-space rlimit makes the allocation fail with MemoryError inside
on_turn, every attempt: an illegal-action forfeit.
"""
EXPECT = {'reason': 'crash', 'alone': True, 'detail': 'out of memory', 'process': {'reason': 'illegal', 'detail': 'MemoryError'}}


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        hoard = []
        for _ in range(8):
            hoard.append(b"\x01" * (1024 * 1024 * 1024))
        return {"type": "play_card", "card": max(state["hand"])}
