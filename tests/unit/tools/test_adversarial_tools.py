"""Every file tool against every way out, in every permission mode: the exact outcome of each.

The project holds a symlink to a secret outside it, one to /etc/passwd, a symlinked folder
pointing outside, a `.git` folder and mini-letta's `.mini-letta/`; the agent's memory and the
user's home folder sit beside it. Calls go through the tool runner (permissions included); a
few whole turns with the scripted model show the same outcomes end to end.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from mini_letta.home import Home
from mini_letta.loop.events import ToolResultEvent
from mini_letta.loop.setup import TurnOptions, build_turn_setup
from mini_letta.loop.turn import run_turn
from mini_letta.structs import Struct
from mini_letta.tools.base import ToolResult
from mini_letta.workspace import new_agent, resolve_conversation
from support.tools import call_tool, make_context

MODES = ("default", "acceptEdits", "bypassPermissions", "plan")
SECRET = "TOP-SECRET-7f3a"
GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n"
SETTINGS = '{"lastAgentId": "agent-mine"}\n'
PWNED = "pwned"

OUTSIDE = "outside the working directory"
IN_MEMORY = "is in the agent's memory; change memory with the memory tool"
IN_GIT = "is inside a git directory; the file tools never change one"
IN_STATE = "is mini-letta's own state"
ASKS = "needs approval and this run is headless"
PLAN = "is not allowed in plan mode"


class Scene(Struct, frozen=True):
    root: Path
    project: Path
    outside: Path
    memory: Path

    def fill(self, raw: str) -> str:
        return raw.format(outside=self.outside, memory=self.memory)


@pytest.fixture
def scene(tmp_path, monkeypatch) -> Scene:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{SECRET} outside\n")
    user_home = tmp_path / "userhome"
    user_home.mkdir()
    (user_home / "secret.txt").write_text(f"{SECRET} in ~\n")
    monkeypatch.setenv("HOME", str(user_home))  # what `~` means to the tools
    memory = tmp_path / "home" / "agents" / "agent-mine" / "memory"
    (memory / "system").mkdir(parents=True)
    (memory / "system" / "human.md").write_text("---\ndescription: h\n---\nlikes tabs\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.txt").write_text("hello project\n")
    os.symlink(outside / "secret.txt", project / "link.txt")
    os.symlink("/etc/passwd", project / "passwd")
    os.symlink(outside, project / "linkdir")
    git_dir = project / ".git"
    for folder in ("objects", "refs/heads", "hooks"):
        (git_dir / folder).mkdir(parents=True)
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
    (git_dir / "config").write_text(GIT_CONFIG)
    (project / ".mini-letta").mkdir()
    (project / ".mini-letta" / "settings.local.json").write_text(SETTINGS)
    return Scene(tmp_path, project, outside, memory)


def _ctx(scene: Scene, mode: str):
    return make_context(
        scene.project,
        None,
        memory_dir=scene.memory,
        home=Home(scene.root / "home"),
        permission_mode=mode,
    )


# (file path, folder path) by which each target is named; what Read/Grep/Glob then show.
TARGETS = {
    "dotdot": ("../outside/secret.txt", "../outside"),
    "absolute": ("{outside}/secret.txt", "{outside}"),
    "tilde": ("~/secret.txt", "~"),
    "symlink-file": ("link.txt", "link.txt"),
    "symlink-etc": ("passwd", "passwd"),
    "symlink-dir": ("linkdir/secret.txt", "linkdir"),
    "memory": ("{memory}/system/human.md", "{memory}"),
    "git": (".git/config", ".git"),
    "mini-letta": (".mini-letta/settings.local.json", ".mini-letta"),
}
ESCAPES = ("dotdot", "absolute", "tilde", "symlink-file", "symlink-etc", "symlink-dir")
READABLE = {
    "memory": ("likes tabs", "system/human.md"),
    "git": ("repositoryformatversion", ".git/config"),
    "mini-letta": ("lastAgentId", ".mini-letta/settings.local.json"),
}
EDIT_REFUSAL = {"memory": IN_MEMORY, "git": IN_GIT, "mini-letta": IN_STATE}


def _refusal_problem(result: ToolResult, needle: str) -> str | None:
    """What is wrong with `result` as a refusal naming `needle` and leaking nothing."""
    if SECRET in result.content or "root:" in result.content:
        return "leaked a secret"
    if not result.is_error:
        return "was not refused"
    return None if needle in result.content else f"was refused without {needle!r}"


def _assert_refused(result: ToolResult, needle: str) -> None:
    problem = _refusal_problem(result, needle)
    assert problem is None, f"{problem}: {result.content}"


def _assert_all(outcomes: Iterable[tuple[str, str | None, ToolResult]]) -> None:
    """Each case is checked (none stops the others); the failure names every wrong one."""
    wrong = [f"{case}: {problem}: {r.content[:300]!r}" for case, problem, r in outcomes if problem]
    assert not wrong, "\n".join(wrong)


def _shown(result: ToolResult, needle: str) -> str | None:
    if result.is_error:
        return "was refused"
    return None if needle in result.content else f"does not show {needle!r}"


def test_reading_every_target_in_every_mode(scene):
    def outcomes() -> Iterator[tuple[str, str | None, ToolResult]]:
        for tool, target, mode in itertools.product(("Read", "Grep"), TARGETS, MODES):
            raw = scene.fill(TARGETS[target][0])
            args = {"path": raw} if tool == "Read" else {"pattern": ".", "path": raw}
            result = call_tool(tool, args, _ctx(scene, mode))
            if target in ESCAPES:
                problem = _refusal_problem(result, OUTSIDE)
            else:
                problem = _shown(result, READABLE[target][0])
            yield f"{tool} {target} in {mode}", problem, result

    _assert_all(outcomes())


def test_globbing_every_target_folder_in_every_mode(scene):
    def outcomes() -> Iterator[tuple[str, str | None, ToolResult]]:
        for target, mode in itertools.product(TARGETS, MODES):
            raw = scene.fill(TARGETS[target][1])
            result = call_tool("Glob", {"pattern": "**", "path": raw}, _ctx(scene, mode))
            if target in ESCAPES:
                problem = _refusal_problem(result, OUTSIDE)
            else:
                problem = _shown(result, READABLE[target][1])
            yield f"Glob {target} in {mode}", problem, result

    _assert_all(outcomes())


def _edit_args(tool: str, raw: str, target: str) -> dict[str, str]:
    if tool == "Write":
        return {"path": raw, "content": PWNED}
    old = {"memory": "likes tabs", "git": "repositoryformatversion", "mini-letta": "agent-mine"}
    return {"path": raw, "old_string": old.get(target, SECRET), "new_string": PWNED}


def _untouched(scene: Scene) -> None:
    for path in (scene.root / "outside" / "secret.txt", scene.root / "userhome" / "secret.txt"):
        assert PWNED not in path.read_text()
    assert (scene.project / ".git" / "config").read_text() == GIT_CONFIG
    assert (scene.project / ".mini-letta" / "settings.local.json").read_text() == SETTINGS
    assert "likes tabs" in (scene.memory / "system" / "human.md").read_text()


def test_changing_every_target_in_every_mode(scene):
    """Each refusal leaves every target as it was (checked after each call)."""

    def outcomes() -> Iterator[tuple[str, str | None, ToolResult]]:
        for tool, target, mode in itertools.product(("Write", "Edit"), TARGETS, MODES):
            raw = scene.fill(TARGETS[target][0])
            result = call_tool(tool, _edit_args(tool, raw, target), _ctx(scene, mode))
            if mode == "default":
                needle = ASKS
            elif mode == "plan":
                needle = PLAN
            else:
                needle = OUTSIDE if target in ESCAPES else EDIT_REFUSAL[target]
            yield f"{tool} {target} in {mode}", _refusal_problem(result, needle), result
            _untouched(scene)

    _assert_all(outcomes())


GREPS = {
    "everything": {"pattern": "."},
    "named": {"pattern": "root|TOP", "path": "."},
    "glob": {"pattern": ".", "glob": "*"},
}


def test_grep_over_the_project_never_follows_a_link_out(scene):
    for (name, args), mode in itertools.product(GREPS.items(), MODES):
        result = call_tool("Grep", args, _ctx(scene, mode))
        case = f"Grep {name} in {mode}: {result.content}"
        assert SECRET not in result.content and "root:" not in result.content, case
        assert "link.txt" not in result.content and "passwd" not in result.content, case
        if args["pattern"] == ".":
            assert "a.txt:1: hello project" in result.content, case


def test_glob_over_the_project_lists_no_link_out(scene):
    for mode in MODES:
        shown = call_tool("Glob", {"pattern": "**"}, _ctx(scene, mode)).content.splitlines()
        assert "a.txt" in shown and ".mini-letta/settings.local.json" in shown, (mode, shown)
        assert not {"link.txt", "passwd", "linkdir", "linkdir/secret.txt"} & set(shown), mode
        assert not any(line.startswith(".git/") for line in shown), (mode, shown)


def test_a_link_inside_the_project_is_still_searched(scene):
    os.symlink(scene.project / "a.txt", scene.project / "alias.txt")
    ctx = _ctx(scene, "default")
    assert "alias.txt:1: hello project" in call_tool("Grep", {"pattern": "hello"}, ctx).content
    assert "alias.txt" in call_tool("Glob", {"pattern": "*.txt"}, ctx).content


# Names of a git folder or of mini-letta's state that no edit may reach (a case, a trailing
# dot, an 8.3 short name, a link, a bare repository, the home's own files).
STATE_NAMES = {
    "sub/.git/config": IN_GIT,
    ".GIT/config": IN_GIT,
    ".Git./config": IN_GIT,
    "GIT~1/config": IN_GIT,
    ".git": IN_GIT,
    "gitlink/config": IN_GIT,
    "bare.git/config": IN_GIT,
    "sub/.mini-letta/settings.local.json": IN_STATE,
    ".MINI-LETTA/settings.local.json": IN_STATE,
    "state/agents/x/agent.json": IN_STATE,
}


def test_edits_never_reach_git_or_mini_letta_state_by_any_name(scene):
    os.symlink(scene.project / ".git", scene.project / "gitlink")
    bare = scene.project / "bare.git"
    for folder in ("objects", "refs"):
        (bare / folder).mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    (bare / "config").write_text(GIT_CONFIG)
    state = scene.project / "state"
    (state / "agents" / "x").mkdir(parents=True)
    (state / "agents" / "x" / "agent.json").write_text("{}")
    ctx = make_context(scene.project, None, home=Home(state), permission_mode="bypassPermissions")

    def outcomes() -> Iterator[tuple[str, str | None, ToolResult]]:
        for (raw, needle), tool in itertools.product(STATE_NAMES.items(), ("Write", "Edit")):
            args = {"path": raw, "content": PWNED}
            if tool == "Edit":
                args = {"path": raw, "old_string": "x", "new_string": PWNED}
            result = call_tool(tool, args, ctx)
            yield f"{tool} {raw}", _refusal_problem(result, needle), result
            assert (bare / "config").read_text() == GIT_CONFIG
            assert (state / "agents" / "x" / "agent.json").read_text() == "{}"
            _untouched(scene)

    _assert_all(outcomes())


def test_a_fifo_is_neither_read_nor_searched(scene):
    os.mkfifo(scene.project / "pipe")
    ctx = _ctx(scene, "bypassPermissions")
    read = call_tool("Read", {"path": "pipe"}, ctx)
    assert read.is_error and "not a regular file" in read.content
    write = call_tool("Write", {"path": "pipe", "content": "x"}, ctx)
    assert write.is_error and "not a regular file" in write.content
    assert "a.txt:1:" in call_tool("Grep", {"pattern": "."}, ctx).content
    assert "pipe" not in call_tool("Glob", {"pattern": "*"}, ctx).content


@pytest.mark.parametrize(
    ("mode", "outcome"),
    [
        ("default", ASKS),
        ("acceptEdits", ASKS),
        ("plan", PLAN),
        ("bypassPermissions", SECRET),  # Bash is not confined: it runs with the user's rights
    ],
)
def test_bash_is_gated_by_the_mode_not_confined(scene, mode, outcome):
    ctx = _ctx(scene, mode)
    result = call_tool("Bash", {"command": "cd .. && cat outside/secret.txt"}, ctx)
    assert outcome in result.content
    assert result.is_error == (mode != "bypassPermissions")


def _turn(world, tmp_path, calls, mode, agent=None):
    """The tool results of one scripted turn (on `agent`, else on a new agent)."""
    script = tmp_path / "script.json"
    steps = [{"toolCalls": [call]} for call in calls]
    script.write_text(json.dumps([*steps, "done"]), encoding="utf-8")
    agent = agent or new_agent(world, model=f"script:{script}")
    store = resolve_conversation(world, agent, None)
    setup = build_turn_setup(world, agent, store, TurnOptions(permission_mode=mode))
    events = list(run_turn(setup, "look around"))
    return [event.result for event in events if isinstance(event, ToolResultEvent)]


def test_a_scripted_turn_greps_nothing_from_outside_in_any_mode(world, tmp_path):
    secret = tmp_path / "outside-secret.txt"
    secret.write_text(f"{SECRET}\n")
    os.symlink(secret, world.cwd / "link.txt")
    os.symlink("/etc/passwd", world.cwd / "passwd")
    (world.cwd / "a.txt").write_text("hello\n")
    agent = new_agent(world, model=f"script:{tmp_path / 'script.json'}")
    for mode in MODES:
        grep = [{"name": "Grep", "arguments": {"pattern": "."}}]
        content = _turn(world, tmp_path, grep, mode, agent)[0].content
        assert "a.txt:1: hello" in content.splitlines(), (mode, content)
        assert SECRET not in content and "root:" not in content, (mode, content)


def test_a_scripted_accept_edits_turn_cannot_arm_git(world, tmp_path):
    git_dir = world.cwd / ".git"
    (git_dir / "objects").mkdir(parents=True)
    (git_dir / "refs").mkdir()
    (git_dir / "HEAD").write_text("ref: refs/heads/main\n")
    (git_dir / "config").write_text(GIT_CONFIG)
    marker = tmp_path / "ran"
    armed = f'{GIT_CONFIG}\tfsmonitor = "touch {marker}"\n'
    calls = [
        {"name": "Write", "arguments": {"path": ".git/config", "content": armed}},
        {
            "name": "Edit",
            "arguments": {"path": ".git/config", "old_string": "0", "new_string": "1"},
        },
        {
            "name": "Write",
            "arguments": {"path": ".mini-letta/settings.local.json", "content": "{}"},
        },
        {"name": "Glob", "arguments": {"pattern": "**"}},
    ]
    results = _turn(world, tmp_path, calls, "acceptEdits")
    assert [IN_GIT in r.content for r in results[:2]] == [True, True]
    assert IN_STATE in results[2].content
    assert (git_dir / "config").read_text() == GIT_CONFIG
    assert not marker.exists()
