"""The secret scanner on its corpus: the floors hold on the visible part and on the held-out
part (which the rules were not written against), the corpus is as large as it claims, and the
generated lines are what the committed generator writes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from mini_letta.memory.secret_eval import MAX_FLAGGED, MIN_REFUSED, PARTS, load_part, score_part

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("part", PARTS)
def test_secret_corpus_floors_hold_on_each_part(part):
    score = score_part(part, load_part(part))
    missed = sorted({line.shape for line in score.missed})
    flagged = [(kind, line.text[:80]) for line, kind in score.false_alarms]
    assert score.refused_share >= MIN_REFUSED, missed
    assert score.flagged_share <= MAX_FLAGGED, flagged


def test_secret_corpus_is_as_large_as_promised_with_a_third_held_out():
    parts = {part: load_part(part) for part in PARTS}
    credentials = {part: [line for line in lines if line.secret] for part, lines in parts.items()}
    clean = {part: [line for line in lines if not line.secret] for part, lines in parts.items()}
    assert sum(map(len, credentials.values())) >= 300
    assert len({line.shape for lines in credentials.values() for line in lines}) >= 40
    assert sum(map(len, clean.values())) >= 1000
    for kind in (credentials, clean):
        held_out = len(kind["held-out"]) / sum(map(len, kind.values()))
        assert 0.3 <= held_out <= 0.4
    texts = [line.text for lines in clean.values() for line in lines]
    assert sum(any("\u4e00" <= c <= "\u9fff" for c in text) for text in texts) >= 150  # Chinese
    for part in PARTS:  # hand-written lines in both parts
        assert sum(line.hand for line in parts[part]) >= 50


def test_secret_corpus_generated_lines_are_the_generator_s():
    spec = importlib.util.spec_from_file_location("secret_corpus", ROOT / "bench/secret_corpus.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    for part in PARTS:
        path = generator.CORPUS / f"{part}.jsonl"
        committed = path.read_text(encoding="utf-8")
        assert generator.render(generator.build(part, generator.read(path))) == committed
