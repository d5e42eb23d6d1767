"""Grep and Glob over a project of N files, and one memory-tool edit (hardened git).

Usage: python bench/file_search.py [--files N] [--runs N]
Prints medians of: listing the project (pure-Python walk with .gitignore rules, no git), Glob
`**/*.py`, Grep over every file (each listed file resolved and confined), and a memory-tool
insert (several git processes, each with the repository's drivers disarmed).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from _common import median_ms  # noqa: E402

from mini_letta.clock import SystemClock  # noqa: E402
from mini_letta.memory.repo import init_memory_repo  # noqa: E402
from mini_letta.tools.base import ToolContext  # noqa: E402
from mini_letta.tools.filelist import list_files  # noqa: E402
from mini_letta.tools.memory_tool import MemoryTool  # noqa: E402
from mini_letta.tools.search import GlobTool, GrepTool  # noqa: E402


def build_project(root: Path, files: int) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("build/\n*.log\nnode_modules/\n")
    for index in range(files):
        rel = f"src/pkg{index % 25}/mod{index % 7}/file{index}.py"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def f{index}():\n    return {index}  # TODO\n")
    for index in range(files // 5):
        ignored = root / "node_modules" / f"dep{index % 50}" / f"index{index}.js"
        ignored.parent.mkdir(parents=True, exist_ok=True)
        ignored.write_text("module.exports = 1\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "project"
        build_project(project, options.files)
        memory = init_memory_repo(Path(tmp) / "memory")
        ctx = ToolContext(cwd=project, clock=SystemClock(), memory_dir=memory.path)
        count = len(list_files(project).paths)
        print(f"project: {options.files} files (+{options.files // 5} ignored), {count} listed")
        listing = median_ms(lambda: list_files(project), options.runs)
        print(f"list files          {listing:8.1f} ms")
        glob = median_ms(lambda: GlobTool().run({"pattern": "**/*.py"}, ctx), options.runs)
        print(f"Glob **/*.py        {glob:8.1f} ms")
        grep = median_ms(lambda: GrepTool().run({"pattern": "TODO"}, ctx), options.runs)
        print(f"Grep TODO           {grep:8.1f} ms")
        edit = {"command": "insert", "path": "system/human.md", "content": "- x", "reason": "x"}
        insert = median_ms(lambda: MemoryTool().run(edit, ctx), options.runs)
        print(f"memory insert       {insert:8.1f} ms")


if __name__ == "__main__":
    main()
