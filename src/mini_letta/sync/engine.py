"""`memory sync`: fetch, integrate and push the memory, never losing an edit on either side.

The whole sync holds the agent's reflection lease and the memory lock, so it never interleaves
with a memory edit, a reflection run or its merge. The rules:
- integrate by merge, never by rebase, and push without force: published history only grows;
- the merge is computed off to the side (`git merge-tree`) and committed with both parents, then
  the working tree moves to it with a fast-forward, so memory is never left half-merged;
- edits to the same lines keep both versions (sync/conflicts.py); a file one side deleted and the
  other changed is kept, changed;
- a push the remote refuses because it moved is retried after another fetch and merge.
A failure is recorded (sync/state.py) and raised as one line; the local memory keeps working.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from contextlib import suppress

from mini_letta.clock import Clock, format_timestamp
from mini_letta.errors import GitError, MemfsError, MiniLettaError
from mini_letta.home import Home
from mini_letta.memory.gitfiles import git_dirs, stored_ref
from mini_letta.memory.incoming import Arrival, check_arrival, describe_refusal
from mini_letta.memory.remote import (
    BRANCH,
    REMOTE,
    get_remote,
    local_remote_path,
    memory_remote_repo,
    push_options,
    refuse_non_bare_remote,
)
from mini_letta.memory.repo import GitRepo, lock_memory
from mini_letta.structs import Struct, replace
from mini_letta.sync.commits import chain_length, loose_kind
from mini_letta.sync.conflicts import REVIEW_HEADING, brought_for_review, resolve_conflict
from mini_letta.sync.state import (
    SyncState,
    load_sync_state,
    save_sync_state,
    still_needing_review,
)

PUSH_ATTEMPTS = 3
_TRACKING = f"refs/remotes/{REMOTE}/{BRANCH}"
_FETCH_REFSPEC = f"+refs/heads/*:refs/remotes/{REMOTE}/*"
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class SyncError(MiniLettaError):
    """A sync that could not finish; the local memory is as it was or fully merged."""


class SyncOutcome(Struct, frozen=True):
    head: str
    pulled: int  # commits that came from the remote
    pushed: bool
    merged: bool
    needs_review: tuple[str, ...]

    @property
    def summary(self) -> str:
        parts = []
        if self.pulled:
            parts.append(f"pulled {self.pulled} commit(s)")
        if self.merged:
            parts.append("merged both sides")
        if self.pushed:
            parts.append("pushed")
        if not parts:
            parts.append("already in sync")
        line = ", ".join(parts) + f"; memory at {self.head[:7]}"
        if self.needs_review:
            line += f"; needs review: {', '.join(self.needs_review)}"
        return line


def sync_memory(
    home: Home, agent_id: str, clock: Clock, environ: Mapping[str, str] | None = None
) -> SyncOutcome:
    """Sync one agent's memory with its remote (see the module doc); SyncError on failure."""
    from mini_letta.reflection.state.lease import acquire_lease

    memory_dir = home.memory_dir(agent_id)
    state = load_sync_state(home, agent_id, clock)
    attempt = replace(state, last_attempt_at=format_timestamp(clock.now()))
    try:
        repo = memory_remote_repo(memory_dir, environ)
        url = get_remote(repo)
        if url is None:
            raise SyncError(
                "this memory has no remote; set one with `mini-letta memory remote set URL`"
            )
        refuse_non_bare_remote(repo, url)
        run_id = f"sync-{clock.now().strftime('%Y%m%d%H%M%S')}-{os.getpid():x}"
        with (
            acquire_lease(home, agent_id, run_id, clock),
            lock_memory(memory_dir),
        ):
            _undo_interrupted_move(repo, state)
            outcome = _sync(repo, url, clock, _Mover(home, agent_id, attempt))
            with suppress(GitError):  # a failure leaves memory as it is: synced
                repo.pack_if_due()  # what the fetch and merge left (git's own look is off)
    except MiniLettaError as exc:
        failed = replace(
            attempt, last_error=str(exc), error_reported=False, failures=state.failures + 1
        )
        save_sync_state(home, agent_id, failed)
        raise SyncError(f"memory sync failed: {exc}") from exc
    review = still_needing_review(memory_dir, (*state.needs_review, *outcome.needs_review))
    save_sync_state(
        home,
        agent_id,
        SyncState(
            last_attempt_at=attempt.last_attempt_at,
            last_success_at=attempt.last_attempt_at,
            needs_review=review,
        ),
    )
    return replace(outcome, needs_review=review)


