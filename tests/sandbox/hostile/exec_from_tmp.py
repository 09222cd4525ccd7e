"""Copies a program to /tmp and /dev/shm and runs it from there.

Expected (docker): both are mounted noexec; exec fails with PermissionError; normal end.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED /tmp/tool', 'BLOCKED /dev/shm/tool'], 'stdout_lacks': ['ESCAPED']}
import os
import shutil
import subprocess


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            for path in ("/tmp/tool", "/dev/shm/tool"):
                try:
                    shutil.copy("/bin/true", path)
                    os.chmod(path, 0o755)
                    subprocess.run([path], check=True, timeout=1)
                    print("ESCAPED", path)
                except (OSError, subprocess.SubprocessError) as exc:
                    print("BLOCKED", path, type(exc).__name__)
        return {"type": "play_card", "card": max(state["hand"])}
