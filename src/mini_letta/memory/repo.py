"""The memory repository: the system `git` binary run as a subprocess, never interactively.

Every call has a timeout, no prompts, a fixed harness identity, and goes through `gitsafe`: the
user's global and system config are not read, and no program the repository names runs (no hook,
fsmonitor, pager, filter or merge driver, external diff, credential helper). Inherited
`GIT_DIR`-style variables are dropped. Failures are `GitError` with one line naming the git
command and the first line of what git said.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING

from mini_letta.errors import GitError
from mini_letta.gitsafe import (
    DIFF_COMMANDS,
    DIFF_FLAGS,
    DRIVER_KEYS,
    TRANSPORT_KEYS,
    URL_KEYS,
    config_args,
    driver_overrides,
    safe_git_config,
    safe_git_env,
    split_remote_settings,
    user_transport_config,
)
from mini_letta.home import memory_journal_file, memory_lock_file
from mini_letta.memory.gitfiles import (
    ASK_GIT,
    GC_AUTO,
    GC_AUTO_PACK_LIMIT,
    SHA_RE,
    config_mentions,
    config_stamp,
    git_dirs,
    head_file,
    may_have_branches,
    may_have_worktrees,
    pack_due,
    read_head,
    read_ref,
)
from mini_letta.storage.locks import exclusive_lock

if TYPE_CHECKING:
    from mini_letta.memory.gitproc import Finished

GIT_TIMEOUT = 60.0
MEMORY_LOCK_TIMEOUT = 30.0
_LOCK_EXISTS = re.compile(r"Unable to create '(.+\.lock)': File exists")
HARNESS_NAME = "mini-letta"
HARNESS_EMAIL = "mini-letta@localhost"
_CONFIG = (
    f"user.name={HARNESS_NAME}",
    f"user.email={HARNESS_EMAIL}",
    "core.autocrlf=false",
    "core.quotepath=false",
    "init.defaultBranch=main",
    # Packed in the foreground (no detached child outliving the command) and sooner than
    # git's 6,700 loose objects: months of small commits stay a few packs.
    "gc.autoDetach=false",
    f"gc.auto={GC_AUTO}",
    f"gc.autoPackLimit={GC_AUTO_PACK_LIMIT}",  # pinned: `pack_due` applies git's rule with it
    # git's own look after each commit, fetch and merge is one more process (`maintenance run
    # --auto`), nearly always to find nothing due; `pack_if_due` reads the same rule from the
    # files and starts `gc --auto` only when it would pack.
    "maintenance.auto=false",
)
# Remote operations (sync) also read the user's config; these keep their results predictable.
_REMOTE_CONFIG = ("merge.conflictStyle=diff3", "push.default=nothing")
# Plumbing that never runs a filter or merge driver, so needs no look at the repo's drivers.
_NO_DRIVER_COMMANDS = frozenset(
    {"rev-parse", "symbolic-ref", "ls-tree", "cat-file", "log", "ls-files", "config", "init"}
)


@contextmanager
def lock_memory(memory_dir: Path, *, timeout: float = MEMORY_LOCK_TIMEOUT) -> Iterator[None]:
    """The lock every memory writer holds (the memory tool, `memory edit`/`undo`, a merge).

    Once it is held, the lock files a killed git left are cleared (memory/git_locks.py
    has the rule) and an edit whose writer was stopped is settled (memory/journal.py).
    Raises LockTimeoutError when another process keeps it for `timeout` seconds.
    """
    from mini_letta.memory.git_locks import clear_stale_git_locks

    with exclusive_lock(memory_lock_file(memory_dir), timeout=timeout, what="memory"):
        clear_stale_git_locks(memory_dir)
        if memory_journal_file(memory_dir).exists():  # a writer was stopped mid-edit
            from mini_letta.memory.journal import settle_interrupted_edit

            settle_interrupted_edit(memory_dir, GitRepo(memory_dir))
        yield


def ensure_git_available(search_path: str | None = None) -> str:
    """The git executable's path (on `search_path`, default PATH); GitError when missing."""
    import shutil

    found = shutil.which("git", path=search_path)
    if found is None:
        raise GitError("git is not installed or not on PATH; install git")
    return found


