"""Running `mini-letta` as a long-lived process that must close what it opens.

`STRICT` makes every ResourceWarning an error in the process. Tracing where each object was made
(tracemalloc, one frame) doubles the processes' CPU, so it is on only when a failure is being
read: TRACE_RESOURCES=1 in the test run's environment (`strict_env` hands it on). Then
`mini-letta mcp` imports the MCP SDK before tracing starts (tracing a large import takes
minutes on a busy machine); untraced, each process imports only what its command does.
Between calls a test reads the process's open descriptors from /proc (`open_files`).
"""

from __future__ import annotations

import os
from pathlib import Path

from support.cli import cli_env

TRACED_MAIN = """
import os, runpy, sys, tracemalloc
sys.argv = ["mini-letta", *sys.argv[1:]]
if os.environ.get("TRACE_RESOURCES"):
    if "mcp" in sys.argv:
        import mcp.server.mcpserver
    tracemalloc.start(1)
runpy.run_module("mini_letta", run_name="__main__", alter_sys=True)
"""
STRICT = ["-W", "error::ResourceWarning", "-c", TRACED_MAIN]  # then `mini-letta`'s arguments
HINT = "(run again with TRACE_RESOURCES=1 to see where each object was made)"
HAS_PROC = Path("/proc/self/fd").is_dir()


def strict_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The CLI's test environment, with the run's TRACE_RESOURCES."""
    trace = os.environ.get("TRACE_RESOURCES")
    return cli_env(home, {**(extra or {}), **({"TRACE_RESOURCES": trace} if trace else {})})


def open_files(pid: int) -> list[str]:
    """What the process has open: a path, or `socket:[…]`, `pipe:[…]`, `anon_inode:…`."""
    found = []
    folder = Path(f"/proc/{pid}/fd")
    for fd in os.listdir(folder):
        try:
            found.append(os.readlink(folder / fd))
        except OSError:  # closed meanwhile
            continue
    return sorted(found)


def index_files(files: list[str]) -> list[str]:
    """The recall index among open files: it is never left open between calls."""
    return [name for name in files if "search-index.sqlite" in name]


def problems(stderr: str) -> list[str]:
    """Lines of a warning the process printed (unraisable ones land on stderr)."""
    needles = ("ResourceWarning", "Exception ignored", "unclosed", "Traceback")
    found = [line for line in stderr.splitlines() if any(n in line for n in needles)]
    return found + [HINT] if found else []
