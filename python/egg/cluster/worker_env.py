"""A task's side of the runtime environment: the tools it runs, unpacked
once per host from the bundle the driver shipped, and the fault injection
the cluster tests use."""
import fcntl
import os
import tarfile
import tempfile
from pathlib import Path

from .session import BUNDLE_NAME


def tools_cache():
    return Path(os.environ.get("EGG_CLUSTER_CACHE")
                or Path(tempfile.gettempdir()) / f"egg-cluster-{os.getuid()}")


def use_shipped_tools():
    """Points EGG_TOOLS at the shipped bundle's tools (unpacked once per
    host and bundle, under a lock, so concurrent tasks share one copy);
    without a bundle, EGG_TOOLS stays what the driver set. Returns the
    folder the tools are taken from."""
    sha = os.environ.get("EGG_CLUSTER_BUNDLE_SHA256")
    if not sha:
        return os.environ.get("EGG_TOOLS", "")
    target = tools_cache() / sha[:16]
    bin_dir = target / "egg-tools" / "bin"
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(str(target) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (target / "complete").is_file():
            archive = Path(BUNDLE_NAME).resolve()  # Tasks start in the working directory.
            if not archive.is_file():
                raise RuntimeError(f"the tool bundle {BUNDLE_NAME} is missing from the task's "
                                   f"working directory {os.getcwd()}")
            partial = Path(tempfile.mkdtemp(dir=target.parent))
            with tarfile.open(archive) as tar:
                # The "data" filter (no links out, no devices) where Python has it.
                safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
                tar.extractall(partial, **safe)
            if target.exists():
                import shutil
                shutil.rmtree(target)
            partial.rename(target)
            (target / "complete").write_text(sha + "\n")
    os.environ["EGG_TOOLS"] = str(bin_dir)
    return str(bin_dir)


def inject_fault(stage):
    """EGG_CLUSTER_INJECT_FAULT=STAGE:FOLDER makes the first task of STAGE
    (compile, time or problem) that finds no marker in FOLDER leave one
    there and kill its own worker process, as a host that dies would: the
    cluster tests check that the task is retried and nothing is lost."""
    spec = os.environ.get("EGG_CLUSTER_INJECT_FAULT", "")
    if not spec.startswith(stage + ":"):
        return
    folder = Path(spec.split(":", 1)[1])
    folder.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(folder / f"{stage}-killed", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return
    os.write(fd, f"{os.getpid()}\n".encode())
    os.close(fd)
    os._exit(1)