class GitRepo:
    """One working tree of a memory repository (the main checkout or a worktree)."""

    def __init__(
        self,
        path: Path,
        *,
        timeout: float = GIT_TIMEOUT,
        environ: Mapping[str, str] | None = None,
        user_config: bool = False,
    ) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._env = safe_git_env(environ, user_config=user_config)
        self._user_config = user_config
        self._config = [*safe_git_config(user_config=user_config), *_CONFIG]
        if user_config:
            self._config += _REMOTE_CONFIG
        self._transport: list[str] | None = None
        # (the config files' stamp, each remote's URL): None until read; a None stamp, never kept
        self._urls: tuple[tuple[int, ...] | None, dict[str, str]] | None = None

    def __repr__(self) -> str:
        return f"GitRepo({str(self.path)!r})"

    def run_bytes(self, *args: str, check: bool = True, stdin: bytes | None = None) -> bytes:
        """Run `git args...` in the repo and return its raw stdout."""
        return self._run(args, check=check, stdin=stdin).stdout

    def run(self, *args: str, check: bool = True) -> str:
        """Run `git args...` in the repo and return its stdout as text."""
        return self._run(args, check=check).stdout.decode("utf-8", "replace")

    def returncode(self, *args: str) -> int:
        """Run a git command whose exit status is the answer (e.g. `diff --quiet`)."""
        return self._run(args, check=False).returncode

    def try_run(self, *args: str) -> tuple[int, str]:
        """(exit status, first line git printed) without raising on failure."""
        proc = self._run(args, check=False)
        return proc.returncode, _first_line(proc)

    def run_status(self, args: Sequence[str]) -> tuple[int, bytes]:
        """(exit status, raw stdout) of `git args...`, without raising on failure."""
        proc = self._run(args, check=False)
        return proc.returncode, proc.stdout

    @property
    def env(self) -> dict[str, str]:
        """The environment every git of this repository runs in (see gitsafe)."""
        return self._env

    def command(self, args: Sequence[str]) -> list[str]:
        """The whole argument list that runs `git args...` here, with the harness's settings."""
        name = _name(args)
        command = ["git", "-C", str(self.path), *config_args(self._config)]
        if self._user_config and name != "config":
            command += config_args(self._user_transport())
        if name not in _NO_DRIVER_COMMANDS:
            command += config_args(self._driver_overrides())
        return command + _with_diff_flags(args, name)

    def _run(self, args: Sequence[str], *, check: bool, stdin: bytes | None = None) -> Finished:
        from mini_letta.memory.gitproc import ProcessTimeout, run_process

        name = _name(args)
        try:
            proc = run_process(self.command(args), self._env, self.timeout, stdin)
        except FileNotFoundError as exc:
            raise GitError("git is not installed or not on PATH; install git") from exc
        except ProcessTimeout as exc:
            raise GitError(f"git {name} timed out after {self.timeout:g}s in {self.path}") from exc
        except OSError as exc:
            raise GitError(f"git {name} could not run in {self.path}: {exc.strerror}") from exc
        if check and proc.returncode != 0:
            raise _failure(name, proc)
        return proc

    def remote_url(self, name: str) -> str | None:
        """Remote `name`'s URL as git reads it (the last value set); None when it has none.

        A repository that reads the user's config learns it from the one `git config` that
        also lists the user's transport and the drivers (`_read_user_settings`), and asks again
        only once a config file of the repository changed."""
        if not self._user_config:
            proc = self._run(("config", "--get", f"remote.{name}.url"), check=False)
            return proc.stdout.decode("utf-8", "replace").strip() or None
        dirs = git_dirs(self.path)
        stamp = None if dirs is None else config_stamp(*dirs)
        if self._urls is None or stamp is None or self._urls[0] != stamp:
            self._read_user_settings()
        assert self._urls is not None
        return self._urls[1].get(f"remote.{name}.url")

    def _user_transport(self) -> list[str]:
        """The user's own credential helpers and ssh/askpass commands, which beat the repo's."""
        if self._transport is None:
            self._read_user_settings()
        assert self._transport is not None
        return self._transport

    def _read_user_settings(self) -> None:
        """What a remote operation needs to know of the config, from one `git config
        --show-scope`: the user's transport settings (its system and global entries only), the
        drivers (every scope, memoised as `_driver_overrides` does) and the remotes' URLs. A
        git too old for `--show-scope` is asked scope by scope for the transport."""
        dirs = git_dirs(self.path)
        stamp = None if dirs is None else config_stamp(*dirs)  # before git reads the files
        mentioned = None if dirs is None else config_mentions(*dirs)
        keys = f"{TRANSPORT_KEYS}|{DRIVER_KEYS}|{URL_KEYS}"
        proc = self._run(("config", "-z", "--show-scope", "--get-regexp", keys), check=False)
        if proc.returncode in (0, 1):  # 1: no entry at all
            fields = proc.stdout.split(b"\0")
            scoped = list(zip(fields[0::2], fields[1::2], strict=False))
        else:
            listings = [
                self._run(("config", scope, "-z", "--get-regexp", TRANSPORT_KEYS), check=False)
                for scope in ("--system", "--global")
            ]
            rest = ("config", "-z", "--get-regexp", f"{DRIVER_KEYS}|{URL_KEYS}")
            listings.append(self._run(rest, check=False))
            scoped = [
                (b"global", entry)  # the last listing's are never transport entries
                for p in listings
                if p.returncode == 0
                for entry in p.stdout.split(b"\0")
            ]
        transport, drivers, urls = split_remote_settings(scoped)
        self._transport = user_transport_config(transport)
        found = driver_overrides(drivers)
        # An included file is not in the stamp: a repository that includes one is always asked.
        cacheable = stamp is not None and mentioned is not None and b"include" not in mentioned
        if dirs is not None and stamp is not None and cacheable:
            _DRIVERS[dirs[1]] = (stamp, found)
        self._urls = (stamp if cacheable else None, urls)

    def _driver_overrides(self) -> list[str]:
        """The repo's filter and merge drivers as they are now, disarmed (config can change).

        Asked of `git config` again whenever a config file of the repository changed; the
        answer is shared by the checkout and its worktrees (one entry per repository). When
        git reads no config but the repository's own and those files cannot name a driver
        (`config_mentions` finds none of the words), there is nothing to ask.
        """
        dirs = git_dirs(self.path)
        stamp = None if dirs is None else config_stamp(*dirs)
        known = None if dirs is None else _DRIVERS.get(dirs[1])
        if stamp is not None and known is not None and known[0] == stamp:
            return known[1]
        mentioned = None if dirs is None else config_mentions(*dirs)
        if mentioned == frozenset() and not self._user_config:
            found: list[str] = []
        else:
            proc = self._run(("config", "-z", "--get-regexp", DRIVER_KEYS), check=False)
            found = driver_overrides(proc.stdout) if proc.returncode == 0 else []
        # An included file is not in the stamp: a repository that includes one is always asked.
        cacheable = mentioned is not None and b"include" not in mentioned
        if dirs is not None and stamp is not None and cacheable:
            _DRIVERS[dirs[1]] = (stamp, found)
        return found

    def pack_due(self) -> bool:
        """Whether `git gc --auto` would pack anything, by git's own rule read from the files
        (memory/gitfiles.py `pack_due`); True when unsure."""
        return pack_due(self.path)

    def pack_if_due(self) -> None:
        """`git gc --auto` in the foreground when its rule says it would pack (`pack_due`):
        what git's auto-maintenance did after a commit, a fetch or a merge, without a process
        when nothing is due."""
        if self.pack_due():
            self.run("gc", "--auto", "--quiet")

    def may_have_worktrees(self) -> bool:
        """Whether git may know a linked worktree: False only when the files say none."""
        return may_have_worktrees(self.path)

    def may_have_branches(self, prefix: str) -> bool:
        """Whether a branch under `refs/heads/<prefix>` may exist; True when unsure."""
        return may_have_branches(self.path, prefix)

    def exists(self) -> bool:
        return (self.path / ".git").exists()

    def has_head(self) -> bool:
        return self.head_sha_or_none() is not None

    def head_sha(self) -> str:
        """HEAD's commit sha; a GitError when the repository has no commit yet."""
        found = self.head_sha_or_none()
        if found is None:
            raise GitError(f"'HEAD' is not a commit in the memory repository {self.path}")
        return found

    def head_sha_or_none(self) -> str | None:
        """HEAD's sha, or None for a repository without commits.

        Read from HEAD and its ref (loose or packed) when those are plain files (a checkout's
        or a linked worktree's): this runs before every model call and around every memory
        commit. Anything unusual (reftable, a ref that is not a branch) is asked of git.
        """
        head = read_head(self.path)
        if head is not ASK_GIT:
            return head
        proc = self._run(("rev-parse", "--verify", "-q", "HEAD^{commit}"), check=False)
        if proc.returncode != 0:
            return None
        return proc.stdout.decode("ascii").strip() or None

    def ref_sha(self, ref: str) -> str | None:
        """The sha `ref` (a full name such as `refs/remotes/origin/main`) holds, as it is
        stored: no tag is peeled and no object read. None when there is no such ref. Read
        from the files when they are plain (no reftable), else asked of git."""
        found = head_file(self.path)
        sha = ASK_GIT if found is None else read_ref(found[1], ref)
        if sha is not ASK_GIT:
            return sha
        proc = self._run(("rev-parse", "-q", "--verify", ref), check=False)
        return proc.stdout.decode("ascii", "replace").strip() or None

    def rev_parse(self, rev: str) -> str:
        proc = self._run(("rev-parse", "--verify", "-q", f"{rev}^{{commit}}"), check=False)
        if proc.returncode != 0:
            raise GitError(f"{rev!r} is not a commit in the memory repository {self.path}")
        return proc.stdout.decode("ascii").strip()

    def current_branch(self) -> str | None:
        """The checked-out branch name, or None when HEAD is detached."""
        found = head_file(self.path)
        if found is not None:
            head = found[0]
            if head.startswith("ref: refs/heads/"):
                return head.removeprefix("ref: refs/heads/") or None
            if SHA_RE.fullmatch(head):
                return None  # detached
        proc = self._run(("symbolic-ref", "-q", "--short", "HEAD"), check=False)
        if proc.returncode != 0:
            return None
        return proc.stdout.decode("utf-8").strip() or None

    def status_entries(self, paths: Sequence[str] = ()) -> list[tuple[str, str]]:
        """(XY status, path) for every staged, unstaged or untracked change (renames: both)."""
        args = ["status", "--porcelain=v1", "-z", "--untracked-files=all"]
        if paths:
            args += ["--", *paths]
        raw = self.run_bytes("--literal-pathspecs", *args).decode("utf-8", "replace")
        entries: list[tuple[str, str]] = []
        fields = raw.split("\0")
        index = 0
        while index < len(fields):
            item = fields[index]
            index += 1
            if len(item) < 4:
                continue
            code, path = item[:2], item[3:]
            entries.append((code, path))
            if "R" in code or "C" in code:
                entries.append((code, fields[index]))
                index += 1
        return entries

    def is_dirty(self, paths: Sequence[str] = ()) -> bool:
        return bool(self.status_entries(paths))

    def changed_paths(self, paths: Sequence[str] = ()) -> list[str]:
        return sorted({path for _, path in self.status_entries(paths)})

    def commit_paths(
        self, paths: Sequence[str], message: str, *, tracked: bool = False
    ) -> str | None:
        """Stage exactly `paths` (additions, edits, deletions) and commit them alone.

        Returns the new sha, or None when the paths hold no change. On failure (a held lock,
        a full disk) the index entries of `paths` are put back as they were in HEAD and a
        GitError is raised; the working-tree files are the caller's to restore. A message
        holding a credential is refused (SecretDetectedError) before anything is staged.
        With `tracked` (git knows every path), `git commit -- paths` stages them itself, one
        git process fewer; if that fails, they are staged and committed as usual.
        """
        from mini_letta.memory.secrets import refuse_secret

        refuse_secret(message, "the commit message")
        unique = sorted(set(paths))
        if not unique:
            return None
        commit = (*_COMMIT, "-m", message)
        if tracked:
            proc = self._run(("--literal-pathspecs", *commit, "--", *unique), check=False)
            if proc.returncode == 0:
                return self._committed()
            if _LOCK_EXISTS.search(_first_line(proc)):  # staging first would meet it again
                raise _failure("commit", proc)  # (a failed `commit -- paths` staged nothing)
        present = {p for p in unique if os.path.lexists(self.path / p)}
        # A path still on disk is staged whether tracked or not; only a missing one needs git
        # to say whether it is a deletion to stage or was never there.
        absent = [p for p in unique if p not in present]
        stage = sorted(present | (self._tracked(absent) if absent else set()))
        if not stage:
            return None
        try:
            self.run("--literal-pathspecs", "add", "-A", "--", *stage)
            proc = self._run(("--literal-pathspecs", *commit, "--", *stage), check=False)
            if proc.returncode != 0:
                # "Nothing to commit" is also a failure to git: asked only now, so a commit
                # that happens costs no look at the index first.
                same = ("--literal-pathspecs", "diff", "--cached", "--quiet", "HEAD", "--")
                if self.has_head() and self.returncode(*same, *stage) == 0:
                    return None
                raise _failure("commit", proc)
        except GitError:
            self._unstage(stage)
            raise
        return self._committed()

    def _committed(self) -> str:
        """HEAD after a commit, packed first when git's own rule says it is due."""
        with suppress(GitError):  # as git's own auto-maintenance: the commit stands either way
            self.pack_if_due()
        return self.head_sha()

    def commit_all(self, message: str) -> tuple[str, list[str]] | None:
        """Stage every change in the work tree and commit it: (the new sha, the paths that
        changed, sorted), or None when nothing changed. For a checkout only its owner stages
        in (a reflection worktree): two git processes, as `git add -A -v` stages and names
        what it staged (a path whose content is unchanged is not named), so no `git status`
        first. When git's list cannot be read (a name with a line break, another language),
        git status names the staged paths. Failures unstage everything and raise GitError; a
        message holding a credential is refused before anything is staged."""
        from mini_letta.memory.secrets import refuse_secret

        refuse_secret(message, "the commit message")
        paths = _staged_names(self.run("add", "-A", "-v"))
        try:
            if paths is None:
                paths = self.changed_paths()
            if not paths:
                return None
            self.run(*_COMMIT, "-m", message)
        except GitError:
            self._run(("reset", "-q"), check=False)
            raise
        return self.head_sha(), paths

    def _tracked(self, paths: Sequence[str]) -> set[str]:
        dirs = git_dirs(self.path)
        if dirs is not None and not (dirs[0] / "index").exists():
            return set()  # no index yet (a new repository's first commit): nothing is tracked
        raw = self.run_bytes("--literal-pathspecs", "ls-files", "-z", "--", *paths)
        return {item for item in raw.decode("utf-8", "replace").split("\0") if item}

    def _unstage(self, paths: Sequence[str]) -> None:
        if self.has_head():
            self._run(("--literal-pathspecs", "reset", "-q", "--", *paths), check=False)
        else:
            self._run(
                ("--literal-pathspecs", "rm", "-q", "--cached", "--ignore-unmatch", "--", *paths),
                check=False,
            )

    def show_file(self, rev: str, path: str) -> str | None:
        """The text of `path` at `rev`, or None when it is not there."""
        from mini_letta.memory.reading import show_file

        return show_file(self, rev, path)

    def list_files(self, rev: str = "HEAD") -> list[str]:
        """Every file path at `rev`, sorted as git sorts them; [] for an empty repository."""
        from mini_letta.memory.reading import list_files

        return list_files(self, rev)

    def read_blobs(self, rev: str = "HEAD") -> dict[str, bytes]:
        """Every file at `rev` with its bytes, with one git process (memory/reading.py)."""
        from mini_letta.memory.reading import read_blobs

        return read_blobs(self, rev)

    def read_objects(self, shas: Sequence[str]) -> list[bytes]:
        """The contents of objects by sha, in order, with one git process."""
        from mini_letta.memory.reading import read_objects

        return read_objects(self, shas)

    def read_changed_blobs(self, old: str, new: str) -> tuple[dict[str, bytes], dict[str, bytes]]:
        """The files that differ between two commits, as (at `old`, at `new`); two processes."""
        from mini_letta.memory.reading import read_changed_blobs

        return read_changed_blobs(self, old, new)


