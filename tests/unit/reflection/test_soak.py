"""The soak in small (bench/soak.py runs 1,000 turns): varied mock turns in both languages with
changes of mind, "remember" and pastes, on a small window; reflection keeps up and memory
stays within its budgets with no exact duplicate line.

50 turns make three reflection runs (two mid-soak, one at the end): enough for a change of mind
to meet the line an earlier run wrote. The mock of a718156^, whose changes of mind the gate
rejected, fails it at 50 turns as at 80 (a rejected run, the last statement not in memory)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[3] / "bench" / "soak.py"


def _soak_module():
    spec = importlib.util.spec_from_file_location("soak_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_small_soak_keeps_reflection_merging_and_memory_tidy(tmp_path):
    soak = _soak_module()
    texts = soak.soak_texts(50, seed=3)
    assert any("remember" in t or "记住" in t for t in texts) and any("```" in t for t in texts)
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in t) for t in texts)
    report = soak.run_soak(tmp_path, turns=50, seed=3)
    assert report.final_status == "merged" and report.final_remembered
    assert all(behind <= 1 for behind in report.slices_behind.values()), report.slices_behind
    assert report.over_budget == [] and report.duplicate_lines == []
    assert "rejected" not in report.statuses and report.statuses.get("merged", 0) >= 2
