"""Malformed HTTP to the gateway over raw sockets: garbage, a header line without a colon, a
20 KB header, a negative and a non-numeric Content-Length, chunked encoding, a body that stops
short of its Content-Length.

Expected: each gets its bounded error status (400, 431, 411, or 408 for the short body) and the
endpoint still answers a well-formed call afterwards (200); normal end.
"""
EXPECT = {'reason': 'normal', 'gateway': {'read_timeout_s': 0.5}, 'gateway_records': 1, 'stdout_has': ['garbage 400', 'nocolon 400', 'hugehead 431', 'negative 400', 'nan 400', 'chunked 411', 'short 408', 'AFTER 200'], 'process': {}}
import os
import socket

HOST, PORT = os.environ["OPENAI_BASE_URL"].split("//")[1].split("/")[0].split(":")
AUTH = "Authorization: Bearer " + os.environ["OPENAI_API_KEY"] + "\r\n"
BODY = '{"model": "tiny", "messages": [{"role": "user", "content": "hi"}]}'
HEAD = "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n" + AUTH
CASES = {
    "garbage": "\x00\x01 not http at all\r\n\r\n",
    "nocolon": HEAD + "this line has no colon\r\n\r\n",
    "hugehead": HEAD + "X-Big: " + "a" * 20000 + "\r\n\r\n",
    "negative": HEAD + "Content-Length: -5\r\n\r\n",
    "nan": HEAD + "Content-Length: lots\r\n\r\n",
    "chunked": HEAD + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    "short": HEAD + "Content-Length: 500\r\n\r\n" + BODY,
    "AFTER": HEAD + f"Content-Length: {len(BODY)}\r\n\r\n" + BODY,
}


def send(raw):
    conn = socket.create_connection((HOST, int(PORT)), timeout=5)
    try:
        conn.sendall(raw.encode("latin-1"))
        answer = b""
        while b"\r\n" not in answer:
            chunk = conn.recv(4096)
            if not chunk:
                break
            answer += chunk
        return answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/1.1 ") else "none"
    except OSError as exc:
        return type(exc).__name__
    finally:
        conn.close()


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            for name, raw in CASES.items():
                print(name, send(raw))
        return {"type": "play_card", "card": max(state["hand"])}
