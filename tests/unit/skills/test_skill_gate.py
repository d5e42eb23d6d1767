"""The gate's checks for learned skills: the standard, the size, and commands with evidence.

The command check is scored on two case sets: the development cases must all pass; the
held-out set (skill_gate_cases_heldout.py) is reported, and a drop below what it scored when
the rules were written fails."""

from __future__ import annotations

import pytest

from mini_letta.skills.validate import check_skill_edits, skill_commands
from support.skill_gate_cases import CASES
from support.skill_gate_cases_heldout import CASES as HELD_OUT

PATH = "skills/demo/SKILL.md"
HEAD = "---\nname: demo\ndescription: A demo skill.\n---\n"


def _reasons(body: str, said: str, cite: bool = True) -> list[str]:
    text = HEAD + body
    cited = [(PATH, ("msg-1",))] if cite else []
    return check_skill_edits([(PATH, "added", text.split("\n"))], {PATH: text}, cited,
                             {"msg-1": said})  # fmt: skip


def _passes(case: tuple[str, str, str, bool]) -> bool:
    _, body, said, allowed = case
    return (not _reasons(body, said)) == allowed


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_development_cases(case):
    assert _passes(case), _reasons(case[1], case[2])


HELD_OUT_SCORE = 6  # of 6, when the rules were written


def test_held_out_cases_keep_their_score():
    score = sum(_passes(case) for case in HELD_OUT)
    print(f"held-out: {score}/{len(HELD_OUT)}")
    assert score >= HELD_OUT_SCORE


def test_standard_and_size_problems_are_reasons():
    bad = "---\nname: Demo\ndescription: d\n---\nx\n"
    reasons = check_skill_edits([(PATH, "added", bad.split("\n"))], {PATH: bad}, [], {})
    assert any("[name-lowercase]" in r for r in reasons)
    huge = HEAD + "word " * 30_000
    reasons = check_skill_edits([(PATH, "added", huge.split("\n"))], {PATH: huge}, [], {})
    assert any("over the 5000 a skill holds" in r for r in reasons)


def test_only_added_lines_need_evidence_and_other_files_are_ignored():
    text = HEAD + "```bash\nold-tool --run\nnew-tool --run\n```\n"
    reasons = check_skill_edits([(PATH, "modified", ["new-tool --run"])], {PATH: text},
                                [(PATH, ("m",))], {"m": "new-tool --run"})  # fmt: skip
    assert reasons == []
    other = check_skill_edits([("system/notes.md", "added", ["`rm -rf /`"])], {}, [], {})
    assert other == []


def test_commands_are_found_in_fences_and_inline_spans():
    text = "Run `make x` then:\n```\n$ make y\n# note\n```\n`file.txt`\n"
    assert skill_commands(text) == ["make x", "make y"]
