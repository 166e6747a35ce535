"""Connecting to a Ray cluster with everything egg's tasks need on a worker:
the egg package, the tool bundle and the environment variables that steer
the tools."""
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..tools import find_tool

RAY_HINT = "pip install 'ray>=2.9' (the cluster's Ray version on every host)"

# The bundle's name inside the runtime environment's working directory.
BUNDLE_NAME = "egg-tools.tar.xz"

# Variables the driver's environment hands to every task: what a row is
# labelled with, how egg-eval flushes L2, and any listed in EGG_CLUSTER_ENV.
# API keys are never among them.
FORWARDED = ("EGG_COMMIT", "EGG_L2_FLUSH")


class ClusterError(RuntimeError):
    """The cluster cannot be used (Ray missing, unreachable, no GPUs)."""


def parse_spec(spec):
    """`ray` (RAY_ADDRESS, else a local cluster started here), `ray:auto`
    (the cluster this host already runs) or `ray:ADDRESS`: the address to
    give ray.init (None starts a local one)."""
    if spec == "ray":
        return os.environ.get("RAY_ADDRESS") or None
    if spec.startswith("ray:") and len(spec) > 4:
        return spec[4:]
    raise ClusterError(f"expected ray or ray:ADDRESS (e.g. ray:auto, ray:10.0.0.5:6379), "
                       f"not '{spec}'")


def import_ray():
    try:
        import ray
    except ImportError:
        raise ClusterError(f"--cluster=ray needs Ray, which is not installed: {RAY_HINT}")
    return ray


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def forwarded_env():
    names = list(FORWARDED) + [n for n in os.environ.get("EGG_CLUSTER_ENV", "").split(",") if n]
    return {n: os.environ[n] for n in names if n in os.environ and "KEY" not in n.upper()}


@dataclass
class Session:
    """A connection to the cluster; `stage` is the folder shipped as the
    runtime environment's working directory (the bundle), removed on close."""
    ray: object
    runtime_env: dict
    stage: str = None
    owns_cluster: bool = False
    notes: list = field(default_factory=list)

    def resources(self):
        total = self.ray.cluster_resources()
        nodes = [n for n in self.ray.nodes() if n.get("Alive")]
        return {"nodes": len(nodes), "cpus": int(total.get("CPU", 0)),
                "gpus": int(total.get("GPU", 0))}

    def gpu_nodes(self):
        """Ids of the live nodes that have GPUs."""
        return [n["NodeID"] for n in self.ray.nodes()
                if n.get("Alive") and n.get("Resources", {}).get("GPU", 0) > 0]

    def elsewhere(self, task, avoid):
        """`task` placed on another node with GPUs than `avoid` where there
        is one (a soft preference: Ray runs it anywhere if that node is
        busy or gone)."""
        others = [n for n in self.gpu_nodes() if n != avoid]
        if not avoid or not others:
            return task
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
        return task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
            node_id=others[0], soft=True))

    def close(self):
        """Disconnects (and stops the cluster this session started)."""
        if self.ray.is_initialized():
            self.ray.shutdown()
        if self.stage:
            shutil.rmtree(self.stage, ignore_errors=True)
            self.stage = None


def connect(spec, bundle=None, local_cpus=None, local_gpus=None):
    """Connects (or starts a local cluster when the spec has no address).

    `bundle`: the static tool archive (scripts/build-bundle.sh) shipped to
    every worker, which then runs the tools from it. Without one, workers
    run the tools this host finds (EGG_TOOLS, build/bin), which only works
    where they see this host's files (a local cluster, a shared file
    system)."""
    address = parse_spec(spec)
    ray = import_ray()
    egg_package = str(Path(__file__).resolve().parents[1])
    env = forwarded_env()
    runtime_env = {"py_modules": [egg_package]}
    stage = None
    if bundle:
        bundle = Path(bundle)
        if not bundle.is_file():
            raise ClusterError(f"tool bundle {bundle} not found (scripts/build-bundle.sh builds it)")
        stage = tempfile.mkdtemp(prefix="egg-cluster-")
        os.link(bundle, Path(stage) / BUNDLE_NAME) if _same_fs(bundle, stage) else \
            shutil.copy(bundle, Path(stage) / BUNDLE_NAME)
        runtime_env["working_dir"] = stage
        env["EGG_CLUSTER_BUNDLE_SHA256"] = file_sha256(bundle)
    else:
        try:
            env["EGG_TOOLS"] = str(Path(find_tool("egg-opt")).parent)
        except FileNotFoundError as e:
            raise ClusterError(f"no tool bundle given and {e}")
    runtime_env["env_vars"] = env
    kwargs = dict(runtime_env=runtime_env, log_to_driver=False)
    if address is None:
        kwargs.update(num_cpus=local_cpus, num_gpus=local_gpus, include_dashboard=False)
    try:
        ray.init(address=address, **kwargs)
    except Exception as e:  # Ray raises several kinds for an unreachable cluster.
        if stage:
            shutil.rmtree(stage, ignore_errors=True)
        where = address or "a local cluster"
        raise ClusterError(f"cannot connect to Ray at {where}: {type(e).__name__}: {e}") from e
    return Session(ray=ray, runtime_env=runtime_env, stage=stage, owns_cluster=address is None)


def _same_fs(a, b):
    return os.stat(a).st_dev == os.stat(b).st_dev
