"""The LLM agent against a real OpenAI-compatible server: llama.cpp's HTTP
server (the `xllamacpp` wheel) with grammar-constrained JSON, serving a tiny
model the test writes (tiny_llm.py). The model's decisions are not good; what
is tested is the protocol and that EGG's schemas, turned into grammars by a
real server, only let through answers of the right shape: every answer
parses and fits its schema, stage 1's answer is taken, stage 2's answers are
judged by the lowering's rules (not rejected as malformed), and the compile
ends with a decided kernel whatever the model says."""
import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("xllamacpp")
pytest.importorskip("gguf")

from egg.tools import find_tool  # noqa: E402

HERE = Path(__file__).resolve().parent
INPUT = HERE.parents[1] / "test" / "Agents" / "Inputs" / "row_kernel.mlir"


def fits(schema, value):
    """Whether `value` fits `schema` (the subset EGG's schemas use)."""
    if "enum" in schema:
        return value in schema["enum"]
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        return (isinstance(value, dict)
                and all(k in value for k in schema.get("required", []))
                and (schema.get("additionalProperties", True) or set(value) <= set(props))
                and all(fits(props[k], v) for k, v in value.items() if k in props))
    if kind == "array":
        return (isinstance(value, list)
                and schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value))
                and all(fits(schema["items"], v) for v in value))
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return True


@pytest.fixture()
def server(tmp_path):
    model = tmp_path / "tiny.gguf"
    subprocess.run([sys.executable, str(HERE / "tiny_llm.py"), "write", str(model)], check=True)
    proc = subprocess.Popen([sys.executable, str(HERE / "tiny_llm.py"), "serve", str(model)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("LISTENING "), line
        yield line.split()[1]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_schemas_hold_against_a_real_server(server, tmp_path):
    cache = tmp_path / "llm.db"
    env = dict(os.environ, EGG_LLM_ENDPOINT=server + "/v1/chat/completions",
               EGG_LLM_MODEL="tiny", EGG_LLM_CACHE=str(cache), EGG_LLM_TIMEOUT="120")
    r = subprocess.run([find_tool("egg-opt"), str(INPUT), "--mlir-print-op-on-diagnostic=false",
                        "--egg-attach-target", "--egg-form-kernels",
                        "--egg-algorithm-structure=agent=llm", "--egg-hardware-tuning=agent=llm"],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    kernels = re.findall(r"egg\.kernel @\w+ .*", r.stdout)
    assert kernels and all("tuning = #egg.tuning<" in k for k in kernels), r.stdout
    # Malformed answers would show as such; rules the model broke may not.
    assert "not a JSON object" not in r.stderr and "unknown knob" not in r.stderr, r.stderr
    assert "request failed" not in r.stderr and "HTTP" not in r.stderr, r.stderr
    summary = re.search(r"the model decided (\d+) of (\d+) choice", r.stderr)
    assert summary and int(summary.group(1)) >= 1, r.stderr  # Stage 1's structure.
    assert not Path(str(cache) + "-wal").exists()

    with sqlite3.connect(cache) as db:
        exchanges = db.execute("SELECT request, response, status FROM exchanges").fetchall()
    assert len(exchanges) >= 3
    stage2 = 0
    for request, response, status in exchanges:
        assert status == 200
        body = json.loads(request.split("\n", 1)[1])
        schema = body["response_format"]["json_schema"]["schema"]
        assert body["response_format"]["json_schema"]["strict"] is True
        answer = json.loads(response)
        assert fits(schema, answer), (schema, answer)
        if schema["properties"].get("tuning", {}).get("type") == "object":
            stage2 += 1
    assert stage2 >= 1
