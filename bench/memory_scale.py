"""A large memory stays usable: a mock turn, `memory tree` and the prompt's listing at 10 vs
5,000 memory files (1-5 KB each, outside system/, in a few folders).

Usage: python bench/memory_scale.py [--files N] [--runs N]
Two agents, one with 10 files and one with N, each committed once. Prints the median wall and
CPU time of `chat -p` in a conversation begun after the commit (the compiled prompt is cached
by commit), of `memory tree`, and the size of the memory section of the system prompt.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from _common import interleaved_median_ms, load_line, warm_bytecode  # noqa: E402

from mini_letta.home import Home  # noqa: E402
from mini_letta.llm.tokens import estimate_tokens  # noqa: E402
from mini_letta.memory.compile import render_memory_section  # noqa: E402

FOLDERS = ("projects", "people", "journal", "recipes", "notes/archive")


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "MINI_LETTA_HOME": str(home), "PYTHONPATH": str(SRC)}


def _agent(home: Path, cwd: Path, files: int) -> str:
    cwd.mkdir()
    made = subprocess.run(
        [sys.executable, "-m", "mini_letta", "chat", "-p", "hi", "--output-format", "json"],
        cwd=cwd, env=_env(home), check=True, capture_output=True, text=True,
    )  # fmt: skip
    agent_id = json.loads(made.stdout)["agentId"]
    memory = Home(home).memory_dir(agent_id)
    for n in range(files):
        folder = memory / FOLDERS[n % len(FOLDERS)]
        folder.mkdir(parents=True, exist_ok=True)
        body = f"Line {n} of a note about something worth keeping.\n" * (20 + n % 80)
        text = f"---\ndescription: Note {n} in {folder.name}\n---\n{body}"
        (folder / f"note-{n:05d}.md").write_text(text, encoding="utf-8")
    git = ["git", "-C", str(memory), "-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", "many files"], check=True, capture_output=True)
    # a conversation begun on this memory: its prompt is compiled once and cached by commit
    fresh = [sys.executable, "-m", "mini_letta", "chat", "--new", "-p", "hello"]
    subprocess.run(fresh, cwd=cwd, env=_env(home), check=True, capture_output=True)
    return agent_id


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=5)
    opts = parser.parse_args()
    warm_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        small_cwd, large_cwd = Path(tmp) / "small", Path(tmp) / "large"
        small = _agent(home, small_cwd, 10)
        large = _agent(home, large_cwd, opts.files)
        turn = [sys.executable, "-m", "mini_letta", "chat", "-p", "hello"]
        figures = []
        for cwd, agent in ((small_cwd, small), (large_cwd, large)):
            tree = [sys.executable, "-m", "mini_letta", "memory", "tree", "--agent", agent]
            (turn_ms, turn_cpu), (tree_ms, tree_cpu) = interleaved_median_ms(
                [turn, tree], cwd, _env(home), opts.runs
            )
            section = render_memory_section(Home(home).memory_dir(agent))
            figures.append((turn_ms, turn_cpu, tree_ms, tree_cpu, estimate_tokens(section)))
        print(load_line(opts.runs))
        for label, (turn_ms, turn_cpu, tree_ms, tree_cpu, tokens) in zip(
            ("10 files", f"{opts.files:,} files"), figures, strict=True
        ):
            print(
                f"{label:>12}: turn {turn_ms:.0f} ms (cpu {turn_cpu:.0f}), memory tree "
                f"{tree_ms:.0f} ms (cpu {tree_cpu:.0f}), memory section ~{tokens:,} tokens"
            )
        print(f"turn ratio large/small: {figures[1][0] / figures[0][0]:.2f}x wall, "
              f"{figures[1][1] / figures[0][1]:.2f}x cpu")  # fmt: skip


if __name__ == "__main__":
    main()
