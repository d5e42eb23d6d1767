"""Bash runs without credentials: names that look like one and values the scanner flags are gone."""

from __future__ import annotations

import os

import pytest

from mini_letta.errors import CorruptFileError
from mini_letta.settings import read_settings
from mini_letta.tools.environment import is_credential_name
from support.tools import call_tool, make_context

OPENAI_KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
ENVIRON = {
    "PATH": os.environ["PATH"],
    "HOME": "/home/someone",
    "LANG": "C.UTF-8",
    "TERM": "xterm",
    "OPENAI_API_KEY": OPENAI_KEY,
    "ANTHROPIC_API_KEY": "sk-ant-api03-abcDEF123456ghiJKL789012mnoPQR",
    "OPENAI_BASE_URL": "http://localhost:8000/v1",
    "GITHUB_TOKEN": "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "MY_SERVICE_TOKEN": "plainwordsonly",
    "CLIENT_SECRET_VALUE": "whatever-it-is",
    "DB_PASSWORD": "hunter2hunter2",
    "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "AWS_SESSION_TOKEN": "FwoGZXIvYXdzEBYaDH",
    "AWS_REGION": "eu-west-1",
    "DATABASE_URL": "postgres://admin:hunter22@db.example.com:5432/app",
    "INNOCENT_LOOKING": "xoxb-123456789012-1234567890123-abcdefghijklmnop",
}
KEPT = ["PATH", "HOME", "LANG", "TERM", "OPENAI_BASE_URL", "AWS_REGION"]
DROPPED = sorted(set(ENVIRON) - set(KEPT))


def _env_names(result) -> set[str]:
    assert not result.is_error, result.content
    return {line.split("=", 1)[0] for line in result.content.splitlines() if "=" in line}


@pytest.fixture
def ctx(project, clock):
    return make_context(project, clock, environ=ENVIRON)


def test_bash_environment_has_no_credentials(ctx):
    names = _env_names(call_tool("Bash", {"command": "env"}, ctx))
    assert set(KEPT) <= names
    assert not names & set(DROPPED), names & set(DROPPED)


def test_bash_environment_allow_list_keeps_named_variables(project, clock):
    ctx = make_context(
        project,
        clock,
        environ=ENVIRON,
        bash_env_allow=frozenset({"MY_SERVICE_TOKEN", "DATABASE_URL"}),
    )
    names = _env_names(call_tool("Bash", {"command": "env"}, ctx))
    assert {"MY_SERVICE_TOKEN", "DATABASE_URL"} <= names
    assert "OPENAI_API_KEY" not in names


def test_tool_output_is_redacted_by_shape_and_by_credential_value(ctx, project):
    (project / "notes.txt").write_text(
        f"key {OPENAI_KEY}\nfor the db use hunter2hunter2 and plainwordsonly\n"
    )
    for name, args in [("Bash", {"command": "cat notes.txt"}), ("Read", {"path": "notes.txt"})]:
        content = call_tool(name, args, ctx).content
        assert OPENAI_KEY not in content and "hunter2hunter2" not in content
        assert "plainwordsonly" not in content
        assert "<redacted:openai-api-key>" in content and "<redacted:DB_PASSWORD>" in content


def test_tool_error_output_is_redacted_too(ctx):
    result = call_tool("Bash", {"command": f"echo {OPENAI_KEY}; exit 4"}, ctx)
    assert result.is_error and OPENAI_KEY not in result.content
    assert result.content == "Exit code 4.\n<redacted:openai-api-key>"


CREDENTIAL_NAMES = [
    ("OPENAI_API_KEY", True),
    ("HF_TOKEN", True),
    ("NPM_CONFIG__AUTH", True),
    ("STRIPE_SECRET", True),
    ("PGPASSWORD", True),
    ("AWS_SECRET_ACCESS_KEY", True),
    ("AWS_ACCESS_KEY_ID", True),
    ("AWS_SESSION_TOKEN", True),
    ("AWS_PROFILE", False),
    ("ANTHROPIC_BASE_URL", False),
    ("TOKENIZERS_PARALLELISM", False),
    ("SSH_AUTH_SOCK", False),
    ("PWD", False),
    ("KEYBOARD_LAYOUT", False),
]


def test_credential_names():
    wrong = [(n, c) for n, c in CREDENTIAL_NAMES if is_credential_name(n) is not c]
    assert wrong == []  # (name, what it should be) for each misread name


def test_bash_env_allow_setting_must_be_a_list_of_names(home):
    home.root.mkdir(parents=True)
    home.settings_file.write_text('{"bashEnvAllow": "MY_TOKEN"}')
    with pytest.raises(CorruptFileError, match="bashEnvAllow must be a list"):
        read_settings(home, home.root).bash_env_allow()
