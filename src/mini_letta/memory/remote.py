"""The memory's git remote: set, show, unset, and cloning a memory another machine shares.

The remote is the memory repository's own `origin`, so a clone on a second machine carries it
too. A URL is checked before git sees it: no credentials inside it (they belong in the user's git
credential helper; mini-letta never stores them), no `ext::`-style transports that run a
program, nothing git could read as an option.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from mini_letta.errors import InvalidValueError, MemfsError
from mini_letta.gitsafe import config_entries
from mini_letta.memory.incoming import describe_refusal, incoming_problems
from mini_letta.memory.repo import GitRepo, ensure_git_available

REMOTE = "origin"
BRANCH = "main"
REMOTE_TIMEOUT = 120.0
_SCHEMES = ("https", "http", "ssh", "git", "file")
_SCP_LIKE = re.compile(r"^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+$")


def check_remote_url(url: str, cwd: Path) -> str:
    """The URL to store (a local path made absolute); InvalidValueError naming what is wrong."""
    text = url.strip()
    if not text:
        raise InvalidValueError("the remote URL is empty")
    if text.startswith("-") or any(ord(c) < 32 or c == "\x7f" for c in text):
        raise InvalidValueError(f"{url!r} is not a git remote URL")
    if "://" in text:
        parts = urlsplit(text)
        if parts.scheme not in _SCHEMES:
            raise InvalidValueError(
                f"remote URL scheme {parts.scheme!r} is not allowed "
                f"(allowed: {', '.join(_SCHEMES)})"
            )
        if parts.password:
            raise InvalidValueError(
                "the remote URL contains a password; mini-letta never stores credentials: "
                "remove it and let git's credential helper supply it"
            )
        return text
    if "::" in text:
        raise InvalidValueError(f"remote transport {text.split('::')[0]!r}:: is not allowed")
    if _SCP_LIKE.match(text):
        return text
    return os.path.normpath(cwd / Path(text).expanduser())


# The receive side of a push to this machine runs here, as this user: none of the remote
# repository's programs may run there (hooks, fsmonitor, alternates, an automatic gc), and it
# never updates a working tree. The alternates' refs come from `true` (none): receive-pack
# runs the command even when empty, and an empty one fails with a line that came first in
# every refused push's message, where git's reason belongs.
_RECEIVE_CONFIG = (
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.alternateRefsCommand=true",
    "receive.denyCurrentBranch=refuse",
    "receive.autogc=false",
)


def push_options(url: str) -> tuple[str, ...]:
    """Extra `git push` options for `url`: for a remote on this machine, a receive side that
    runs none of the remote repository's programs (`_RECEIVE_CONFIG`)."""
    if local_remote_path(url) is not None:
        config = " ".join(f"-c {item}" for item in _RECEIVE_CONFIG)
        return (f"--receive-pack=git {config} receive-pack",)
    return ()


def local_remote_path(url: str) -> Path | None:
    """The folder a remote on this machine lives in (a path or a file:// URL), else None."""
    if url.startswith("file://"):
        return Path(urlsplit(url).path)
    if "://" in url or _SCP_LIKE.match(url):
        return None
    return Path(url)


def refuse_non_bare_remote(repo: GitRepo, url: str) -> None:
    """A remote on this machine must be a bare repository: pushing to one with a working tree
    can check files out there, and checking out runs that repository's filters and fsmonitor."""
    path = local_remote_path(url)
    if path is None or not path.exists():
        return
    config = path / "config"
    bare = False
    if not (path / ".git").exists() and config.is_file():
        found = _plain_core_entries(config)
        if found is None:
            found = _core_entries(repo, config)
        said = found.get("core.bare", "").strip()
        bare = "core.worktree" not in found and said.lower() in ("true", "yes", "on", "1", "")
    if not bare:
        raise MemfsError(
            f"the remote {path} is not a bare repository, and pushing to one with a working "
            f"tree can run its programs; make a bare copy (`git clone --bare {path} "
            f"{path}.git`) and use it (`mini-letta memory remote set {path}.git`)"
        )