# Per repository (its common git dir): the config files' stamp and the driver overrides read
# from them. A memo of what those files say, checked against their stamp at every use, so
# never stale (a repository whose config includes another file is never memoised: that file
# is not in the stamp); a worktree with a `config.worktree` of its own replaces the entry.
_DRIVERS: dict[Path, tuple[tuple[int, ...], list[str]]] = {}

_COMMIT = ("commit", "-q", "--no-edit", "--cleanup=whitespace")  # the message comes next

_STAGED = re.compile(r"(?:add|remove) '(.*)'")  # `git add -v` in the C locale


def _staged_names(listing: str) -> list[str] | None:
    """The paths `git add -A -v` says it staged, sorted; None when a line is not one of its
    two shapes (a name with a line break, a translated message)."""
    names: set[str] = set()
    for line in listing.split("\n"):
        if not line:
            continue
        match = _STAGED.fullmatch(line)
        if match is None:
            return None
        names.add(match.group(1))
    return sorted(names)


def _name(args: Sequence[str]) -> str:
    return next((arg for arg in args if not arg.startswith("-")), "git")


def _with_diff_flags(args: Sequence[str], name: str) -> list[str]:
    """`args` with external diff and textconv turned off right after a diff-like subcommand."""
    if name not in DIFF_COMMANDS:
        return list(args)
    at = list(args).index(name) + 1
    return [*args[:at], *DIFF_FLAGS, *args[at:]]