class _Mover:
    """Moves the working tree forward to a commit, with the move written down first, so a
    sync killed halfway through the checkout is undone by the next one."""

    def __init__(self, home: Home, agent_id: str, state: SyncState) -> None:
        self.home, self.agent_id = home, agent_id
        self.state = replace(state, moving_from=None, moving_to=None)

    def __call__(self, repo: GitRepo, target: str) -> None:
        moving = replace(self.state, moving_from=repo.head_sha(), moving_to=target)
        save_sync_state(self.home, self.agent_id, moving)
        repo.run("merge", "-q", "--ff-only", target)
        save_sync_state(self.home, self.agent_id, self.state)


def _undo_interrupted_move(repo: GitRepo, state: SyncState) -> None:
    """Put back the files a killed sync's checkout had already moved (see `_Mover`).

    A changed file is put back to HEAD only when it is the move's target's version, whole or
    cut short (git writes a file front to back, so a kill leaves a prefix): all of it is safe
    in git, and this sync merges it again. Anything else (a person's edit) is left alone, and
    the usual "uncommitted changes" refusal follows.
    """
    target = state.moving_to
    if target is None or repo.head_sha() == target:
        return
    for path in repo.changed_paths():
        if not _written_from(repo, path, target):
            continue
        if repo.show_file("HEAD", path) is None:  # the index may have it already
            repo.run("--literal-pathspecs", "rm", "-q", "--cached", "--ignore-unmatch", "--", path)
            (repo.path / path).unlink(missing_ok=True)
        else:
            repo.run("--literal-pathspecs", "checkout", "-q", "HEAD", "--", path)


def _written_from(repo: GitRepo, path: str, commit: str) -> bool:
    """Whether the working file is `commit`'s version or the start of it (both absent counts).
    A symbolic link is compared by where it points, as git stores it, never followed."""
    on_disk = repo.path / path
    current: bytes | None = None
    if on_disk.is_symlink():
        current = os.fsencode(os.readlink(on_disk))
    elif on_disk.is_file():
        current = on_disk.read_bytes()
    code, _ = repo.try_run("cat-file", "-e", f"{commit}:{path}")
    committed = repo.run_bytes("cat-file", "blob", f"{commit}:{path}") if code == 0 else None
    if current is None or committed is None:
        return current is committed
    return committed.startswith(current)


def _sync(repo: GitRepo, url: str, clock: Clock, move: _Mover) -> SyncOutcome:
    _refuse_unclean(repo)
    pulled, merged = 0, False
    conflicts: tuple[str, ...] = ()
    checked = repo.ref_sha(_TRACKING)  # what this machine last took from the remote
    packs = _packs(repo)  # a fetch that brings many objects keeps them as a pack
    refused_push: str | None = None  # what git said when the last push was refused
    for _ in range(PUSH_ATTEMPTS):
        if refused_push is not None or not _holds(url, checked):
            _fetch(repo)
        head = repo.head_sha()
        remote = _tracking_sha(repo, head)
        ahead, behind = _divergence(repo, head, remote)
        if refused_push is not None and not behind:
            raise GitError(f"git push failed: {refused_push}")  # not because the remote moved
        try:
            step = _integrate(repo, head, remote, ahead, behind, clock, move)
        except _Refused as refused:
            kept_a_pack = packs is None or _packs(repo) != packs
            _forget_fetched(repo, checked, kept_a_pack=kept_a_pack)
            raise SyncError(describe_refusal(refused.problems)) from None
        checked = remote
        pulled += step.pulled
        merged = merged or step.merged
        conflicts = (*conflicts, *step.needs_review)
        if remote == step.head:
            return SyncOutcome(step.head, pulled, False, merged, conflicts)
        push = ("push", "-q", "--porcelain", *push_options(url), REMOTE, f"{BRANCH}:{BRANCH}")
        code, said = repo.try_run(*push)
        if code == 0:
            if repo.ref_sha(_TRACKING) != step.head:  # git's push updates it when it can
                repo.run("update-ref", _TRACKING, step.head)
            return SyncOutcome(step.head, pulled, True, merged, conflicts)
        refused_push = said  # the next fetch says whether the remote moved meanwhile
    raise SyncError(
        f"the remote kept moving; gave up after {PUSH_ATTEMPTS} attempts (the last push: "
        f"{refused_push}), try again"
    )


