"""A remote on this machine must be a bare repository, as its own config says (read once)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mini_letta.errors import MemfsError
from mini_letta.memory.remote import refuse_non_bare_remote
from mini_letta.memory.repo import GitRepo


@pytest.mark.parametrize(
    ("config", "bare"),
    [
        ("", True),
        ("[core]\n\tbare\n", True),  # a boolean with no value is true
        ("[core]\n\tbare = yes\n", True),
        ("[core]\n\tbare = false\n", False),
        ("[core]\n\tbare = true\n[core]\n\tbare = false\n", False),  # the last value wins
        ("[core]\n\tbare = false\n[CORE]\n\tBare = On\n", True),  # names are case-blind
        ("[core]\n\tbare = true\n\tworktree = /elsewhere\n", False),
    ],
)
def test_a_local_remote_is_bare_only_when_its_config_says_so(tmp_path: Path, config, bare):
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    (remote / "config").write_text(config, encoding="utf-8")
    memory = GitRepo(tmp_path)
    if bare:
        refuse_non_bare_remote(memory, str(remote))
        refuse_non_bare_remote(memory, f"file://{remote}")
    else:
        with pytest.raises(MemfsError, match="not a bare repository"):
            refuse_non_bare_remote(memory, str(remote))


def test_a_remote_with_a_git_folder_is_never_bare(tmp_path: Path):
    remote = tmp_path / "shared"
    subprocess.run(["git", "init", "-q", "--bare", str(remote / ".git")], check=True)
    (remote / "config").write_text("[core]\n\tbare = true\n", encoding="utf-8")
    with pytest.raises(MemfsError, match="not a bare repository"):
        refuse_non_bare_remote(GitRepo(tmp_path), str(remote))
