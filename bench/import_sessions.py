"""`import --all` over a Claude Code projects folder: the first run, a second run with nothing
new, and a third after every session grew by one turn; and the peak memory of reading one
large session (transcripts are streamed, so it follows the messages kept, not the file size).

Usage: python bench/import_sessions.py [--sessions N] [--turns N] [--big-mb N]
Prints wall milliseconds of each run (in-process, through the CLI's `main`), messages per
second, and the big file's size and the peak memory its load took.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from mini_letta.cli.main import main as cli_main  # noqa: E402
from mini_letta.cli.terminal import Terminal  # noqa: E402
from mini_letta.conversations.transcripts import load_transcript  # noqa: E402

TEXT = "登录页面报错了，帮我看看 login.ts 第 12 行的 token 判空"


def turn(session: str, index: int) -> list[dict[str, object]]:
    """One turn in Claude Code's shapes: the person, a tool call, its result, the answer."""
    stamp = f"2025-08-01T09:{index // 60 % 60:02d}:{index % 60:02d}.000Z"
    base = {"sessionId": session, "cwd": "/w", "version": "2.0.31", "timestamp": stamp}
    return [
        {**base, "type": "user", "uuid": f"{session}-u{index}",
         "message": {"role": "user", "content": f"{index} {TEXT}"}},
        {**base, "type": "assistant", "uuid": f"{session}-a{index}",
         "message": {"id": f"m{index}", "role": "assistant", "content": [
             {"type": "text", "text": "我先看一下。"},
             {"type": "tool_use", "id": f"t{index}", "name": "Read",
              "input": {"file_path": "/w/login.ts"}}]}},
        {**base, "type": "user", "uuid": f"{session}-r{index}",
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": f"t{index}", "content": TEXT * 4}]}},
        {**base, "type": "assistant", "uuid": f"{session}-b{index}",
         "message": {"id": f"n{index}", "role": "assistant",
                     "content": [{"type": "text", "text": f"问题在第 {index} 行。"}]}},
    ]  # fmt: skip


def write_session(path: Path, session: str, turns: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for index in range(turns):
            for line in turn(session, index):
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")


def run(home: Path, cwd: Path, folder: Path) -> float:
    env = {"MINI_LETTA_HOME": str(home), "HOME": str(home.parent), "PATH": "/usr/bin:/bin"}
    terminal = Terminal(io.StringIO(), io.StringIO(), io.StringIO(), env, cwd)
    started = time.perf_counter()
    code = cli_main(["import", "--all", str(folder)], terminal)
    elapsed = (time.perf_counter() - started) * 1000
    if code != 0:
        raise SystemExit(f"import failed: {terminal.stderr.getvalue()}")  # type: ignore[attr-defined]
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--big-mb", type=int, default=40)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "projects"
        for number in range(args.sessions):
            session = f"s{number:04d}"
            write_session(folder / f"-w-p{number % 5}" / f"{session}.jsonl", session, args.turns)
        (root / "project").mkdir()
        messages = args.sessions * args.turns * 4
        first = run(root / "home", root / "project", folder)
        second = run(root / "home", root / "project", folder)
        for number in range(args.sessions):
            session = f"s{number:04d}"
            path = folder / f"-w-p{number % 5}" / f"{session}.jsonl"
            write_session(path, session, args.turns + 1)
        grown = run(root / "home", root / "project", folder)
        print(
            f"{args.sessions} sessions x {args.turns} turns ({messages:,} messages): first "
            f"{first:.0f} ms ({messages / first * 1000:,.0f} msg/s), nothing new {second:.0f} ms, "
            f"each grown by a turn {grown:.0f} ms"
        )
        big = root / "big.jsonl"
        write_session(big, "big", 200)
        per_turn = big.stat().st_size / 200
        turns = int(args.big_mb * 1e6 / per_turn)
        write_session(big, "big", turns)
        started = time.perf_counter()
        transcript = load_transcript(big)
        elapsed = time.perf_counter() - started
        tracemalloc.start()  # a second load, traced (tracing slows it: not timed)
        load_transcript(big)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"one {big.stat().st_size / 1e6:.0f} MB session ({len(transcript.messages):,} "
            f"messages): loaded in {elapsed:.1f} s, peak {peak / 1e6:.0f} MB traced"
        )


if __name__ == "__main__":
    main()