def _integrate(
    repo: GitRepo,
    head: str,
    remote: str | None,
    ahead: int,
    behind: int,
    clock: Clock,
    move: _Mover,
) -> SyncOutcome:
    """Bring the `behind` commits the remote has into memory: a fast-forward when memory has
    none of its own (`ahead`), else a merge."""
    if remote is None or not behind:
        return SyncOutcome(head, 0, False, False, ())
    if not ahead:
        arrival = _check_incoming(repo, head, remote)
        move(repo, remote)
        return SyncOutcome(remote, behind, False, False, brought_for_review(arrival.texts))
    _check_incoming(repo, head, remote)  # what the remote wrote, before any merge of it
    commit, conflicts = _merge_commit(repo, head, remote, clock)
    # and what the merge made of both sides (the messages: the remote's, checked just now,
    # and the merge's own, checked as it was written)
    arrival = _check_incoming(repo, head, commit, messages=False)
    arrived = brought_for_review(arrival.texts)
    move(repo, commit)
    return SyncOutcome(commit, behind, False, True, tuple(dict.fromkeys((*conflicts, *arrived))))


class _Refused(Exception):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def _check_incoming(repo: GitRepo, head: str, target: str, *, messages: bool = True) -> Arrival:
    arrival = check_arrival(repo, head, target, messages=messages)
    if arrival.problems:
        raise _Refused(arrival.problems)
    return arrival


def _forget_fetched(repo: GitRepo, before: str | None, *, kept_a_pack: bool) -> None:
    """Put the tracking branch back and drop the refused objects, so nothing the remote sent
    (a credential in a file or a message) stays in memory's repository: loose objects go with
    a prune; a pack the fetch kept takes a whole repack (`gc`)."""
    if before is None:
        repo.run("update-ref", "-d", _TRACKING)
    else:
        repo.run("update-ref", _TRACKING, before)
    repo.run("reflog", "expire", "--expire=now", "--expire-unreachable=now", _TRACKING)
    if kept_a_pack:
        repo.run("gc", "-q", "--prune=now")
    else:
        repo.run("prune", "--expire=now")


def _packs(repo: GitRepo) -> frozenset[str] | None:
    """The repository's pack files by name; None when they cannot be listed (then every
    refusal repacks)."""
    dirs = git_dirs(repo.path)
    if dirs is None:
        return None
    try:
        return frozenset(p.name for p in (dirs[1] / "objects" / "pack").glob("*.pack"))
    except OSError:
        return None


def _merge_commit(
    repo: GitRepo, head: str, remote: str, clock: Clock
) -> tuple[str, tuple[str, ...]]:
    """The merge of `remote` into `head` as a commit, conflicts resolved by the keep-both rule."""
    tree, conflicted = _merge_tree(repo, head, remote)
    if not conflicted:
        return _commit_tree(repo, tree, head, remote, ()), ()
    when = format_timestamp(clock.now())[:16].replace("T", " ") + " UTC"
    blobs: dict[str, str] = {}
    review: list[str] = []
    for path in conflicted:
        text = repo.show_file(tree, path)
        if text is None:
            continue  # gone on both sides, in different ways: nothing left to keep
        resolution = resolve_conflict(path, text, remote=remote, when=when, local=head)
        blobs[path] = _write_blob(repo, resolution.text)
        if resolution.side_path is not None and resolution.side_text is not None:
            blobs[resolution.side_path] = _write_blob(repo, resolution.side_text)
            review.append(resolution.side_path)
        elif REVIEW_HEADING in resolution.text:
            review.append(path)
    resolved = _replace_blobs(repo, tree, blobs)
    return _commit_tree(repo, resolved, head, remote, tuple(review)), tuple(review)


def _merge_tree(repo: GitRepo, head: str, remote: str) -> tuple[str, list[str]]:
    """(the merged tree, the conflicted paths): `merge-tree` touches no working tree or index."""
    raw = repo.run_bytes(
        "merge-tree", "--write-tree", "-z", "--name-only", head, remote, check=False
    )
    first, _, rest = raw.partition(b"\0")
    tree = first.decode("ascii", "replace").strip()
    if not _SHA.fullmatch(tree):
        raise GitError(f"git merge-tree could not merge {remote[:7]} into {head[:7]}")
    names = rest.split(b"\0\0", 1)[0]
    return tree, sorted({n.decode("utf-8", "replace") for n in names.split(b"\0") if n})


