"""What only a real `python -m mini_letta` process shows: the entry point's exit codes and
streams, a closed stdout, and stream-json input answered line by line as it arrives; input
that is not UTF-8 (a prompt on stdin, a stream-json line) is read with U+FFFD on the way.

Every other CLI test runs in-process through `main()` (the `cli` fixture); signals, crashes
and imports have their own subprocess tests (test_interrupt_cli, test_crash_and_concurrency,
test_lazy_imports_cli).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.cli import cli_env, run_cli_bytes


def test_version_through_the_entry_point(cli_process, home):
    result = cli_process("--version")
    assert (result.code, result.stdout, result.stderr) == (0, "mini-letta 0.1.0\n", "")
    assert not home.root.exists()


def test_a_turn_and_a_usage_error_through_the_entry_point(cli_process, home, project):
    # the prompt read from stdin, with a byte that is not UTF-8: accepted as U+FFFD, said once
    turn = run_cli_bytes(
        home.root, project, ["chat", "-p", "-"], stdin="帮我看下 ".encode() + b"\xff\n"
    )
    assert (turn.returncode, turn.stdout.decode()) == (0, "（mock）我听到了：帮我看下 \ufffd\n")
    assert "not valid UTF-8" in turn.stderr.decode()
    assert _contents(home.root) == ["帮我看下 \ufffd", "（mock）我听到了：帮我看下 \ufffd"]
    usage = cli_process("chat", "--max-steps", "0", "-p", "hi")
    assert usage.code == 2 and usage.stdout == ""
    assert len(usage.stderr.splitlines()) == 1 and usage.stderr.startswith("mini-letta: ")


def test_a_closed_stdout_is_exit_1_without_a_traceback(home, project):
    child = subprocess.Popen(
        [sys.executable, "-m", "mini_letta", "chat", "-p", "hi"],
        cwd=project,
        env=cli_env(home.root),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None
    child.stdout.close()  # the reader went away, as `mini-letta ... | head -0` does
    _, err = child.communicate(timeout=60)
    assert child.returncode == 1
    (line,) = err.decode().splitlines()  # one line: the answer was recorded, not shown
    assert line.startswith("mini-letta: could not write to standard output") and "recorded" in line


def test_stream_json_input_is_answered_as_each_line_arrives(home, project):
    child = subprocess.Popen(
        [sys.executable, "-m", "mini_letta", "chat", "--input-format", "stream-json"],
        cwd=project,
        env=cli_env(home.root),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        child.stdin.write(json.dumps("one").encode() + b"\n")
        child.stdin.flush()
        first = _read_until_result(child.stdout)  # stdin is still open: answered per line
        assert first["result"] == "（mock）我听到了：one"
        child.stdin.write(b'{"type": "user", "content": "caf\xe9"}\n')  # not UTF-8: U+FFFD
        child.stdin.close()
        rest = [json.loads(line) for line in child.stdout]
        assert [e["result"] for e in rest if e["type"] == "result"] == [
            "（mock）我听到了：caf\ufffd"
        ]
        assert child.wait(timeout=60) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        assert child.stderr is not None
        child.stderr.close()
        child.stdout.close()
    assert _contents(home.root)[2] == "caf\ufffd"


def _contents(home: Path) -> list[str]:
    (log,) = (home / "agents").glob("*/conversations/*/messages.jsonl")
    return [json.loads(line)["content"] for line in log.read_bytes().decode().splitlines()]


def _read_until_result(stream) -> dict:
    for line in stream:
        event = json.loads(line)
        if event["type"] == "result":
            return event
    raise AssertionError("the process ended before answering")


# Ctrl-C landing while a start-up module is being imported, made certain: an import hook raises
# KeyboardInterrupt for one module, as the signal would in the middle of importing it.
CTRL_C_IN_IMPORT = """
import sys
target = sys.argv.pop(1)

class CtrlC:
    def find_spec(self, name, path=None, target_=None):
        if name == target:
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, CtrlC())
sys.argv[0] = "mini-letta"
from mini_letta.cli.main import run
run()
"""


def test_ctrl_c_during_start_up_is_one_line_and_exit_130(home, project):
    for module in ("mini_letta.cli.terminal", "mini_letta.cli.chat_args"):
        child = subprocess.run(
            [sys.executable, "-c", CTRL_C_IN_IMPORT, module, "chat", "-p", "hi"],
            cwd=project,
            env=cli_env(home.root),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (child.returncode, child.stdout) == (130, ""), child.stderr
        assert child.stderr == "mini-letta: interrupted\n", child.stderr
