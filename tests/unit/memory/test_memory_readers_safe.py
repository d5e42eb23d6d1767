"""Review leftovers: every reader of memory is bounded and never follows a link — the doctor
(a huge file is a finding, not read whole), sync's needs-review check and the stamp on a skill
reflection learned (a planted link is neither read nor written through)."""

from __future__ import annotations

import pytest

from mini_letta.palace.doctor import Provenance, diagnose
from mini_letta.reflection.gate.check import GateLimits
from mini_letta.skills.learned import stamp_learned_skill
from mini_letta.sync.conflicts import REVIEW_HEADING
from mini_letta.sync.state import still_needing_review
from support.memory import write_file

LIMITS = GateLimits.for_window(8192)
SKILL = "---\nname: deploy\ndescription: Deploys the app.\n---\n1. `make deploy`\n"


@pytest.fixture
def memory(memory_repo):
    return memory_repo.path


def test_the_doctor_reports_a_file_past_the_size_limit_without_reading_it(memory):
    write_file(memory, "system/human.md", "---\ndescription: me\n---\n- tabs\n")
    huge = memory / "notes" / "dump.md"
    huge.parent.mkdir()
    with huge.open("wb") as handle:  # sparse: 2 GB that would take minutes and memory to read
        handle.truncate(2 * 1024**3)
    found = diagnose(memory, LIMITS, Provenance())
    (finding,) = [f for f in found if f.path == "notes/dump.md"]
    assert finding.kind == "too_large" and finding.severity == "severe"
    assert "past the limit" in finding.message


def test_sync_review_check_does_not_read_through_a_planted_link(memory, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text(f"{REVIEW_HEADING}\nnot memory\n", encoding="utf-8")
    (memory / "notes").mkdir()
    (memory / "notes" / "x.md").symlink_to(outside)
    write_file(memory, "notes/real.md", f"---\ndescription: d\n---\n{REVIEW_HEADING}\n- a\n")
    assert still_needing_review(memory, ("notes/x.md", "notes/real.md")) == ("notes/real.md",)


def test_a_learned_skill_stamp_neither_reads_nor_writes_through_a_link(memory, tmp_path):
    outside = tmp_path / "elsewhere" / "SKILL.md"
    outside.parent.mkdir()
    outside.write_text(SKILL, encoding="utf-8")
    (memory / "skills" / "deploy").mkdir(parents=True)
    (memory / "skills" / "deploy" / "SKILL.md").symlink_to(outside)
    assert stamp_learned_skill(memory, "skills/deploy/SKILL.md", "run-1") is False
    assert outside.read_text(encoding="utf-8") == SKILL  # untouched
    write_file(memory, "skills/ship/SKILL.md", SKILL.replace("deploy", "ship", 1))
    assert stamp_learned_skill(memory, "skills/ship/SKILL.md", "run-1") is True
    stamped = (memory / "skills" / "ship" / "SKILL.md").read_text(encoding="utf-8")
    assert "run-1" in stamped and "name: ship" in stamped
