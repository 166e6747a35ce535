#!/usr/bin/env python3
"""A scripted OpenAI/Anthropic-compatible endpoint on loopback, then egg-opt
against it; prints what a test checks.

    fake_llm.py MODE EGG_OPT INPUT [egg-opt args...]

MODE: good, malformed, illegal, uncoalesced, http500, http429, truncated,
badutf8, slow, drip (headers at once, then a byte every 0.3 s), tls (an
https endpoint that speaks plain HTTP), oversized, anthropic, down, dns,
noschema (HTTP 400 for a
JSON-schema request, as servers without structured output answer),
badmodel (HTTP 400 with an error message for every request), knobs (the
tuning as an object of knobs, the schema's form), badknob (one knob the
schema does not have), secondtry
(an invalid tuning, then a valid one once the reason comes back),
structure (stage-1 requests answered with the last structure the schema
allows), badstructure (a structure outside the legal set).
With EGG_LLM_CACHE set, also reports whether the cache holds the key.
With FAKE_LLM_FLAGS=1 the endpoint, model, key variable and timeout go to
egg-opt as --egg-llm-* flags (with wrong values in the environment, which
the flags must override) instead of the environment.
The server answers every request according to MODE, counts requests, and
records whether the API key arrived in the expected header. Output: egg-opt's
stdout and stderr, then 'requests: N', 'key-header: yes|no',
'key-leaked: yes|no' (the key must never appear in egg-opt's output),
'saw-measurements', 'saw-custom-prompt' (CUSTOM-PROMPT-MARKER in a
request), 'tuning-knobs: ...' (the knobs of each distinct stage-2 schema), 'schema-requests: N' (requests that asked for a JSON
schema), 'structure-requests: N' and 'saw-stage1-why' (a stage-2 request
that carried stage 1's reason).
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
# Every mode speaks either protocol: FAKE_LLM_PROTOCOL=anthropic (or the
# mode "anthropic", a good answer) selects Anthropic's Messages API.
ANTHROPIC = MODE == "anthropic" or os.environ.get("FAKE_LLM_PROTOCOL") == "anthropic"
EXTRA = sys.argv[4:]
KEY = "sk-egg-test-0123456789"
TUNING = "#egg.tuning<threads = [128], block = [1, 512], thread = [1, 4], vector = 4>"
WHY = "rows of 1024 fit one block in registers"
state = {"knobs": [], "prompt_tokens": 0, "requests": 0, "key": False, "history": False, "schema": 0,
         "structure": 0, "stage1why": False, "marker": False}


def answer(text, anthropic=False, tool=None):
    try:
        data = json.loads(text)
    except ValueError:  # Not JSON: a model that ignored the tool.
        tool = None
    if anthropic and tool:  # The forced tool call of structured output.
        return {"content": [{"type": "tool_use", "id": "t1", "name": tool,
                             "input": data}],
                "usage": {"input_tokens": state["prompt_tokens"], "output_tokens": 20}}
    if anthropic:
        return {"content": [{"type": "text", "text": text}],
                "usage": {"input_tokens": state["prompt_tokens"], "output_tokens": 20}}
    return {"choices": [{"message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": state["prompt_tokens"], "completion_tokens": 20}}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_json(self, body, status=200):
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self):
        state["requests"] += 1
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        anthropic = ANTHROPIC
        expected = ("x-api-key", KEY) if anthropic else ("Authorization", "Bearer " + KEY)
        state["key"] = state["key"] or self.headers.get(expected[0]) == expected[1]
        assert body["messages"], body
        state["history"] = state["history"] or any(
            "Measurements so far" in str(m.get("content")) for m in body["messages"])
        # The answer's schema: OpenAI's response_format or Anthropic's tool.
        fmt = body.get("response_format", {})
        schema = fmt.get("json_schema", {}).get("schema") if fmt.get("type") == "json_schema" else None
        tool = None
        if body.get("tools"):
            tool = body["tools"][0]["name"]
            schema = body["tools"][0]["input_schema"]
        state["schema"] += schema is not None
        if MODE == "noschema" and schema is not None:
            self.send_response(400)
            self.end_headers()
            return
        if MODE == "badmodel":  # A 400 that has nothing to do with schemas.
            self.send_json({"error": {"message": "the model 'test-model' does not exist"}}, 400)
            return
        prompt = str(body.get("system")) + str(body["messages"])
        # Usage as a tokenizer of about four characters a token reports it.
        state["prompt_tokens"] = (len(str(body.get("system") or "")) + sum(
            len(str(m.get("content"))) for m in body["messages"])) // 4
        stage1 = "algorithm-structure stage" in prompt
        state["marker"] = state["marker"] or "CUSTOM-PROMPT-MARKER" in prompt
        state["structure"] += stage1
        state["stage1why"] = state["stage1why"] or (
            not stage1 and "because: " + WHY in prompt)
        if stage1 and MODE in ("structure", "badstructure", "noschema"):
            legal = schema["properties"]["structure"]["enum"] if schema else []
            pick = (legal[-1] if legal else "#egg.structure<reduce_row_per_warp>")
            if MODE == "badstructure":
                pick = "#egg.structure<gemm_direct>"
            text = json.dumps({"structure": pick, "why": WHY})
            self.send_json(answer(text, ANTHROPIC, tool))
            return
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
        if MODE == "drip":  # Slow drip: the body never completes in time.
            payload = json.dumps(answer(json.dumps({"tuning": TUNING, "why": "x"}))).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            try:
                for b in payload:
                    self.wfile.write(bytes([b]))
                    self.wfile.flush()
                    time.sleep(0.3)
            except OSError:  # The client gave up, as it should.
                pass
            return
        tuning_schema = (schema or {}).get("properties", {}).get("tuning")
        if not stage1 and tuning_schema and tuning_schema.get("type") == "object":
            knobs = " ".join(sorted(tuning_schema["properties"]))
            if knobs not in state["knobs"]:
                state["knobs"].append(knobs)
        if MODE in ("knobs", "badknob"):  # The tuning as knobs, not syntax.
            knobs = {"threads": [128], "block": [1, 512], "thread": [1, 4], "vector": 4}
            if MODE == "badknob":
                knobs["speed"] = 9
            text = json.dumps({"tuning": knobs, "why": "wider blocks"})
            self.send_json(answer(text, anthropic, tool))
            return
        if MODE == "secondtry":  # Invalid first, then valid once told why.
            retried = any(m.get("role") == "assistant" for m in body["messages"])
            text = json.dumps({"tuning": TUNING if retried else "#egg.tuning<threads = [8]>",
                               "why": "wider blocks"})
            self.send_json(answer(text, anthropic, tool))
            return
        if MODE == "oversized":
            payload = b"x" * (2 << 20)
        else:
            text = {
                "good": json.dumps({"tuning": TUNING, "why": "wider blocks"}),
                "noschema": json.dumps({"tuning": TUNING, "why": "wider blocks"}),
                "structure": json.dumps({"tuning": TUNING, "why": "wider blocks"}),
                "badstructure": json.dumps({"tuning": TUNING, "why": "wider blocks"}),
                "anthropic": json.dumps({"tuning": TUNING, "why": "wider blocks"}),
                "malformed": "this is not json {",
                "illegal": json.dumps({"tuning": "#egg.tuning<threads = [64], block = [1, 64], warp = [1, 32]>"}),
                "uncoalesced": json.dumps({"tuning": "#egg.tuning<threads = [8, 16], block = [16, 32], thread = [1, 4], vector = 4>"}),
            }.get(MODE, "")
            payload = json.dumps(answer(text, anthropic, tool)).encode()
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
if MODE == "tls":  # TLS to a server that answers in plain HTTP.
    endpoint = endpoint.replace("http://", "https://")
settings = {
    "ENDPOINT": endpoint,
    "MODEL": "test-model",
    "KEY_ENV": "EGG_TEST_KEY",
    # Short where the test waits for the timeout (or a resolver that may not
    # answer); else long enough for a loaded machine to answer.
    "TIMEOUT": "1" if MODE in ("slow", "drip", "dns") else "60",
    "PROTOCOL": "anthropic" if ANTHROPIC else "openai",
}
env["EGG_TEST_KEY"] = KEY
flags = []
for name, value in settings.items():
    if os.environ.get("FAKE_LLM_FLAGS") == "1":
        flags.append(f"--egg-llm-{name.lower().replace('_', '-')}={value}")
        env[f"EGG_LLM_{name}"] = "http://127.0.0.1:9/wrong" if name == "ENDPOINT" else "wrong"
        if name == "TIMEOUT":
            env["EGG_LLM_TIMEOUT"] = "1"
    else:
        env[f"EGG_LLM_{name}"] = value
r = subprocess.run([EGG_OPT, INPUT] + flags + EXTRA, capture_output=True,
                   text=True, env=env, timeout=120)
print(r.stdout)
print(r.stderr)
print(f"exit: {r.returncode}")
print(f"requests: {state['requests']}")
print(f"key-header: {'yes' if state['key'] else 'no'}")
print(f"key-leaked: {'yes' if KEY in r.stdout + r.stderr else 'no'}")
print(f"saw-measurements: {'yes' if state['history'] else 'no'}")
print(f"schema-requests: {state['schema']}")
print(f"structure-requests: {state['structure']}")
print(f"saw-stage1-why: {'yes' if state['stage1why'] else 'no'}")
print(f"saw-custom-prompt: {'yes' if state['marker'] else 'no'}")
for knobs in state["knobs"]:
    print(f"tuning-knobs: {knobs}")
cache = os.environ.get("EGG_LLM_CACHE")
if cache:
    stored = b"".join(open(p, "rb").read() for p in (cache, cache + "-wal")
                      if os.path.exists(p))
    print(f"cache-bytes: {'some' if stored else 'none'}")
    print(f"key-in-cache: {'yes' if KEY.encode() in stored else 'no'}")
    print(f"cache-wal: {'some' if os.path.exists(cache + '-wal') else 'none'}")
    import sqlite3
    with sqlite3.connect(cache) as db:
        count = db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    print(f"cached-answers: {count}")