def _replace_blobs(repo: GitRepo, tree: str | None, blobs: Mapping[str, str]) -> str:
    """A copy of `tree` with the files in `blobs` (path -> blob sha) set, new ones added."""
    here: dict[str, str] = {}
    below: dict[str, dict[str, str]] = {}
    for path, sha in blobs.items():
        head, _, rest = path.partition("/")
        if rest:
            below.setdefault(head, {})[rest] = sha
        else:
            here[head] = sha
    entries: dict[str, tuple[str, str, str]] = {}
    listed = repo.run_bytes("ls-tree", "-z", tree) if tree is not None else b""
    for item in listed.split(b"\0"):
        if item:
            meta, _, name = item.decode("utf-8", "replace").partition("\t")
            mode, kind, sha = meta.split()
            entries[name] = (mode, kind, sha)
    for name, sha in here.items():
        entries[name] = ("100644", "blob", sha)
    for name, nested in below.items():
        sub = entries.get(name)
        base = sub[2] if sub is not None and sub[1] == "tree" else None
        entries[name] = ("040000", "tree", _replace_blobs(repo, base, nested))
    listing = "".join(f"{m} {k} {s}\t{n}\0" for n, (m, k, s) in sorted(entries.items()))
    return repo.run_bytes("mktree", "-z", stdin=listing.encode("utf-8")).decode("ascii").strip()


def _write_blob(repo: GitRepo, text: str) -> str:
    out = repo.run_bytes("hash-object", "-w", "--stdin", stdin=text.encode("utf-8"))
    return out.decode("ascii").strip()


def _commit_tree(repo: GitRepo, tree: str, head: str, remote: str, review: tuple[str, ...]) -> str:
    message = f"Merge memory from {REMOTE}/{BRANCH} ({remote[:7]})"
    if review:
        message += "\n\nBoth versions kept; needs review: " + ", ".join(review)
    from mini_letta.memory.secrets import refuse_secret

    refuse_secret(message, "the merge message")  # the one check every memory commit passes
    return repo.run("commit-tree", tree, "-p", head, "-p", remote, "-m", message).strip()


def _refuse_unclean(repo: GitRepo) -> None:
    git_dir = repo.path / ".git"
    for marker in ("MERGE_HEAD", "REVERT_HEAD", "CHERRY_PICK_HEAD", "rebase-merge", "rebase-apply"):
        if (git_dir / marker).exists():
            raise MemfsError(
                "memory has an unfinished git operation (merge, revert or rebase); finish or "
                f"abort it in {repo.path} first"
            )
    changed = repo.changed_paths()
    if changed:
        raise MemfsError(
            f"memory has uncommitted changes ({', '.join(changed[:3])}); commit or discard them "
            "first (`mini-letta memory status`)"
        )
    if repo.current_branch() != BRANCH:
        raise MemfsError(f"memory is not on branch {BRANCH}; check it out first")


def _tracking_sha(repo: GitRepo, head: str) -> str | None:
    """The remote's branch as last fetched, a commit; None when the remote has none yet.
    Read from the files when it is memory's HEAD or a loose commit (nothing to peel)."""
    stored = repo.ref_sha(_TRACKING)
    if stored is None or stored == head:
        return stored
    dirs = git_dirs(repo.path)
    if dirs is not None and loose_kind(dirs[1], stored) == b"commit":
        return stored
    found = repo.run("rev-parse", "-q", "--verify", f"{_TRACKING}^{{commit}}", check=False)
    return found.strip() if _SHA.fullmatch(found.strip()) else None


def _divergence(repo: GitRepo, head: str, remote: str | None) -> tuple[int, int]:
    """(commits only memory has, commits only the remote has): one walk answers both which
    way the two are related and how many commits a pull brings."""
    if remote is None or remote == head:
        return 0, 0
    dirs = git_dirs(repo.path)
    if dirs is not None:  # the usual push or pull: one side a short chain past the other
        ahead = chain_length(dirs[1], head, remote)
        if ahead is not None:
            return ahead, 0
        behind = chain_length(dirs[1], remote, head)
        if behind is not None:
            return 0, behind
    counts = repo.run("rev-list", "--left-right", "--count", f"{head}...{remote}").split()
    if len(counts) != 2 or not all(count.isdigit() for count in counts):
        raise GitError(f"git rev-list could not compare {head[:7]} with {remote[:7]}")
    return int(counts[0]), int(counts[1])


def _holds(url: str, known: str | None) -> bool:
    """Whether the remote is on this machine and its branch is `known` (what was last taken
    from it), read from its files: a fetch would bring nothing, and is the costliest git call of
    a sync (a second git on the remote's side, a check of what came)."""
    path = local_remote_path(url)
    if path is None or not path.is_absolute() or known is None:
        return False
    return stored_ref(path, f"refs/heads/{BRANCH}") == known


def _fetch(repo: GitRepo) -> None:
    """Fetch the remote's branches (a glob, so an empty remote is not an error)."""
    repo.run("fetch", "-q", "--no-tags", "--prune", REMOTE, _FETCH_REFSPEC)
