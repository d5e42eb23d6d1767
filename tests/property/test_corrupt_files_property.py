"""Any bytes in any of our JSON files: a clear one-line error or a recovery, never a traceback."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.cli import run_cli_in_process

FILES = ["agent.json", "conversation.json", "settings.local.json", "settings.json"]

garbage = st.one_of(
    st.binary(max_size=60),
    st.text(max_size=60).map(lambda t: t.encode("utf-8")),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner),
        max_leaves=6,
    ).map(lambda v: json.dumps(v).encode()),
)


def _target(home: Path, project: Path, which: str) -> Path:
    if which == "settings.local.json":
        return project / ".mini-letta" / which
    if which == "settings.json":
        return home / which
    (agent_dir,) = (home / "agents").iterdir()
    if which == "agent.json":
        return agent_dir / which
    (conv_dir,) = (agent_dir / "conversations").iterdir()
    return conv_dir / which


@pytest.fixture(scope="module")
def after_one_turn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home and project after one turn, copied for each example (an agent costs a git init)."""
    root = tmp_path_factory.mktemp("one-turn")
    (root / "project").mkdir()
    assert (
        run_cli_in_process("chat", "-p", "first", home=root / "home", cwd=root / "project").code
        == 0
    )
    return root


# Each example is a whole turn: fewer of them than the profile's default.
@settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FILES), garbage)
def test_garbage_in_a_json_file_never_crashes(after_one_turn, which, content):
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(after_one_turn, tmp, dirs_exist_ok=True)
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        target = _target(home, project, which)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        result = run_cli_in_process("chat", "-p", "again", home=home, cwd=project)  # no Traceback
        assert result.code in (0, 1), result.stderr
        assert "internal error" not in result.stderr, result.stderr
        if result.code == 1:
            lines = [line for line in result.stderr.splitlines() if "warning" not in line]
            assert len(lines) == 1 and lines[0].startswith("mini-letta: "), result.stderr
            assert target.read_bytes() == content  # the bad file is kept, never reset
