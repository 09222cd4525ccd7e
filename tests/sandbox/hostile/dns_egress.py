"""DNS egress: resolves a name, then sends a raw DNS query over UDP.

Expected (docker): both fail (no resolver, no network: only the loopback); normal end.
"""
EXPECT = {'reason': 'normal', 'stdout_has': ['BLOCKED dns', 'BLOCKED udp'], 'stdout_lacks': ['ESCAPED']}
import socket


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            try:
                print("ESCAPED dns", socket.getaddrinfo("deb.debian.org", 80)[0][4])
            except OSError as exc:
                print("BLOCKED dns", type(exc).__name__)
            try:
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00", ("8.8.8.8", 53))
                print("ESCAPED udp")
            except OSError as exc:
                print("BLOCKED udp", type(exc).__name__)
        return {"type": "play_card", "card": max(state["hand"])}
