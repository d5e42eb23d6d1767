"""What showing an answer as markdown costs the interactive session, once a turn ends.

Times, in a fresh process each, importing rich's markdown renderer (once a session; the session
imports it on a side thread when it opens, so the first answer rarely waits), then in-process
the re-render of answers of 10, 40 and 200 lines (prose, a list, a table and a highlighted code
block) at 80 and 60 columns, to a string.

    python bench/answer_render.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from _common import median_ms  # noqa: E402

from mini_letta.cli.answer_view import render_markdown  # noqa: E402

BLOCK = (
    "Some prose with **bold** and `code`.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
    "```python\ndef f(x):\n    return x * 2\n```\n"
)


def _answer(lines: int) -> str:
    block_lines = BLOCK.count("\n")
    return BLOCK * max(1, lines // block_lines)


def _import_ms(repeat: int) -> float:
    code = (
        "import time; t=time.perf_counter(); import rich.markdown, rich.console; "
        "print((time.perf_counter()-t)*1000)"
    )
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True).stdout)
        for _ in range(max(3, repeat // 4))
    ]  # fmt: skip
    return sorted(runs)[len(runs) // 2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    print(f"import rich markdown (first answer only): {_import_ms(args.repeat):.1f} ms")
    for lines in (10, 40, 200):
        text = _answer(lines)
        for width in (80, 60):
            ms = median_ms(
                lambda text=text, width=width: render_markdown(text, io.StringIO(), width=width),
                args.repeat,
            )
            print(f"re-render {lines:>3} lines at {width} columns: {ms:.2f} ms")


if __name__ == "__main__":
    main()
