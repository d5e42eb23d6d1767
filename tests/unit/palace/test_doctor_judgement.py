"""How often the doctor's judgement of a pair of lines matches its label, on the cases the rules
were written against and on held-out ones; each figure is printed and held to a floor."""

from __future__ import annotations

import subprocess

import pytest

from mini_letta.palace.doctor import diagnose
from mini_letta.reflection.gate.check import GateLimits
from support.doctor_cases import CASES
from support.doctor_cases_heldout import HELD_OUT

JUDGED = {"duplicate", "near_duplicate", "contradiction"}


def _judge(root, first: str, second: str) -> str | None:
    (root / "notes").mkdir(parents=True, exist_ok=True)
    (root / "notes" / "a.md").write_text(f"---\ndescription: A\n---\n{first}\n")
    (root / "notes" / "b.md").write_text(f"---\ndescription: B\n---\n{second}\n")
    found = [f for f in diagnose(root, GateLimits.for_window(128_000), None) if f.kind in JUDGED]
    on_second = [f.kind for f in found if f.path == "notes/b.md"]
    return on_second[0] if len(on_second) == 1 and len(found) == 1 else (None if not found else "?")


def _score(tmp_path, cases) -> tuple[int, list[tuple[str, str, str | None, str | None]]]:
    subprocess.run(["git", "-C", str(tmp_path), "init", "-q"], check=True)
    wrong = []
    for first, second, expected in cases:
        got = _judge(tmp_path, first, second)
        if got != expected:
            wrong.append((first, second, expected, got))
    return len(cases) - len(wrong), wrong


@pytest.mark.parametrize(
    ("cases", "floor"), [(CASES, 0.9), (HELD_OUT, 0.75)], ids=["seen", "held-out"]
)
def test_the_doctor_judges_pairs_of_lines(tmp_path, cases, floor, capsys):
    right, wrong = _score(tmp_path, cases)
    with capsys.disabled():
        print(f"\ndoctor judgement: {right}/{len(cases)} right; wrong: {wrong}")
    assert right / len(cases) >= floor, wrong
