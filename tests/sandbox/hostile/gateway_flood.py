"""Gateway flood: as many model calls as it can make in one turn (thousands, raw HTTP).

Expected: the gateway answers the first ``calls_per_turn`` (32) and refuses every other at once
with HTTP 429 (the harness answers those itself once the controller said so); exactly 32 calls reach the model and the ledger; the agent's own clock stays
within its budget (the gateway's answers are not its time) and the match ends normally.
"""
EXPECT = {'reason': 'normal', 'alone': True, 'gateway': {}, 'gateway_records': 32, 'stdout_has': ['FLOOD 200=32', 'FLOOD made>100'], 'process': {}}
import http.client
import os
import time

HOST, PORT = os.environ["OPENAI_BASE_URL"].split("//")[1].split("/")[0].split(":")
BODY = b'{"model": "tiny", "messages": [{"role": "user", "content": "hi"}]}'


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            counts = {}
            made = 0
            refused_since = None
            # Up to 3000 calls, and at most 0.4 s once they are refused (the answered ones wait
            # for the model on the model's time; the refused ones are all the agent's own).
            while made < 3000 and (
                refused_since is None or time.perf_counter() - refused_since < 0.4
            ):
                conn = http.client.HTTPConnection(HOST, int(PORT), timeout=5)
                conn.request("POST", "/v1/chat/completions", BODY, {
                    "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"],
                    "Content-Type": "application/json",
                })
                status = conn.getresponse().status
                conn.close()
                counts[status] = counts.get(status, 0) + 1
                made += 1
                if status == 429 and refused_since is None:
                    refused_since = time.perf_counter()
            print("FLOOD", " ".join(f"{k}={v}" for k, v in sorted(counts.items())))
            print("FLOOD made>100" if made > 100 else f"FLOOD made={made}")
        return {"type": "play_card", "card": max(state["hand"])}
