"""Concurrent gateway calls: 6 threads of 4 calls each, all at once, against a budget of 10.

Expected: exactly 10 calls are answered and recorded (the budget is exact under concurrency);
every other one gets HTTP 429 (budget spent, or too many connections at once); normal end.
"""
EXPECT = {'reason': 'normal', 'gateway': {'cap_calls': 10, 'calls_per_turn': 1000}, 'gateway_records': 10, 'stdout_has': ['CONCURRENT answered=10', 'CONCURRENT other=[429]'], 'process': {}}
import http.client
import os
import threading

HOST, PORT = os.environ["OPENAI_BASE_URL"].split("//")[1].split("/")[0].split(":")
BODY = b'{"model": "tiny", "messages": [{"role": "user", "content": "hi"}]}'


def call():
    conn = http.client.HTTPConnection(HOST, int(PORT), timeout=30)
    try:
        conn.request("POST", "/v1/chat/completions", BODY, {
            "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"],
        })
        return conn.getresponse().status
    except OSError as exc:
        return type(exc).__name__
    finally:
        conn.close()


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            codes = []
            lock = threading.Lock()

            def worker():
                for _ in range(4):
                    code = call()
                    with lock:
                        codes.append(code)

            threads = [threading.Thread(target=worker) for _ in range(6)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            print("CONCURRENT answered=%d" % codes.count(200))
            print("CONCURRENT other=%s" % sorted({c for c in codes if c != 200}, key=str))
        return {"type": "play_card", "card": max(state["hand"])}
