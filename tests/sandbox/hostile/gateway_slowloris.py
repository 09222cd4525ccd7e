"""Slow-loris on the gateway: threads hold every connection the endpoint serves at once, each
trickling its request one byte at a time.

Expected: a call made meanwhile is refused at once (429: too many connections), each slow
request is cut at the endpoint's read timeout (408), and once they are cut a call is answered
(200); the agent's thread never blocks past its budget; normal end.
"""
EXPECT = {'reason': 'normal', 'gateway': {'read_timeout_s': 0.4}, 'gateway_records': 1, 'stdout_has': ['MEANWHILE 429', 'SLOW 408 408 408 408', 'AFTER 200'], 'process': {}}
import os
import select
import socket
import threading
import time

import http.client

HOST, PORT = os.environ["OPENAI_BASE_URL"].split("//")[1].split("/")[0].split(":")
BODY = b'{"model": "tiny", "messages": [{"role": "user", "content": "hi"}]}'


def call():
    conn = http.client.HTTPConnection(HOST, int(PORT), timeout=5)
    conn.request("POST", "/v1/chat/completions", BODY, {
        "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"],
    })
    status = conn.getresponse().status
    conn.close()
    return status


def slow(results, index, connected):
    conn = socket.create_connection((HOST, int(PORT)), timeout=3)
    connected.release()
    answer = b""
    try:
        for byte in b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n":
            if select.select([conn], [], [], 0)[0]:
                break  # the endpoint answered (and stops reading)
            conn.sendall(bytes([byte]))
            time.sleep(0.05)
    except OSError:
        pass
    try:
        answer = conn.recv(4096)
    except OSError:
        pass
    conn.close()
    results[index] = answer.split(b" ")[1].decode() if answer.startswith(b"HTTP/1.1 ") else "none"


class Agent:
    GAME = "simple-card"

    def on_turn(self, state):
        if state["round"] == 1:
            results = ["?"] * 4
            connected = threading.Semaphore(0)
            threads = [
                threading.Thread(target=slow, args=(results, i, connected)) for i in range(4)
            ]
            for t in threads:
                t.start()
            for _ in threads:  # all four are in the endpoint's queue before this call
                connected.acquire()
            print("MEANWHILE", call())
            for t in threads:
                t.join()
            print("SLOW", " ".join(results))
            print("AFTER", call())
        return {"type": "play_card", "card": max(state["hand"])}