def _failure(name: str, proc: Finished) -> GitError:
    said = _first_line(proc)
    held = _LOCK_EXISTS.search(said)
    if held:  # git's own advice spans several lines; this is it in one
        said = (
            f"{held.group(1)} exists: another git seems to be using the memory "
            "repository; if none is running, remove that file"
        )
    return GitError(f"git {name} failed: {said}")


def _first_line(proc: Finished) -> str:
    for stream in (proc.stderr, proc.stdout):
        for line in stream.decode("utf-8", "replace").splitlines():
            line = line.strip()
            if line:
                return line[:300]
    return f"exit status {proc.returncode}"


def init_memory_repo(
    path: Path,
    persona: str | None = None,
    human: str | None = None,
    *,
    keep: Sequence[str] = (),
    message: str = "Initialize memory",
) -> GitRepo:
    """Create an agent's memory repository, or leave an existing one exactly as it is.

    A new repository gets branch `main`, `system/persona.md` and `system/human.md` (with
    descriptions and short default bodies, unless those files are there already) and one
    initial commit, which also holds the files in `keep`. A repository left half made (git
    init done, no commit) is completed. Raises GitError when git is missing or fails.
    """
    from mini_letta.memory.frontmatter import MemoryFile, render_memory_file
    from mini_letta.memory.layout import (
        DEFAULT_HUMAN,
        DEFAULT_HUMAN_DESCRIPTION,
        DEFAULT_PERSONA,
        DEFAULT_PERSONA_DESCRIPTION,
        HUMAN_FILE,
        PERSONA_FILE,
    )
    from mini_letta.storage.atomic import save_bytes

    ensure_git_available()
    repo = GitRepo(path)
    if repo.exists() and repo.has_head():
        return repo
    path.mkdir(parents=True, exist_ok=True)
    if not repo.exists():
        repo.run("init", "-q")  # on `main`: init.defaultBranch is among the harness's settings
    head = head_file(path)
    if head is None or head[0] != "ref: refs/heads/main":  # an older git, or a half-made repo
        repo.run("symbolic-ref", "HEAD", "refs/heads/main")
    files = {
        PERSONA_FILE: MemoryFile(DEFAULT_PERSONA_DESCRIPTION, _body(persona, DEFAULT_PERSONA)),
        HUMAN_FILE: MemoryFile(DEFAULT_HUMAN_DESCRIPTION, _body(human, DEFAULT_HUMAN)),
    }
    for rel, memory_file in files.items():
        target = path / rel
        if not target.exists():
            save_bytes(target, render_memory_file(memory_file).encode("utf-8"))
    repo.commit_paths(sorted({*files, *keep}), message)
    if not repo.has_head():
        repo.run("commit", "-q", "--allow-empty", "-m", message)
    return repo


def _body(text: str | None, default: str) -> str:
    if not text or not text.strip():
        return default
    return text if text.endswith("\n") else text + "\n"
