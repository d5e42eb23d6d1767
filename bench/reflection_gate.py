"""What the memory gate adds to a reflection run on a large memory: 1,000 files, a 400-message
transcript (half of it the user's words, which the grounding checks read), a run that edits
three files (one rewrite with evidence, two additions), all grounded so every check runs.

Usage: python bench/reflection_gate.py [--files N] [--messages N] [--runs N]
Prints the median of `check_gate` (one git diff, the checkout's files read, the checks) and of
the bare `git diff` inside it. Target: <= 50 ms.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

from _common import SENTENCE, median_ms  # noqa: E402
from memory_compile import build_memory  # noqa: E402

from mini_letta.reflection.gate.check import Citation, GateInput, GateLimits, check_gate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=400)
    parser.add_argument("--runs", type=int, default=15)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "memory"
        repo = build_memory(root, options.files, 200)
        base = repo.head_sha()
        repo.run("switch", "-q", "-c", "reflection/bench")
        human = root / "system/human.md"
        placeholder = "Nothing yet; I have not got to know this person."
        human.write_text(human.read_text().replace(placeholder, "- Name: Ada") + "- Likes tea\n")
        note = root / "system/area0/topic0/note0.md"
        note.write_text(note.read_text().replace("option 0", "option 3", 1))
        (root / "projects/bench.md").parent.mkdir(parents=True, exist_ok=True)
        (root / "projects/bench.md").write_text("---\ndescription: bench\n---\n- uses pnpm\n")
        repo.run("add", "-A")
        repo.run("commit", "-q", "-m", "reflection: bench")
        tip = repo.head_sha()  # left checked out, as the run's worktree is
        transcript = [f"{i} {SENTENCE} " * 3 for i in range(options.messages)]
        transcript[1] = "My name is Ada and I like tea; we use pnpm, and now I prefer option 3."
        messages = [
            {"id": f"msg-{i}", "role": ("user", "assistant")[i % 2], "content": text}
            for i, text in enumerate(transcript)
        ]
        messages[1]["role"] = "user"
        note = "system/area0/topic0/note0.md"
        facts = GateInput(
            transcript=transcript,
            slice_ids=frozenset(m["id"] for m in messages),
            citations=(Citation(note, ("msg-1",), ("- fact 0: the user prefers option 3.",), ()),),
            limits=GateLimits.for_window(200_000),
            messages=messages,
        )
        reasons = check_gate(repo, base, tip, root, facts)
        gate = median_ms(lambda: check_gate(repo, base, tip, root, facts), options.runs)
        diff = median_ms(lambda: repo.run("diff", "--no-renames", "-U0", base, tip), options.runs)
        print(f"files={options.files} messages={options.messages} reasons={reasons}")
        print(f"check_gate median:          {gate:7.1f} ms")
        print(f"  of which git diff alone:  {diff:7.1f} ms")


if __name__ == "__main__":
    main()
