"""Segfaults through ctypes in on_turn.

Expected: a crash forfeit naming SIGSEGV.
"""
EXPECT = {'reason': 'crash', 'detail': 'SIGSEGV', 'process': {}}
import ctypes


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        ctypes.string_at(0)
