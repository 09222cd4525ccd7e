"""Requests to the gateway for what it does not serve: other paths, path tricks, other methods,
an absolute URL naming another host, the wrong key.

Expected: 404 for every other path, 405 for another method, 401 without this match's key; an
absolute URL is only ever served by this endpoint (it has no way out); normal end.
"""
EXPECT = {'reason': 'normal', 'gateway': {}, 'gateway_records': 0, 'stdout_has': ['GET / 404', 'GET /v1/embeddings 404', 'GET /v1/../../etc/passwd 404', 'POST /v1/files 404', 'PUT /v1/chat/completions 405', 'GET /v1/chat/completions 405', 'nokey 401', 'GET http://example.com/v1/models 200'], 'stdout_lacks': ['root:x:0:0'], 'process': {}}
import http.client
import os

HOST, PORT = os.environ["OPENAI_BASE_URL"].split("//")[1].split("/")[0].split(":")
KEY = {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}


def status(method, path, headers=KEY):
    conn = http.client.HTTPConnection(HOST, int(PORT), timeout=5)
    conn.request(method, path, b"{}" if method in ("POST", "PUT") else None, headers)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    if b"root:x:0:0" in body:
        print("root:x:0:0 leaked")
    return response.status


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            for method, path in (
                ("GET", "/"),
                ("GET", "/v1/embeddings"),
                ("GET", "/v1/../../etc/passwd"),
                ("POST", "/v1/files"),
                ("PUT", "/v1/chat/completions"),
                ("GET", "/v1/chat/completions"),
                ("GET", "http://example.com/v1/models"),
            ):
                print(method, path, status(method, path))
            print("nokey", status("GET", "/v1/models", {}))
        return {"type": "play_card", "card": max(state["hand"])}
