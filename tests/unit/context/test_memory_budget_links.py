"""Measuring memory against its budgets reads memory files the way every memory reader does:
a link is never followed (a remote could plant `system/zero.md -> /dev/zero`), so a hand edit's
warning and the reflection task's list of files to consolidate count no link's target."""

from __future__ import annotations

import os

import pytest

from mini_letta.context.memory_budget import MemoryBudget, budget_warnings
from mini_letta.reflection.state.upkeep import files_over_budget


@pytest.fixture
def memory(tmp_path):
    system = tmp_path / "system"
    system.mkdir()
    (system / "human.md").write_text(
        "---\ndescription: who\n---\n" + "- a long line of notes\n" * 60
    )
    (tmp_path / "outside.md").write_text("---\ndescription: x\n---\n" + "- words here\n" * 500)
    os.symlink(tmp_path / "outside.md", system / "big.md")
    return tmp_path


def test_a_hand_edit_warning_never_reads_a_linked_system_file(memory):
    warnings = budget_warnings(memory, ["system/human.md"], MemoryBudget(10_000, 100))
    assert warnings == ["system/human.md is ~" + warnings[0].split("~")[1]]
    assert not any("big.md" in w for w in warnings)


def test_the_files_to_consolidate_never_include_a_link(memory):
    found = files_over_budget(memory, 100)
    assert [path for path, _, _ in found] == ["system/human.md"]
