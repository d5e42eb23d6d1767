"""The evals' throwaway homes: one agent made once per model, a copy of its home per case that
shares git's objects by hard link and leaves the template as it was."""

from __future__ import annotations

import os

from mini_letta.reflection.evals.eval_cases import builtin_suite
from mini_letta.reflection.evals.evaluation import run_suite
from mini_letta.reflection.evals.homes import copy_template, make_template
from support.clock import FakeClock
from support.reflection_kit import git

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def _git(folder, *args):
    return git(folder, *args).strip()


def test_a_copy_links_git_objects_and_a_change_in_it_leaves_the_template_alone(tmp_path):
    clock = FakeClock()
    template = make_template(tmp_path / "template", ENV, clock, "mock")
    agent = template.agent
    original = template.root / "home" / "agents" / agent.id / "memory"
    head = _git(original, "rev-parse", "HEAD")
    world = copy_template(template, tmp_path / "case", ENV, clock)
    memory = world.home.memory_dir(agent.id)
    objects = [p for p in (memory / ".git" / "objects").rglob("*") if p.is_file()]
    assert objects and all(p.stat().st_nlink == 2 for p in objects)  # linked, not copied
    assert (memory / ".git" / "index").stat().st_nlink == 1  # rewritten by git: a copy
    for name in (".git/index", ".git/HEAD", "system/human.md", "../agent.json"):
        mine, theirs = (memory / name).stat(), (original / name).stat()
        assert (memory / name).read_bytes() == (original / name).read_bytes(), name
        assert (mine.st_mode, mine.st_mtime_ns) == (theirs.st_mode, theirs.st_mtime_ns), name
    assert sorted(
        p.relative_to(world.home.root.parent) for p in world.home.root.parent.rglob("*")
    ) == sorted(
        p.relative_to(template.root)
        for p in template.root.rglob("*")
        if not (p.suffix == ".sample" and p.parent.name == "hooks")
    )  # every folder (empty ones too) and file but the samples
    assert list((original / ".git" / "hooks").glob("*.sample"))  # git init's samples ...
    assert not list((memory / ".git" / "hooks").glob("*.sample"))  # ... never run: left out
    assert _git(memory, "status", "--porcelain") == ""  # the copied index is trusted as is

    human = memory / "system" / "human.md"
    human.write_text(human.read_text() + "- Editor: vim\n")
    _git(memory, "commit", "-qam", "a change in the copy")
    _git(memory, "gc", "--quiet", "--prune=now")  # packs, and unlinks the loose objects
    assert "vim" not in (original / "system" / "human.md").read_text()
    assert _git(original, "rev-parse", "HEAD") == head
    _git(original, "fsck", "--strict", "--no-progress")  # every object still whole
    left = [p for p in (original / ".git" / "objects").rglob("*") if p.is_file()]
    assert len(left) == len(objects) and all(p.stat().st_nlink == 1 for p in left)


def test_a_model_that_cannot_make_an_agent_fails_each_of_its_cases_and_not_the_others():
    cases = builtin_suite()[:1]
    report = run_suite(cases, ["nope/model", "mock"], ENV, jobs=2)
    assert [(r.case, r.model) for r in report.results] == [
        (case.name, model) for case in cases for model in ("nope/model", "mock")
    ]
    failed = [r for r in report.results if r.model == "nope/model"]
    assert all(r.problems[0].startswith("the pipeline failed: unknown model") for r in failed)
    assert report.score("mock") == (1, 1)