def _core_entries(repo: GitRepo, config: Path) -> dict[str, str]:
    """`core.bare` and `core.worktree` as git reads `config` alone, the last value of each."""
    raw = repo.run_bytes(
        "config",
        "--file",
        str(config),
        "-z",
        "--get-regexp",
        r"^core\.(bare|worktree)$",
        check=False,
    )
    return dict(config_entries(raw))


# A line of a config file in the plain shape `git init` writes: a section with no subsection,
# a key with or without a value holding no quote, escape, comment or tab (git would rewrite
# those), a comment, or nothing.
_PLAIN_LINE = re.compile(
    r"[ \t]*(?:\[([A-Za-z0-9.-]+)\]|([A-Za-z][A-Za-z0-9-]*)(?:[ \t]*=[ \t]*([^\"\\#;\t\r\n\0]*))?"
    r"|[#;][^\n]*)?[ \t]*\r?"
)


def _plain_core_entries(config: Path) -> dict[str, str] | None:
    """What `_core_entries` would say, read in Python when every line of `config` has the
    plain shape (`_PLAIN_LINE`); None for anything else (quotes, escapes, a continued line, a
    subsection, a byte-order mark, an unreadable file), which git then reads."""
    try:
        text = config.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    found: dict[str, str] = {}
    section = ""
    for line in text.split("\n"):
        shape = _PLAIN_LINE.fullmatch(line)
        if shape is None:
            return None
        header, key, value = shape.groups()
        if header is not None:
            section = header.lower()
        elif key is not None and section == "core" and key.lower() in ("bare", "worktree"):
            found[f"core.{key.lower()}"] = (value or "").rstrip(" \t")
    return found


def memory_remote_repo(memory_dir: Path, environ: Mapping[str, str] | None = None) -> GitRepo:
    """The memory repository set up to talk to its remote (the user's git config readable)."""
    repo = GitRepo(memory_dir, timeout=REMOTE_TIMEOUT, environ=environ, user_config=True)
    if not repo.exists():
        raise MemfsError(f"the memory folder {memory_dir} is not a git repository")
    return repo


def get_remote(repo: GitRepo) -> str | None:
    """The remote's URL; None when there is none."""
    return repo.remote_url(REMOTE)


def set_remote(repo: GitRepo, url: str) -> None:
    if get_remote(repo) is None:
        repo.run("remote", "add", REMOTE, url)
    else:
        repo.run("remote", "set-url", REMOTE, url)


def unset_remote(repo: GitRepo) -> bool:
    """Forget the remote; False when there was none. The remote itself is untouched."""
    if get_remote(repo) is None:
        return False
    repo.run("remote", "remove", REMOTE)
    return True


def clone_memory(url: str, memory_dir: Path, environ: Mapping[str, str] | None = None) -> bool:
    """Clone a shared memory into `memory_dir`; False when the remote has no memory yet.

    The clone is made beside the target and renamed into place, so a failure leaves nothing.
    """
    import shutil

    ensure_git_available()
    staging = memory_dir.with_name(memory_dir.name + ".cloning")
    shutil.rmtree(staging, ignore_errors=True)
    staging.parent.mkdir(parents=True, exist_ok=True)
    runner = GitRepo(staging.parent, timeout=REMOTE_TIMEOUT, environ=environ, user_config=True)
    try:
        runner.run("clone", "-q", "--no-checkout", "--origin", REMOTE, "--", url, staging.name)
        clone = GitRepo(staging, timeout=REMOTE_TIMEOUT, environ=environ, user_config=True)
        empty = clone.returncode("rev-parse", "-q", "--verify", f"refs/remotes/{REMOTE}/{BRANCH}")
        if empty != 0:
            shutil.rmtree(staging, ignore_errors=True)
            return False
        problems = incoming_problems(clone, None, f"refs/remotes/{REMOTE}/{BRANCH}")
        if problems:
            raise MemfsError(describe_refusal(problems))
        clone.run("checkout", "-q", "-B", BRANCH, f"refs/remotes/{REMOTE}/{BRANCH}")
        clone.run("branch", "-q", f"--set-upstream-to={REMOTE}/{BRANCH}", BRANCH)
    except MemfsError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    staging.rename(memory_dir)
    return True
