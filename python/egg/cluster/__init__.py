"""egg's work on a Ray cluster: egg-tune's candidates (compiled as CPU tasks,
timed as tasks that hold one GPU each) and ``python -m egg.bench``'s problems
(one GPU task each). The driver keeps every record; the static tool bundle
travels to the workers in Ray's runtime environment, so a worker host needs
no LLVM. docs/cluster.md describes the set-up and what is retried."""
from .session import ClusterError, Session, connect, parse_spec

__all__ = ["ClusterError", "Session", "connect", "parse_spec"]
