"""Contract tests on the real process's standard streams (subprocesses: kept few and fast).

A closed or full stdout, or a stream-json reader that goes away, never costs the turn: the
answer is recorded, the error is one stderr line, exit 1. (Invalid UTF-8 on stdin, accepted
with U+FFFD: tests/cli/test_process_contract.py.)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mini_letta.cli.main import main
from mini_letta.cli.terminal import Terminal
from support.cli import cli_env, run_cli_bytes

TIMEOUT = 60
needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


def _records(home: Path) -> list[dict]:
    (log,) = (home / "agents").glob("*/conversations/*/messages.jsonl")
    return [json.loads(line) for line in log.read_bytes().decode("utf-8").splitlines()]


def _assert_recorded_and_one_line(home: Path, proc: subprocess.CompletedProcess[bytes]) -> None:
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    assert "could not write to standard output" in lines[0] and "recorded" in lines[0]
    assert [record["role"] for record in _records(home)] == ["user", "assistant"]


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
def test_full_stdout(home, project):
    with open("/dev/full", "wb") as full:
        proc = run_cli_bytes(home.root, project, ["chat", "-p", "x"], stdout=full)
    _assert_recorded_and_one_line(home.root, proc)


@needs_dev_full
def test_full_stdout_for_stream_json(home, project):
    """Each event is flushed as it is written, so the turn itself meets the full device: the
    same one line, from `main()` (in this process, on a real /dev/full)."""
    err = io.StringIO()
    full = open("/dev/full", "w", encoding="utf-8")  # noqa: SIM115
    try:
        terminal = Terminal(io.StringIO(), full, err, cli_env(home.root), project)
        code = main(["chat", "-p", "x", "--output-format", "stream-json"], terminal)
    finally:
        with contextlib.suppress(OSError):  # the failed write is still in the buffer
            full.close()
    done = subprocess.CompletedProcess([], code, b"", err.getvalue().encode())
    _assert_recorded_and_one_line(home.root, done)


@needs_dev_full
def test_full_stdout_for_another_command(home, project):
    with open("/dev/full", "wb") as full:
        proc = run_cli_bytes(home.root, project, ["agents", "list"], stdout=full)
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
