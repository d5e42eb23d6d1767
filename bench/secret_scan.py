"""Secret scanning time on large inputs (random text, words dense with anchors, one repeated
character, hex, base64, a chat transcript) and the scanner's figures on its corpus.

Usage: python bench/secret_scan.py [--mb 5] [--runs 3] [--src PATH]
Prints, for each input, the median wall-clock and CPU milliseconds of `find_secret`, the CPU
milliseconds of `redact_secrets` and the throughput in MB/s of CPU time (CPU time is what to
compare on a shared, loaded machine); then the corpus: credentials refused and clean lines
flagged, visible and held-out part (as `mini-letta eval secrets`).
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


_CHAT = [
    "The user prefers tabs and short answers; the deploy runs on Fridays.",
    "用户喜欢用中文交流，密码不要记在这里。部署脚本在 scripts/deploy.sh。",
    'password = os.environ["DB_PASSWORD"]  # never a literal',
    "Set OPENAI_API_KEY in your shell; the token expires after 60 minutes.",
    "commit 3f2a9c1b8e7d6f5a4b3c2d1e0f9a8b7c6d5e4f3a fixed the login page",
    "request 123e4567-e89b-12d3-a456-426614174000 failed with 401, retrying",
    "- Prefers pnpm over npm; uses Python 3.11 and ruff.",
]


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
    chat = []
    while sum(map(len, chat)) < size:  # what a session holds: prose and code about credentials
        chat.append(rng.choice(_CHAT))
    return {
        "chat transcript": "\n".join(chat)[:size],
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
            f"  {name:<26} find_secret {wall:8.1f} ms wall {cpu:8.1f} ms cpu"
            f"  redact_secrets {redact_cpu:8.1f} ms cpu  {size / 1000 / max(cpu, 1e-3):6.1f} MB/s"
        )
    try:
        from mini_letta.memory.secret_eval import render_scores, score_corpus
    except ImportError:  # an older checkout (--src) has no corpus
        return
    scores = score_corpus()
    lines = sum(score.credentials + score.clean for score in scores)
    seconds = sum(score.seconds for score in scores)
    print(f"corpus: {lines:,} lines, {seconds * 1e6 / lines:.0f} us of CPU a line")
    print(render_scores(scores))


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
