"""egg-tune's side door to a Ray cluster (``python -m egg.cluster.tune_server
SPEC``, started by ``egg-tune --cluster=SPEC``). It speaks JSON lines: on
stdin a `setup` message, then one `candidate` per line; on stdout `ready`
(the cluster's size and, where it is to time candidates, egg-eval's
--device-info from one of its GPUs), then one result per candidate in the
order they finish. Each candidate compiles as a CPU task and, with
`evaluate`, is timed by a task that holds one GPU. Ray retries a task whose
worker died once; an egg-eval that faults or crashes is run once more, on
another node where there is one. At the end of stdin (egg-tune is done, or
was killed) it cancels what is in flight and exits.

Messages (docs/cluster.md):
  in:  {"op": "setup", "source": TEXT, "source_name": NAME, "pipeline": {...},
        "evaluate": BOOL, "eval_tool": PATH|"", "eval_timeout": S,
        "compile_timeout": S, "bundle": PATH|""}
       {"op": "candidate", "id": N, "decisions": TEXT, "eval_args": [...]}
  out: {"ready": true, "nodes": N, "cpus": N, "gpus": N, "device_info": TEXT|null}
       {"error": MESSAGE}
       {"id": N, "compile": {...}, "eval": {...}|null, "attempts": N, "nodes": [...]}"""
import json
import os
import queue
import sys
import threading

from . import tasks
from .session import ClusterError, connect


def eval_faulted(ev):
    """Whether an egg-eval run failed in a way another GPU may not repeat:
    killed by a signal, gone without a result, or a fault it reported."""
    if ev.get("skipped") or ev.get("timed_out"):
        return False
    if ev.get("crashed") or ev.get("result") is None:
        return True
    try:
        return json.loads(ev["result"]).get("status") == "fault"
    except (ValueError, AttributeError):
        return False


class Server:
    def __init__(self, spec, out):
        self.spec, self.out = spec, out
        self.inbox = queue.Queue()
        self.session = None
        self.pending = {}  # object ref -> (request, attempt, compile ref)

    def send(self, message):
        self.out.write(json.dumps(message) + "\n")
        self.out.flush()

    def read_stdin(self):
        for line in sys.stdin:
            if line.strip():
                self.inbox.put(line)
        self.inbox.put(None)

    def start(self, setup):
        self.setup = setup
        self.session = connect(self.spec, setup.get("bundle") or None)
        ray = self.session.ray
        self.compile_task = ray.remote(num_cpus=1, max_retries=1)(tasks.compile_candidate)
        self.time_task = ray.remote(num_gpus=1, max_retries=1)(tasks.time_candidate)
        self.source = ray.put(setup["source"])
        size = self.session.resources()
        info = None
        # Without GPUs nothing is timed: egg-tune estimates instead.
        setup["evaluate"] = bool(setup.get("evaluate")) and size["gpus"] > 0
        if setup["evaluate"]:
            probe = ray.remote(num_gpus=1, max_retries=1)(tasks.device_info)
            info = ray.get(probe.remote(setup.get("eval_tool", "")))
        self.send(dict(ready=True, device_info=info, **size))

    def submit(self, request, attempt=1, compiled=None, avoid=None):
        s = self.setup
        if compiled is None:
            compiled = self.compile_task.remote(self.source, s["source_name"],
                                                request["decisions"], s["pipeline"],
                                                s.get("compile_timeout", 600))
        if not s.get("evaluate"):
            self.pending[compiled] = (request, attempt, compiled)
            return
        task = self.session.elsewhere(self.time_task, avoid)
        timed = task.remote(self.source, s["source_name"], compiled, s.get("eval_tool", ""),
                            request.get("eval_args", []), s.get("eval_timeout", 600))
        self.pending[timed] = (request, attempt, compiled)

    def finish(self, ref):
        ray = self.session.ray
        request, attempt, compiled = self.pending.pop(ref)
        nodes = request.setdefault("_nodes", [])
        try:
            comp = ray.get(compiled)
        except Exception as e:  # The task failed on its retry as well.
            comp = {"ok": False, "manifest": "", "node": "",
                    "diagnostics": f"the compile task failed twice on the cluster: {e}"[:2000]}
        ev = None
        if self.setup.get("evaluate") and comp.get("ok"):
            try:
                ev = ray.get(ref)
            except Exception as e:
                ev = {"rc": -1, "timed_out": False, "crashed": True, "result": None,
                      "log": f"the timing task failed twice on the cluster: {e}"[:2000],
                      "node": ""}
            nodes.append(ev.get("node", ""))
            if attempt == 1 and eval_faulted(ev):
                self.submit(request, attempt + 1, compiled, avoid=ev.get("node"))
                return
        self.send({"id": request["id"], "compile": comp, "eval": ev, "attempts": attempt,
                   "nodes": nodes})

    def serve(self):
        threading.Thread(target=self.read_stdin, daemon=True).start()
        first = self.inbox.get()
        if first is None:
            return 0
        try:
            self.start(json.loads(first))
        except (ClusterError, KeyError, ValueError) as e:
            self.send({"error": str(e)})
            return 1
        ray = self.session.ray
        try:
            while True:
                # Every message waiting; block for one only while nothing is
                # in flight. The end of stdin ends the server.
                try:
                    line = self.inbox.get(block=not self.pending)
                    while True:
                        if line is None:
                            return 0
                        message = json.loads(line)
                        if message.get("op") == "candidate":
                            self.submit(message)
                        line = self.inbox.get_nowait()
                except queue.Empty:
                    pass
                if self.pending:
                    done, _ = ray.wait(list(self.pending), num_returns=1, timeout=0.2)
                    for ref in done:
                        self.finish(ref)
        finally:
            for ref in list(self.pending):
                ray.cancel(ref, force=True)
            self.session.close()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m egg.cluster.tune_server ray[:ADDRESS]", file=sys.stderr)
        return 2
    # The protocol owns the real stdout; whatever Ray or a library prints
    # goes to stderr instead.
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    return Server(argv[0], out).serve()


if __name__ == "__main__":
    sys.exit(main())
