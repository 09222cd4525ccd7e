"""TCP egress: connects to public addresses and to the Docker host's gateway.

Expected (docker): no network (network_mode none: the container has only its loopback, where the
model gateway listens); every attempt fails, the agent plays on, the match ends normally.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED tcp'], 'stdout_lacks': ['ESCAPED']}
import socket


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            for host, port in (("1.1.1.1", 443), ("172.17.0.1", 2375), ("151.101.0.223", 80)):
                try:
                    socket.create_connection((host, port), timeout=0.5).close()
                    print("ESCAPED tcp", host)
                except OSError as exc:
                    print("BLOCKED tcp", host, type(exc).__name__)
        return {"type": "play_card", "card": max(state["hand"])}
