"""Per-turn overhead of `chat --input-format stream-json`: one process, many turns.

Usage: python bench/stream_input.py [--turns N]
Keeps one mini-letta process running and sends one user message at a time, timing from the
write of the line to the arrival of its `result` line: with the mock model (pure mini-letta
cost: append, context, render, fsync) and with `openai/…` against the local scripted server
(adds the SDK and a local HTTP round trip, with the client and connection reused).
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
sys.path.insert(0, str(ROOT / "tests"))

from support.scripted_server import ScriptedServer, openai_stream  # noqa: E402


def _session(model: str, turns: int, home: Path, cwd: Path, extra: dict[str, str]) -> list[float]:
    env = {**os.environ, "MINI_LETTA_HOME": str(home), "PYTHONPATH": str(SRC), **extra}
    args = [sys.executable, "-m", "mini_letta", "chat", "--input-format", "stream-json"]
    proc = subprocess.Popen(
        [*args, "--model", model, "--new"],
        cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    samples: list[float] = []
    for n in range(turns):
        started = time.perf_counter()
        proc.stdin.write(json.dumps({"type": "user", "content": f"第 {n} 条消息"}) + "\n")
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"mini-letta stopped early (exit {proc.wait()})")
            if json.loads(line)["type"] == "result":
                break
        samples.append((time.perf_counter() - started) * 1000)
    proc.stdin.close()
    proc.wait(timeout=30)
    return samples[1:]  # the first turn pays for lazy imports and first connections


def _report(name: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    print(
        f"{name:<34} median {statistics.median(samples):6.2f} ms  p95 {p95:6.2f} ms  "
        f"({len(samples)} turns)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    opts = parser.parse_args()
    server = ScriptedServer().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            home, cwd = Path(tmp) / "home", Path(tmp) / "project"
            cwd.mkdir()
            _report("stream-json turn, mock", _session("mock", opts.turns, home, cwd, {}))
            server.queue(*[openai_stream("好的。") for _ in range(opts.turns)])
            env = {"OPENAI_API_KEY": "sk-bench", "OPENAI_BASE_URL": server.url + "/v1"}
            openai = _session("openai/gpt-4o-mini", opts.turns, home, cwd, env)
            _report("stream-json turn, openai/ (local)", openai)
            server.check()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
