"""First read of a long log by a new process: what checking the whole offset index costs.

Usage: python bench/jsonl_open.py [--lines N ...] [--runs N]
Prints medians of: a fresh `JsonlLog.tail(20)` (index loaded and checked, 20 lines read), the same
with the index missing (a full scan of the log, the worst case the check falls back to), and the
size of the log and of its index.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _common import median_ms  # noqa: E402

from mini_letta.storage.jsonl import JsonlLog  # noqa: E402

LINE = {"role": "user", "content": "a message of about the usual length " * 4}


def measure(path: Path, lines: int, runs: int) -> str:
    log = JsonlLog(path)
    for start in range(0, lines, 50_000):
        log.append([{**LINE, "i": i} for i in range(start, min(lines, start + 50_000))])
    checked = median_ms(lambda: JsonlLog(path).tail(20), runs)
    index = log.index_path.read_bytes()

    def rescan() -> None:
        log.index_path.unlink()
        JsonlLog(path).tail(20)
        log.index_path.write_bytes(index)

    scanned = median_ms(rescan, runs)
    return (
        f"{lines:>9,} lines ({path.stat().st_size / 1e6:.0f} MB log, {len(index) / 1e6:.1f} MB"
        f" index): open+tail(20) {checked:.1f} ms, without index {scanned:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for lines in args.lines:
        with tempfile.TemporaryDirectory() as tmp:
            print(measure(Path(tmp) / "messages.jsonl", lines, args.runs))


if __name__ == "__main__":
    main()
