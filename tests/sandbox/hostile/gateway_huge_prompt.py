"""A 10 MB prompt to the gateway (a raw request, so the agent's own time goes to the attack).

Expected: refused with HTTP 413 before anything is forwarded (no model call, no ledger row);
the agent plays on and the match ends normally.
"""
EXPECT = {'reason': 'normal', 'gateway': {}, 'gateway_records': 0, 'stdout_has': ['REFUSED 413 request_too_large'], 'stdout_lacks': ['ESCAPED'], 'process': {}}
import http.client
import json
import os

HOST, PORT = os.environ["OPENAI_BASE_URL"].split("//")[1].split("/")[0].split(":")
BODY = b'{"model": "tiny", "messages": [{"role": "user", "content": "' + b"x" * 10_000_000 + b'"}]}'


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            conn = http.client.HTTPConnection(HOST, int(PORT), timeout=5)
            try:
                conn.request("POST", "/v1/chat/completions", BODY, {
                    "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"],
                    "Content-Type": "application/json",
                })
                response = conn.getresponse()
                body = json.loads(response.read())
                if response.status == 200:
                    print("ESCAPED a 10 MB prompt was answered")
                print("REFUSED", response.status, body["error"]["code"])
            except OSError as exc:
                print("REFUSED connection", type(exc).__name__)
            finally:
                conn.close()
        return {"type": "play_card", "card": max(state["hand"])}
