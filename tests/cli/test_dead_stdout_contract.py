"""Contract tests on the real process's standard streams (subprocesses: kept few and fast).

Invalid UTF-8 on stdin is accepted with U+FFFD. A closed or full stdout, or a stream-json reader
that goes away, never costs the turn: the answer is recorded, the error is one stderr line,
exit 1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import cli_env

TIMEOUT = 60
needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


def _run(
    home: Path, cwd: Path, args: list[str], stdin: bytes = b"", stdout: object = subprocess.PIPE
) -> subprocess.CompletedProcess[bytes]:
    proc = subprocess.run(
        [sys.executable, "-m", "mini_letta", *args],
        cwd=cwd,
        env=cli_env(home),
        input=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=TIMEOUT,
    )
    assert b"Traceback" not in proc.stderr, proc.stderr
    return proc


def _records(home: Path) -> list[dict]:
    (log,) = (home / "agents").glob("*/conversations/*/messages.jsonl")
    return [json.loads(line) for line in log.read_bytes().decode("utf-8").splitlines()]


def _assert_recorded_and_one_line(home: Path, proc: subprocess.CompletedProcess[bytes]) -> None:
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    assert "could not write to standard output" in lines[0] and "recorded" in lines[0]
    assert [record["role"] for record in _records(home)] == ["user", "assistant"]


def test_stdin_prompt_with_a_bad_byte(home, project):
    proc = _run(home.root, project, ["chat", "-p", "-"], stdin=b"hi \xff\n")
    assert proc.returncode == 0, proc.stderr
    assert "not valid UTF-8" in proc.stderr.decode()
    assert proc.stdout.decode() == "（mock）我听到了：hi \ufffd\n"
    assert _records(home.root)[0]["content"] == "hi \ufffd"


def test_stream_json_line_with_a_bad_byte(home, project):
    line = b'{"type": "user", "content": "caf\xe9"}\n'
    proc = _run(home.root, project, ["chat", "--input-format", "stream-json"], stdin=line)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(x) for x in proc.stdout.decode().splitlines()]
    assert events[-1]["type"] == "result" and events[-1]["result"].endswith("caf\ufffd")
    assert _records(home.root)[0]["content"] == "caf\ufffd"


def test_closed_stdout(home, project):
    command = f'exec "{sys.executable}" -m mini_letta chat -p x >&-'
    proc = subprocess.run(
        ["sh", "-c", command],
        cwd=project,
        env=cli_env(home.root),
        stderr=subprocess.PIPE,
        timeout=TIMEOUT,
    )
    assert b"Traceback" not in proc.stderr, proc.stderr
    _assert_recorded_and_one_line(home.root, proc)


@needs_dev_full
@pytest.mark.parametrize("fmt", ["text", "stream-json"])
def test_full_stdout(home, project, fmt):
    with open("/dev/full", "wb") as full:
        proc = _run(home.root, project, ["chat", "-p", "x", "--output-format", fmt], stdout=full)
    _assert_recorded_and_one_line(home.root, proc)


@needs_dev_full
def test_full_stdout_for_another_command(home, project):
    with open("/dev/full", "wb") as full:
        proc = _run(home.root, project, ["agents", "list"], stdout=full)
    assert proc.returncode == 1
    assert proc.stderr.decode().strip().splitlines() == [
        "mini-letta: could not write to standard output (No space left on device)"
    ]


def test_stream_json_reader_that_closes_early(home, project):
    proc = subprocess.Popen(
        [sys.executable, "-m", "mini_letta", "chat", "--input-format", "stream-json"],
        cwd=project,
        env=cli_env(home.root),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        assert json.loads(proc.stdout.readline())["type"] == "system"
        proc.stdout.close()  # like `| head -1`: the reader is gone before the first turn
        proc.stdin.write(b'{"type": "user", "content": "x"}\n{"type": "user", "content": "y"}\n')
        proc.stdin.close()
        stderr = proc.stderr.read()
        proc.wait(timeout=TIMEOUT)
    finally:
        proc.kill()
        proc.wait(timeout=TIMEOUT)
        proc.stderr.close()
    assert b"Traceback" not in stderr, stderr
    done = subprocess.CompletedProcess(proc.args, proc.returncode, b"", stderr)
    _assert_recorded_and_one_line(home.root, done)  # and the second line was not run
