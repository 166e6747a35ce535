#!/usr/bin/env python3
"""A scripted OpenAI/Anthropic-compatible endpoint on loopback, then egg-opt
against it; prints what a test checks.

    fake_llm.py MODE EGG_OPT INPUT [egg-opt args...]

MODE: good, malformed, illegal, uncoalesced, http500, http429, truncated,
badutf8, slow, oversized, anthropic, down, dns.
With EGG_LLM_CACHE set, also reports whether the cache holds the key.
The server answers every request according to MODE, counts requests, and
records whether the API key arrived in the expected header. Output: egg-opt's
stdout and stderr, then 'requests: N', 'key-header: yes|no' and
'key-leaked: yes|no' (the key must never appear in egg-opt's output).
"""
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time

MODE, EGG_OPT, INPUT = sys.argv[1], sys.argv[2], sys.argv[3]
EXTRA = sys.argv[4:]
KEY = "sk-egg-test-0123456789"
TUNING = "#egg.tuning<threads = [128], block = [1, 512], thread = [1, 4], vector = 4>"
state = {"requests": 0, "key": False, "history": False}


def answer(text, anthropic=False):
    if anthropic:
        return {"content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": 100, "output_tokens": 20}}
    return {"choices": [{"message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20}}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        state["requests"] += 1
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        anthropic = MODE == "anthropic"
        expected = ("x-api-key", KEY) if anthropic else ("Authorization", "Bearer " + KEY)
        state["key"] = state["key"] or self.headers.get(expected[0]) == expected[1]
        assert body["messages"], body
        state["history"] = state["history"] or any(
            "Measurements so far" in str(m.get("content")) for m in body["messages"])
        if MODE == "http500":
            self.send_response(500)
            self.end_headers()
            return
        if MODE == "http429":
            self.send_response(429)
            self.send_header("Retry-After", "1")
            self.end_headers()
            return
        if MODE == "truncated":  # Promises more bytes than it sends.
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"choices": [')
            return
        if MODE == "badutf8":
            payload = b'{"choices": [{"message": {"content": "\xff\xfe"}}]}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        if MODE == "slow":
            time.sleep(3)
        if MODE == "oversized":
            payload = b"x" * (2 << 20)
        else:
            text = {
                "good": json.dumps({"tuning": TUNING, "why": "wider blocks"}),
                "anthropic": json.dumps({"tuning": TUNING, "why": "wider blocks"}),
                "malformed": "this is not json {",
                "illegal": json.dumps({"tuning": "#egg.tuning<threads = [64], block = [1, 64], warp = [1, 32]>"}),
                "uncoalesced": json.dumps({"tuning": "#egg.tuning<threads = [8, 16], block = [16, 32], thread = [1, 4], vector = 4>"}),
            }.get(MODE, "")
            payload = json.dumps(answer(text, anthropic)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
port = server.server_address[1]
if MODE in ("down", "dns"):  # Nothing listens on this port.
    server.server_close()
else:
    threading.Thread(target=server.serve_forever, daemon=True).start()

env = dict(os.environ)
endpoint = f"http://127.0.0.1:{port}/v1/chat/completions"
if MODE == "dns":  # A name that cannot resolve (reserved TLD).
    endpoint = "http://egg-llm.invalid/v1/chat/completions"
env.update({
    "EGG_LLM_ENDPOINT": endpoint,
    "EGG_LLM_MODEL": "test-model",
    "EGG_LLM_KEY_ENV": "EGG_TEST_KEY",
    "EGG_TEST_KEY": KEY,
    "EGG_LLM_TIMEOUT": "1",
    "EGG_LLM_PROTOCOL": "anthropic" if MODE == "anthropic" else "openai",
})
r = subprocess.run([EGG_OPT, INPUT] + EXTRA, capture_output=True, text=True,
                   env=env, timeout=120)
print(r.stdout)
print(r.stderr)
print(f"exit: {r.returncode}")
print(f"requests: {state['requests']}")
print(f"key-header: {'yes' if state['key'] else 'no'}")
print(f"key-leaked: {'yes' if KEY in r.stdout + r.stderr else 'no'}")
print(f"saw-measurements: {'yes' if state['history'] else 'no'}")
cache = os.environ.get("EGG_LLM_CACHE")
if cache:
    stored = b"".join(open(p, "rb").read() for p in (cache, cache + "-wal")
                      if os.path.exists(p))
    print(f"cache-bytes: {'some' if stored else 'none'}")
    print(f"key-in-cache: {'yes' if KEY.encode() in stored else 'no'}")
