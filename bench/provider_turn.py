"""One headless turn on a real-model path, against a local scripted OpenAI-compatible server.

Usage: python bench/provider_turn.py [--runs N]
Starts the test suite's scripted server in this process, then runs `mini-letta chat -p` as a
subprocess on `openai/gpt-4o-mini` (and once on `anthropic/…`), printing the median wall time,
the peak RSS of the child, and the size of a fresh agent's first request (system prompt + tool
schemas + the user message) in bytes and in tokens by our estimator; it fails if that request
is not well under 6,000 tokens. It also checks that `--version` and a mock turn load no SDK.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
sys.path.insert(0, str(SRC))
sys.path.insert(0, str(ROOT / "tests"))

from mini_letta.llm.tokens import estimate_schema_tokens, estimate_tokens  # noqa: E402
from support.scripted_server import ScriptedServer, anthropic_stream, openai_stream  # noqa: E402

FIRST_REQUEST_BUDGET = 6_000
SDKS = ("openai", "anthropic", "httpx", "httpx2")
PROBE = f"""
import json, sys
from mini_letta.cli.main import main
code = main(sys.argv[1:])
print("\\nMODULES " + json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {SDKS!r})))
"""


def _env(home: Path, extra: dict[str, str]) -> dict[str, str]:
    return {**os.environ, "MINI_LETTA_HOME": str(home), "PYTHONPATH": str(SRC), **extra}


def _run(args: list[str], home: Path, cwd: Path, extra: dict[str, str]) -> tuple[float, int]:
    """Wall ms and the child's peak RSS in MB (measured by a wrapper, so it is this child's)."""
    wrapper = (
        "import resource, subprocess, sys, json\n"
        "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(json.dumps([rc, peak]))\n"
    )
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", wrapper, sys.executable, "-m", "mini_letta", *args],
        cwd=cwd, env=_env(home, extra), capture_output=True, text=True, check=True,
    )  # fmt: skip
    elapsed = (time.perf_counter() - started) * 1000
    code, peak_kb = json.loads(proc.stdout)
    if code:
        raise SystemExit(f"mini-letta {' '.join(args)} failed: {proc.stderr}")
    return elapsed, peak_kb // 1024


def _first_request_size(body: dict[str, object], raw: bytes) -> dict[str, int]:
    messages = body["messages"]
    assert isinstance(messages, list)
    system = messages[0]["content"] if messages and messages[0]["role"] == "system" else ""
    tools = body.get("tools", [])
    return {
        "bytes": len(raw),
        "system_tokens": estimate_tokens(system),
        "tool_tokens": estimate_schema_tokens(tools),
        "tools": len(tools) if isinstance(tools, list) else 0,
        "total_tokens": estimate_tokens(json.dumps(body, ensure_ascii=False)),
    }


def _probe(args: list[str], home: Path, cwd: Path) -> tuple[float, list[str]]:
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=cwd, env=_env(home, {}), capture_output=True, text=True, check=True,
    )  # fmt: skip
    elapsed = (time.perf_counter() - started) * 1000
    line = next(x for x in proc.stdout.splitlines() if x.startswith("MODULES "))
    return elapsed, json.loads(line.removeprefix("MODULES "))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    opts = parser.parse_args()
    server = ScriptedServer().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home, cwd = Path(tmp) / "home", Path(tmp) / "project"
            cwd.mkdir()
            env = {"OPENAI_API_KEY": "sk-bench", "OPENAI_BASE_URL": server.url + "/v1"}
            args = ["chat", "-p", "帮我看下这个报错", "--model", "openai/gpt-4o-mini", "--new"]
            samples: list[float] = []
            peaks: list[int] = []
            first: dict[str, int] = {}
            for run in range(opts.runs):
                server.queue(openai_stream("好的，我来看看。" * 5))
                elapsed, peak = _run(args, home, cwd, env)
                samples.append(elapsed)
                peaks.append(peak)
                if run == 0:
                    recorded = server.requests[0]
                    first = _first_request_size(recorded.body, recorded.raw)
            server.queue(anthropic_stream("好的。"))
            anthropic_env = {"ANTHROPIC_API_KEY": "sk-bench", "ANTHROPIC_BASE_URL": server.url}
            anthropic_ms, anthropic_peak = _run(
                ["chat", "-p", "hi", "--model", "anthropic/claude-sonnet-4-5", "--new"],
                home, cwd, anthropic_env,
            )  # fmt: skip
            version_ms, version_mods = _probe(["--version"], home, cwd)
            mock_ms, mock_mods = _probe(["chat", "-p", "你好", "--model", "mock"], home, cwd)
            server.check()
    finally:
        server.stop()
    print(f"openai/ turn (scripted server)  median {statistics.median(samples):7.1f} ms  "
          f"min {min(samples):.1f}  ({opts.runs} runs), peak RSS {max(peaks)} MB")  # fmt: skip
    print(f"anthropic/ turn (one run)       {anthropic_ms:7.1f} ms, peak RSS {anthropic_peak} MB")
    print(
        f"first request: {first['bytes']:,} bytes, ~{first['total_tokens']:,} tokens "
        f"(system ~{first['system_tokens']:,}, {first['tools']} tool schemas "
        f"~{first['tool_tokens']:,}); budget {FIRST_REQUEST_BUDGET:,}"
    )
    print(f"--version  {version_ms:6.1f} ms, SDK modules loaded: {version_mods or 'none'}")
    print(f"mock turn  {mock_ms:6.1f} ms, SDK modules loaded: {mock_mods or 'none'}")
    if first["total_tokens"] >= FIRST_REQUEST_BUDGET * 0.8 or version_mods or mock_mods:
        raise SystemExit("over budget: first request too large or an SDK loaded on the mock path")


if __name__ == "__main__":
    main()
