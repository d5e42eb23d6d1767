"""Secret scanning time on large inputs: random text, one repeated character, hex, base64.

Usage: python bench/secret_scan.py [--mb 5] [--runs 3] [--src PATH]
Prints, for each input, the median wall-clock and CPU milliseconds of `find_secret` and the CPU
milliseconds of `redact_secrets` (CPU time is what to compare on a shared, loaded machine).
`--src` points at another checkout's `src` (to measure an older scanner; give it a small `--mb`
there, since a quadratic scanner takes hours on 5 MB).
"""

from __future__ import annotations

import argparse
import base64
import random
import statistics
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path

_WORDS = ["the", "memory", "token", "password", "key", "sk-", "AKIA", "eyJ", "://", "密码", "是"]


def build_inputs(size: int, seed: int = 7) -> dict[str, str]:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + string.punctuation + " \n"
    pieces: list[str] = []
    length = 0
    while length < size:  # a third of the words start a credential's shape and fail
        piece = rng.choice(_WORDS) if rng.random() < 0.3 else "".join(rng.choices(alphabet, k=8))
        pieces.append(piece)
        length += len(piece)
    raw = rng.randbytes(size)
    return {
        "random text": "".join(rng.choices(alphabet, k=size)),
        "words, dense with anchors": " ".join(pieces)[:size],
        "one repeated character": "x" * size,
        "hex": raw.hex()[:size],
        "base64": base64.b64encode(raw).decode("ascii")[:size],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=5.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--src", type=Path, default=Path(__file__).resolve().parents[1] / "src")
    args = parser.parse_args()
    sys.path.insert(0, str(args.src))
    from mini_letta.memory.secrets import find_secret, redact_secrets

    size = int(args.mb * 1_000_000)
    print(f"secret scan of {size:,} characters (median of {args.runs}) from {args.src}")
    for name, text in build_inputs(size).items():
        wall, cpu = _median_ms(lambda text=text: find_secret(text), args.runs)
        _, redact_cpu = _median_ms(lambda text=text: redact_secrets(text), args.runs)
        print(
            f"  {name:<26} find_secret {wall:9.1f} ms wall {cpu:9.1f} ms cpu"
            f"   redact_secrets {redact_cpu:9.1f} ms cpu"
        )


def _median_ms(action: Callable[[], object], runs: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return statistics.median(walls), statistics.median(cpus)


if __name__ == "__main__":
    main()
