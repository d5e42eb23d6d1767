"""Hostile inputs get one line and the right exit code, never an internal error."""

from __future__ import annotations

import os

import pytest

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def _one_line(result, code):
    assert result.code == code, (result.code, result.stderr)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.fixture
def agent_ready(cli):
    assert cli("chat", "-p", "hi").code == 0


def test_deeply_nested_json_in_an_import_is_refused(cli, project):
    line = '{"role": "user", "content": ' + "[" * 100_000 + "]" * 100_000 + "}"
    (project / "deep.jsonl").write_text(line + "\n")
    _one_line(cli("import", "deep.jsonl"), 1)


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59"])
def test_an_out_of_range_time_in_an_import_is_refused(cli, project, when):
    (project / "t.jsonl").write_text(
        f'{{"role": "user", "content": "hi", "createdAt": "{when}"}}\n'
    )
    _one_line(cli("import", "t.jsonl"), 1)


@pytest.mark.parametrize(
    "flag", [("--until", "9999-12-31"), ("--until", "0001-01-01T00:00:00+23:59")]
)
def test_an_out_of_range_search_bound_is_a_usage_error(cli, agent_ready, flag):
    _one_line(cli("search", "hi", *flag), 2)


@pytest.mark.parametrize("url", ["http://[::1", "http://localhost:/v1", "http://host:port/v1"])
def test_a_malformed_base_url_is_a_usage_error(cli, url):
    _one_line(cli("chat", "--model", "openai/x", "--base-url", url, "-p", "hi"), 2)


@pytest.mark.timeout(20)
def test_importing_a_fifo_is_refused_without_waiting(cli, project):
    os.mkfifo(project / "pipe.jsonl")
    _one_line(cli("import", "pipe.jsonl"), 1)


def test_a_huge_sparse_file_is_refused_before_it_is_read(cli, project):
    with open(project / "big.jsonl", "wb") as handle:
        handle.truncate(1 << 30)  # 1 GB of holes: no disk used
    result = cli("import", "big.jsonl")
    _one_line(result, 1)
    assert "past the limit" in result.stderr


def test_a_deleted_working_directory_is_one_line(tmp_path, home):
    import subprocess
    import sys

    from support.cli import cli_env

    gone = tmp_path / "gone"
    gone.mkdir()
    script = f'cd "{gone}" && rmdir "{gone}" && exec "{sys.executable}" -m mini_letta status'
    proc = subprocess.run(
        ["sh", "-c", script], env=cli_env(home.root), capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        "mini-letta: the current directory no longer exists; cd to one that does"
    )
