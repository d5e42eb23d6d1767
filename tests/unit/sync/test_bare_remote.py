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


# Configs in the plain shape are read in Python, anything else by git; both must agree.
SHAPES = [
    "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n",
    "[core]\n\tbare = false\r\n",  # CRLF
    "; a comment\n# another\n[CORE]\n\tBARE\n",
    "[core]\n\tbare =\n",
    "[core]\n\tbare = t r u e  \n",
    "[core]\n\tbare = true\n[core]\n\tworktree\n",
    "[core.x]\n\tbare = false\n",  # another section, by the old subsection spelling
    "[core] bare = false\n",  # git-only shapes from here on
    '[core]\n\tbare = "false"\n',
    "[core]\n\tbare = fal\\\nse\n",
    '[core "x"]\n\tbare = false\n',
    "\ufeff[core]\n\tbare = false\n",
    "[core]\n\tbare = true # a comment\n",
    "[core]\n\tbare = tr\tue\n",
    "[ core ]\n\tbare = false\n",  # not a config git can read
    "[core]\n\tbare = tr\0ue\n",
]
PLAIN = 7  # the first rows are in the plain shape


def test_the_plain_reading_of_a_remote_s_config_is_git_s(tmp_path: Path):
    from mini_letta.memory.remote import _core_entries, _plain_core_entries

    config = tmp_path / "config"
    wrong = []
    for row, text in enumerate(SHAPES):
        config.write_bytes(text.encode("utf-8"))
        plain, by_git = _plain_core_entries(config), _core_entries(GitRepo(tmp_path), config)
        if (plain is not None) != (row < PLAIN) or plain not in (None, by_git):
            wrong.append((text, plain, by_git))
    assert not wrong
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "r.git")], check=True)
    assert _plain_core_entries(tmp_path / "r.git" / "config") == {"core.bare": "true"}
