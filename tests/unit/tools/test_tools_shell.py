"""Bash as a real subprocess: exit codes, timeouts that kill the group, bounded output."""

from __future__ import annotations

import os

import pytest

from support.tools import call_tool, make_context
from support.waiting import process_alive, wait_until


@pytest.fixture
def ctx(project, clock):
    return make_context(project, clock, environ={"PATH": os.environ["PATH"], "GREETING": "hej"})


def test_bash_runs_in_the_working_directory_with_the_given_environment(ctx, project):
    (project / "marker.txt").write_text("x")
    result = call_tool("Bash", {"command": "ls; echo $GREETING; echo oops >&2"}, ctx)
    assert not result.is_error
    assert result.content.splitlines() == ["marker.txt", "hej", "oops"]


def test_bash_non_zero_exit_is_an_error_result_with_output(ctx):
    result = call_tool("Bash", {"command": "echo partial; exit 3"}, ctx)
    assert result.is_error
    assert result.content == "Exit code 3.\npartial"


def test_bash_no_output(ctx):
    assert call_tool("Bash", {"command": "true"}, ctx).content == "(no output)"


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="elsewhere Popen's own wait")
def test_bash_is_woken_by_the_commands_exit_not_by_polling(ctx):
    """Popen.wait with a timeout sleeps in a loop (up to 50 ms a look); counted with a profile
    hook on this thread, which sees each `time.sleep` call."""
    import sys
    import time

    sleeps = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal sleeps
        sleeps += event == "c_call" and arg is time.sleep

    sys.setprofile(profile)
    try:
        result = call_tool("Bash", {"command": "sleep 0.05; echo done"}, ctx)
    finally:
        sys.setprofile(None)
    assert result.content == "done"
    assert sleeps == 0


def test_bash_timeout_kills_the_whole_process_group(ctx, project):
    command = "sleep 30 & echo $! > child.pid; echo started; wait"
    result = call_tool("Bash", {"command": command, "timeout": 0.5}, ctx)
    assert result.is_error and result.content.startswith("Timed out after 0.5s")
    assert "started" in result.content
    child = int((project / "child.pid").read_text())
    wait_until(lambda: not process_alive(child), "the killed group's child to die", timeout=10)


def test_bash_huge_output_keeps_head_and_tail(project, clock):
    ctx = make_context(project, clock, output_cap=4000)
    result = call_tool("Bash", {"command": "seq 1 200000"}, ctx)
    assert not result.is_error
    assert len(result.content) <= 4000
    assert result.content.startswith("1\n2\n3\n")
    assert result.content.rstrip().endswith("200000")
    assert "omitted" in result.content


def test_bash_strips_terminal_colours(ctx):
    result = call_tool("Bash", {"command": r"printf '\033[31mred\033[0m\n'"}, ctx)
    assert result.content == "red"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({}, "'command' is required"),
        ({"command": 5}, "'command' must be a string"),
        ({"command": "true", "timeout": "soon"}, "'timeout' must be a number"),
        ({"command": "true", "timeout": -1}, "'timeout' must be a positive number"),
    ],
    ids=["missing", "type", "timeout-type", "timeout-negative"],
)
def test_bash_bad_arguments(ctx, args, needle):
    result = call_tool("Bash", args, ctx)
    assert result.is_error and needle in result.content


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="elsewhere Popen's own wait")
def test_the_exit_wait_works_with_descriptors_past_selects_limit():
    """A long session may hold many descriptors; the exit's pidfd can number past 1024,
    which select() refuses (ValueError) and poll() takes."""
    import resource
    import subprocess
    import sys

    from mini_letta.tools.shell import wait_for_exit

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if max(soft, hard if hard != resource.RLIM_INFINITY else 2048) < 1100:
        pytest.skip("this process may not hold 1,100 descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1100), hard))
    held = []
    try:
        while not held or held[-1] < 1030:
            held.append(os.dup(0 if not held else held[0]))
        proc = subprocess.Popen([sys.executable, "-c", "pass"])
        wait_for_exit(proc, 30)
        assert proc.returncode == 0
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
