"""memory/gitproc.run_process: git's runner gives what subprocess.run gave, for less CPU."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from mini_letta.memory.gitproc import ProcessTimeout, run_process
from support.git_calls import git_calls

ENV = {"PATH": os.environ["PATH"]}


def test_output_status_and_input_larger_than_both_pipes():
    data = os.urandom(300_000)  # past the 64 KB pipe buffers both ways: written while read
    finished = run_process(["cat"], ENV, 30, data)
    assert (finished.returncode, finished.stdout, finished.stderr) == (0, data, b"")
    said = run_process(["sh", "-c", "echo out; echo err >&2; exit 3"], ENV, 30)
    assert (said.returncode, said.stdout, said.stderr) == (3, b"out\n", b"err\n")
    assert run_process(["cat"], ENV, 30).stdout == b""  # stdin is /dev/null, not ours
    killed = run_process(["sh", "-c", "kill -TERM $$"], ENV, 30)
    assert killed.returncode == -signal.SIGTERM


def test_the_child_gets_default_signals_and_the_environment_it_is_given():
    mask = run_process(["sh", "-c", "grep SigIgn /proc/$$/status"], ENV, 30).stdout
    if not mask:
        pytest.skip("no /proc on this system")
    ignored = int(mask.split()[1], 16)
    assert not ignored & (1 << (signal.SIGPIPE - 1))  # Python ignores it; git must not
    assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN  # ...and in here it still is
    env = run_process(["sh", "-c", "echo $ONLY"], {**ENV, "ONLY": "this"}, 30).stdout
    assert env == b"this\n"


def test_a_missing_program_a_timeout_and_the_audit_event(tmp_path):
    with pytest.raises(FileNotFoundError):
        run_process(["git", "--version"], {"PATH": str(tmp_path)}, 30)
    marker = tmp_path / "pid"
    sleeper = f"import os, time; open({str(marker)!r}, 'w').write(str(os.getpid())); time.sleep(30)"
    with pytest.raises(ProcessTimeout):
        run_process([sys.executable, "-c", sleeper], ENV, 0.3)
    if marker.exists() and marker.read_text():  # it got that far: now it is gone and reaped
        with pytest.raises(ProcessLookupError):
            os.kill(int(marker.read_text()), 0)
    with git_calls() as calls:
        assert run_process(["git", "--version"], ENV, 30).stdout.startswith(b"git version")
    assert calls == ["git"]  # counted as subprocess.Popen's are
