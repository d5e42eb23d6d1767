"""Cold and cached compile of a large memory: 1,000 files, 200 of them in system/.

Usage: python bench/memory_compile.py [--files N] [--system N] [--runs N]
Prints medians of: a cold compile (git ls-tree + cat-file, parse every file, render) with loose
and with packed objects, the parse/render part alone, the in-process cached compile (HEAD read
from .git), a new compiler that finds the compiled section in its disk cache, and a memory
update (one file changed) rendered from only what changed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from _common import median_ms  # noqa: E402

from mini_letta.llm.tokens import estimate_tokens  # noqa: E402
from mini_letta.memory.compile import (  # noqa: E402
    PromptCompiler,
    build_memory_section,
    render_memory_update,
)
from mini_letta.memory.repo import GitRepo, init_memory_repo  # noqa: E402

METADATA = {"agent id": "agent-bench", "conversation id": "conv-bench", "stored messages": "0"}


def _compile_now(base: str, root: Path, metadata: dict[str, str]) -> str:
    """A fresh compiler with no disk cache: every call parses the memory again (cold)."""
    return PromptCompiler(root).compile(base, metadata)


def build_memory(root: Path, files: int, system: int) -> GitRepo:
    repo = init_memory_repo(root)
    for index in range(files):
        if index < system:
            rel = f"system/area{index % 8}/topic{index % 5}/note{index}.md"
            body = f"- fact {index}: the user prefers option {index % 7}.\n" * 4
        else:
            rel = f"reference/shelf{index % 20}/book{index % 9}/page{index}.md"
            body = f"Reference page {index}. " * 40 + "\n"
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"---\ndescription: Note number {index}\n---\n{body}", encoding="utf-8")
    repo.run("add", "-A")
    repo.run("commit", "-q", "-m", "bench memory")
    return repo


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--system", type=int, default=200)
    parser.add_argument("--runs", type=int, default=15)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        repo = build_memory(root, options.files, options.system)
        cache = Path(tmp) / "prompt-cache.json"
        blobs = repo.read_blobs()
        prompt = _compile_now("BASE", root, METADATA)

        cold = median_ms(lambda: _compile_now("BASE", root, METADATA), options.runs)
        read = median_ms(repo.read_blobs, options.runs)
        render = median_ms(lambda: build_memory_section(blobs), options.runs)
        warm = PromptCompiler(root, cache)
        warm.compile("BASE", METADATA)
        cached = median_ms(lambda: warm.compile("BASE", METADATA), options.runs)
        from_disk = median_ms(
            lambda: PromptCompiler(root, cache).compile("BASE", METADATA), options.runs
        )
        repo.run("gc", "-q")
        packed = median_ms(lambda: _compile_now("BASE", root, METADATA), options.runs)
        old = repo.head_sha()
        (root / "system/area0/topic0/note0.md").write_text(
            "---\ndescription: Note number 0\n---\n- a changed fact\n", encoding="utf-8"
        )
        repo.run("commit", "-q", "-a", "-m", "one change")
        new = repo.head_sha()
        update = median_ms(
            lambda: render_memory_update(*repo.read_changed_blobs(old, new), new), options.runs
        )

    print(f"memory: {options.files} files ({options.system} in system/), "
          f"{sum(map(len, blobs.values())) // 1024} KiB; compiled prompt {len(prompt)} chars, "
          f"~{estimate_tokens(prompt)} tokens")  # fmt: skip
    print(f"cold compile             {cold:8.1f} ms  (median of {options.runs})")
    print(f"  git ls-tree + cat-file {read:8.1f} ms")
    print(f"  parse + render         {render:8.1f} ms")
    print(f"cold compile, packed     {packed:8.1f} ms  (after git gc)")
    print(f"cached (same process)    {cached:8.2f} ms  (HEAD read from .git)")
    print(f"cached (disk, new owner) {from_disk:8.2f} ms  (HEAD + prompt-cache.json)")
    print(f"memory update, one file  {update:8.1f} ms  (git diff --raw + cat-file, render)")


if __name__ == "__main__":
    main()
