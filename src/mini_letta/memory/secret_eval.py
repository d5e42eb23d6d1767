"""The secret scanner measured on its corpus: the share of credentials it refuses and of clean
lines it flags, per part (`visible`, which the rules were written against, and `held-out`).

The corpus is package data (`memory/secret_corpus/*.jsonl`, written by bench/secret_corpus.py):
one JSON object a line, `{"secret": bool, "shape": str, "text": str, "hand": bool}`.
"""

from __future__ import annotations

import json
import time
from importlib import resources

from mini_letta.memory.secrets import find_secret
from mini_letta.structs import Struct

PARTS = ("visible", "held-out")
MIN_REFUSED = 0.97  # the floors a test holds every part to
MAX_FLAGGED = 0.01


class CorpusLine(Struct, frozen=True):
    secret: bool
    shape: str
    text: str
    hand: bool


class PartScore(Struct, frozen=True):
    part: str
    credentials: int
    shapes: int
    refused: int
    clean: int
    flagged: int
    missed: tuple[CorpusLine, ...]  # credentials that passed
    false_alarms: tuple[tuple[CorpusLine, str], ...]  # clean lines flagged, with the kind
    seconds: float  # CPU time of the scans
    characters: int

    @property
    def refused_share(self) -> float:
        return self.refused / self.credentials if self.credentials else 1.0

    @property
    def flagged_share(self) -> float:
        return self.flagged / self.clean if self.clean else 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "part": self.part,
            "credentials": self.credentials,
            "shapes": self.shapes,
            "refused": self.refused,
            "refusedShare": round(self.refused_share, 4),
            "cleanLines": self.clean,
            "flagged": self.flagged,
            "flaggedShare": round(self.flagged_share, 4),
            "missedShapes": sorted({line.shape for line in self.missed}),
            "falseAlarmKinds": sorted({kind for _, kind in self.false_alarms}),
            "charactersPerSecond": round(self.characters / self.seconds) if self.seconds else None,
        }


def load_part(part: str) -> list[CorpusLine]:
    """The lines of one corpus part, in file order."""
    folder = resources.files("mini_letta.memory") / "secret_corpus"
    (path,) = [entry for entry in folder.iterdir() if entry.name.partition(".")[0] == part]
    lines = path.read_text(encoding="utf-8").splitlines()
    return [CorpusLine(**json.loads(line)) for line in lines if line]


def score_part(part: str, lines: list[CorpusLine]) -> PartScore:
    """Scan every line once: a credential counts as refused when the scanner finds anything."""
    missed: list[CorpusLine] = []
    false_alarms: list[tuple[CorpusLine, str]] = []
    started = time.process_time()
    for line in lines:
        kind = find_secret(line.text)
        if line.secret and kind is None:
            missed.append(line)
        elif not line.secret and kind is not None:
            false_alarms.append((line, kind))
    seconds = time.process_time() - started
    credentials = [line for line in lines if line.secret]
    return PartScore(
        part=part,
        credentials=len(credentials),
        shapes=len({line.shape for line in credentials}),
        refused=len(credentials) - len(missed),
        clean=len(lines) - len(credentials),
        flagged=len(false_alarms),
        missed=tuple(missed),
        false_alarms=tuple(false_alarms),
        seconds=seconds,
        characters=sum(len(line.text) for line in lines),
    )


def score_corpus() -> list[PartScore]:
    return [score_part(part, load_part(part)) for part in PARTS]


def render_scores(scores: list[PartScore]) -> str:
    """One line per part, then the floors."""
    rows = [
        f"{s.part:<9} {s.refused}/{s.credentials} credentials refused "
        f"({s.refused_share:.1%}, {s.shapes} shapes); "
        f"{s.flagged}/{s.clean} clean lines flagged ({s.flagged_share:.1%})"
        for s in scores
    ]
    rows.append(f"floors: at least {MIN_REFUSED:.0%} refused, at most {MAX_FLAGGED:.0%} flagged")
    return "\n".join(rows)
