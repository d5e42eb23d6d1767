"""What the MCP client costs: nothing for a turn without MCP servers, and what starting one costs.

Usage: python bench/mcp_client_cost.py [--runs N] [--src OTHER_CHECKOUT/src]
Prints, interleaved with another checkout's package when `--src` is given (main's, from before
the MCP client), the median wall and CPU time of a mock `chat -p` turn in a project with no MCP
server; then, in this process, for the SDK-built fixture server and for the tests' scripted
one (standard library only), the time to start it over stdio (the first tool list of a session;
the client's SDK import is in the first), the median time of a tool call, and the server
process's CPU time (what each test that starts one pays).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
FIXTURES = {
    "SDK-built": ROOT / "tests" / "support" / "mcp_fixture" / "sdk_server.py",
    "scripted": ROOT / "tests" / "support" / "mcp_fixture" / "stdio_server.py",
}
sys.path.insert(0, str(SRC))

from _common import interleaved_median_ms, load_line, warm_bytecode  # noqa: E402


def _turns(runs: int, other: Path | None) -> None:
    sources = [SRC, *([other] if other else [])]
    with tempfile.TemporaryDirectory() as tmp:
        commands, env = [], {**os.environ}
        for n, src in enumerate(sources):
            home, project = Path(tmp) / f"home{n}", Path(tmp) / f"project{n}"
            project.mkdir()
            launcher = f"import sys; sys.path.insert(0, {str(src)!r}); "
            launcher += f"import os; os.environ['MINI_LETTA_HOME'] = {str(home)!r}; "
            launcher += f"os.chdir({str(project)!r}); "
            launcher += "from mini_letta.cli.main import run; sys.argv[0] = 'mini-letta'; run()"
            command = [sys.executable, "-c", launcher, "chat", "-p", "hello"]
            subprocess.run(command, check=True, capture_output=True, env=env)  # the agent
            commands.append(command)
        results = interleaved_median_ms(commands, Path(tmp), env, runs)
    print(load_line(runs))
    for src, (wall, cpu) in zip(sources, results, strict=True):
        print(f"mock turn, no MCP server   {src}: median {wall:7.1f} ms  (CPU {cpu:6.1f} ms)")


def _server(runs: int, kind: str, fixture: Path) -> None:
    from mini_letta.mcp_client.config import ServerSpec
    from mini_letta.mcp_client.servers import McpServers

    spec = ServerSpec("fx", "stdio", "user", fixture, command=sys.executable, args=(str(fixture),))
    servers = McpServers((spec,), cwd=ROOT, environ=dict(os.environ), warn=print)
    children = _children_cpu()
    started = time.perf_counter()
    tools = servers.tools()
    start_ms = (time.perf_counter() - started) * 1000
    samples = []
    for _ in range(runs):
        began = time.perf_counter()
        servers.call("fx", "echo", {"text": "hi"})
        samples.append((time.perf_counter() - began) * 1000)
    began = time.perf_counter()
    servers.close()
    close_ms = (time.perf_counter() - began) * 1000
    cpu_ms = (_children_cpu() - children) * 1000
    print(f"{kind} stdio server started, {len(tools)} tools listed: {start_ms:7.1f} ms")
    print(f"  tool call (echo)                median {statistics.median(samples):7.1f} ms")
    print(f"  close (server process stopped)         {close_ms:7.1f} ms")
    print(f"  the server process's CPU               {cpu_ms:7.1f} ms")


def _children_cpu() -> float:
    """CPU seconds of this process's ended children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--src", type=Path, default=None, help="another checkout's src")
    args = parser.parse_args()
    warm_bytecode()
    _turns(args.runs, args.src)
    for kind, fixture in FIXTURES.items():
        _server(args.runs, kind, fixture)


if __name__ == "__main__":
    main()
