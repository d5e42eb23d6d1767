"""`memory doctor`: each kind of finding planted once is found exactly once, with its severity,
file and line; a clean memory (and a new agent's) has no finding at all."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from mini_letta.palace.doctor import Provenance, count_findings, diagnose, fix_instruction
from mini_letta.palace.doctor_state import load_doctor_count
from mini_letta.palace.origins import run_doctor
from mini_letta.reflection.gate.check import GateLimits
from support.agents import fresh_agent
from support.memory import commit_all, write_file
from support.reflection_kit import SECRETS

LIMITS = GateLimits.for_window(8192)  # system/ 2048 tokens, a file 819
RUN = "20261008160700-abcdef12"


def _md(description: str, body: str) -> str:
    return f"---\ndescription: {description}\n---\n{body}"


CLEAN = {
    "system/human.md": _md(
        "The person",
        "## Work\n- Works on the billing service\n"
        "- Prefers short answers\n\n## Home\n- Lives in Lyon\n",
    ),
    "system/persona.md": _md("Me", "I am a careful assistant.\n"),
    "projects/alpha.md": _md(
        "Alpha",
        "## Alpha\n- language: Python\n- Deploys on Fridays\n"
        "```\n- language: Python\n- language: Python\n```\n",
    ),
    "projects/beta.md": _md("Beta", "## Beta\n- language: Go\n## Notes\n- Uses pnpm, not npm\n"),
    "skills/deploy/SKILL.md": _md("Deploying", "Run the steps in checklist.md.\n"),
    "skills/deploy/checklist.md": _md("Checklist", "1. Tag the release\n2. Watch the graphs\n"),
}


def _all_known(root, run_for=None, skip=()):
    """A provenance where every committed line has an origin, except `run_for` (line text ->
    the run that cited nothing) and the texts in `skip` (as if not committed)."""
    lines = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            if rel.startswith(".git") or not rel.endswith(".md") or os.path.islink(path):
                continue
            try:
                text = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            lines[rel] = {t.strip(): (run_for or {}).get(t.strip()) for t in text.split("\n")
                          if t.strip() not in skip}  # fmt: skip
    return Provenance(lines)


def _plant(root, files):
    for rel, text in files.items():
        write_file(root, rel, text)


@pytest.fixture
def memory(tmp_path):
    root = tmp_path / "memory"
    root.mkdir()
    subprocess.run(["git", "-C", str(root), "init", "-q", "-b", "main"], check=True)
    return root


def test_a_clean_memory_has_no_finding(memory):
    _plant(memory, CLEAN)
    assert diagnose(memory, LIMITS, _all_known(memory)) == []


def test_a_new_agents_memory_has_no_finding(world):
    agent = fresh_agent(world)
    assert run_doctor(world.home, agent.id, LIMITS, world.clock) == []
    count = load_doctor_count(world.home, agent.id)
    assert count is not None and count.total == 0 and count.clean


def test_each_planted_finding_is_found_once(memory):
    _plant(memory, CLEAN)
    big = "```\n" + "".join(f"row {n:04d} of the archive\n" for n in range(220)) + "```\n"
    _plant(memory, {
        "system/human.md": CLEAN["system/human.md"] + "- Editor: vim\n"
                           "- Prefers dark roast coffee every single morning\n"
                           "- Likes quiet mornings\n- Has a dog called Pixel\n",
        "system/archive.md": _md("An archive", big),
        "notes/work.md": _md("Work", "- editor: Emacs\n* works on the billing service.\n"
                             "- TODO\n- Prefers dark roast coffee every morning\n"),
        "notes/keys.md": _md("Keys", f"- the deploy token is {SECRETS[5]}\n"),
        "notes/broken.md": "no frontmatter here\n",
        "notes/data.csv": "a,b\n",
        "skills/deploy/helper.sh": "echo hi\n",
    })  # fmt: skip
    os.symlink("/etc/passwd", memory / "notes" / "link.md")
    os.mkfifo(memory / "notes" / "pipe")
    provenance = _all_known(
        memory, {"- Likes quiet mornings": RUN}, skip={"- Has a dog called Pixel"}
    )
    found = diagnose(memory, LIMITS, provenance)
    got = sorted((f.kind, f.path, f.line) for f in found)
    assert got == sorted([
        ("contradiction", "system/human.md", 10),
        ("duplicate", "system/human.md", 5),
        ("near_duplicate", "system/human.md", 11),
        ("placeholder", "notes/work.md", 6),
        ("no_provenance", "system/human.md", 12),
        ("no_provenance", "system/human.md", 13),
        ("over_budget", "system/archive.md", None),
        ("secret", "notes/keys.md", 4),
        ("frontmatter", "notes/broken.md", 1),
        ("unreferenced", "notes/data.csv", None),
        ("unreferenced", "skills/deploy/helper.sh", None),
        ("not_regular", "notes/link.md", None),
        ("not_regular", "notes/pipe", None),
    ])  # fmt: skip
    by_kind = {f.kind: f for f in found}
    assert by_kind["secret"].severity == "severe" and SECRETS[5] not in by_kind["secret"].message
    assert by_kind["contradiction"].related == "notes/work.md:4"
    assert by_kind["duplicate"].related == "notes/work.md:5"
    assert by_kind["placeholder"].severity == "info" and by_kind["duplicate"].severity == "warning"
    assert all(f.advice for f in found)
    assert [f.severity for f in found] == sorted(
        (f.severity for f in found), key=["severe", "warning", "info"].index
    )
    assert count_findings(found) == {"severe": 5, "warning": 5, "info": 3}


def test_system_over_its_budget_is_one_finding(memory):
    _plant(memory, CLEAN)
    found = diagnose(memory, GateLimits(system_tokens=20, file_tokens=10_000), _all_known(memory))
    assert [(f.kind, f.path) for f in found] == [("over_budget", "system/")]


def test_a_starter_line_left_beside_learned_ones_is_a_placeholder(memory):
    starter = "Nothing yet; I have not got to know this person."
    _plant(memory, {"system/human.md": _md("The person", f"{starter}\n")})
    assert diagnose(memory, LIMITS, _all_known(memory)) == []  # alone: a new agent's honest start
    _plant(memory, {"system/human.md": _md("The person", f"{starter}\n- Lives in Lyon\n")})
    found = diagnose(memory, LIMITS, _all_known(memory))
    assert [(f.kind, f.line) for f in found] == [("placeholder", 4)]


def test_same_key_under_different_headings_or_values_that_agree_is_no_contradiction(memory):
    _plant(memory, {"notes/a.md": _md("A", "## Desktop\n- editor: vim\n- Editor: vim (since 2019)\n"
                                     "## Laptop\n- editor: emacs\n")})  # fmt: skip
    assert diagnose(memory, LIMITS, _all_known(memory)) == []


def test_the_fix_instruction_lists_the_findings(memory):
    _plant(memory, {"notes/a.md": _md("A", "- TODO\n")})
    found = diagnose(memory, LIMITS, _all_known(memory))
    text = fix_instruction(found)
    assert "notes/a.md:4" in text and "placeholder" in text.lower()


def test_a_committed_memory_is_audited_against_its_history(world):
    agent = fresh_agent(world)
    root = world.home.memory_dir(agent.id)
    write_file(root, "notes/a.md", _md("A", "- one fact\n"))
    commit_all(root, "add a")
    write_file(root, "notes/a.md", _md("A", "- one fact\n- not committed\n"))
    found = run_doctor(world.home, agent.id, LIMITS, world.clock)
    assert [(f.kind, f.path, f.line, f.message) for f in found] == [
        ("no_provenance", "notes/a.md", 5, "is not committed yet")
    ]
    assert not load_doctor_count(world.home, agent.id).clean
