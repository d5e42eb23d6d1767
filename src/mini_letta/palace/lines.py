"""Every memory line's origin and memory's size over time, from one `git log` of main.

`memory blame` runs `git blame` once per file; a palace of a thousand files cannot pay a
thousand processes. Instead the first-parent history of `main` is read once, oldest first, as
zero-context diffs (`-U0`), and replayed: each file is a list of lines, each line remembers the
commit that wrote it. A fast-forwarded reflection commit carries its `Reflection-Run` trailer;
a merge commit is the run whose record names it (`merge_for_run`). The replay also gives the
memory's size after every commit. Linear in the size of the history's diffs.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping

from mini_letta.llm.tokens import estimate_tokens
from mini_letta.memory.repo import GitRepo
from mini_letta.structs import Struct, field

RUN_TRAILER = "Reflection-Run"
_MARK = "\x1e"
_SEP = "\x1f"
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class Commit(Struct, frozen=True):
    sha: str
    parents: tuple[str, ...]
    seconds: int  # author time, Unix seconds
    run_id: str | None  # from the Reflection-Run trailer (a fast-forwarded run's commit)
    subject: str


class SizePoint(Struct, frozen=True):
    commit: int  # index into LineHistory.commits
    files: int
    tokens: int  # the estimated tokens of every .md file at that commit


class LineHistory(Struct):
    commits: list[Commit] = field(default_factory=list)
    lines: dict[str, list[str]] = field(default_factory=dict)  # path -> text of each line
    origins: dict[str, list[int]] = field(default_factory=dict)  # path -> commit index per line
    sizes: list[SizePoint] = field(default_factory=list)


def load_line_history(repo: GitRepo) -> LineHistory:
    """Replay `main`'s first-parent history; empty before the first commit."""
    history = LineHistory()
    if not repo.has_head():
        return history
    trailer = f"%(trailers:key={RUN_TRAILER},valueonly,separator=%x20)"
    fmt = f"{_MARK}%H{_SEP}%P{_SEP}%at{_SEP}{trailer}{_SEP}%s"
    raw = repo.run_bytes(
        "-c", "core.quotePath=false", "log", "--first-parent", "--reverse", "--no-renames",
        "-p", "-U0", "--no-color", "--diff-merges=first-parent", f"--format={fmt}", "HEAD",
    )  # fmt: skip
    replay = _Replay(history)
    for chunk in raw.decode("utf-8", "replace").split(_MARK)[1:]:
        header, _, diff = chunk.partition("\n")
        replay.commit(_parse_commit(header), diff)
    return history


def _parse_commit(header: str) -> Commit:
    sha, parents, seconds, trailer, subject = (header.split(_SEP, 4) + [""] * 5)[:5]
    run = trailer.strip().split()[0] if trailer.strip() else None
    stamp = int(seconds) if seconds.strip().isdigit() else 0
    return Commit(sha.strip(), tuple(parents.split()), stamp, run, subject.strip())


class _Replay:
    def __init__(self, history: LineHistory) -> None:
        self.history = history
        self.tokens: dict[str, int] = {}

    def commit(self, commit: Commit, diff: str) -> None:
        index = len(self.history.commits)
        self.history.commits.append(commit)
        touched: set[str] = set()
        path: str | None = None
        offset = 0
        hunk: tuple[int, int] | None = None  # (position in the file, lines still to remove)
        added: list[str] = []
        for raw in diff.split("\n"):
            if raw.startswith("diff --git "):
                self._apply(path, hunk, added, index)
                path, hunk, added, offset = None, None, [], 0
            elif raw.startswith("--- ") and hunk is None:
                source = _diff_path(raw[4:], "a/")
                if source is not None:
                    path = source
            elif raw.startswith("+++ ") and hunk is None:
                target = _diff_path(raw[4:], "b/")
                if target is None and path is not None:  # deleted
                    self._drop(path)
                    touched.add(path)
                    path = None
                elif target is not None:
                    path = target
            elif raw.startswith("@@ ") and path is not None:
                self._apply(path, hunk, added, index)
                added = []
                match = _HUNK.match(raw)
                if match is None:
                    hunk = None
                    continue
                start, count = int(match[1]), int(match[2] or "1")
                new_count = int(match[4] or "1")
                position = (start - 1 if count else start) + offset
                hunk = (position, count)
                offset += new_count - count
                touched.add(path)
            elif hunk is not None and raw.startswith("+"):
                added.append(raw[1:])
        self._apply(path, hunk, added, index)
        self._measure(index, touched)

    def _apply(
        self, path: str | None, hunk: tuple[int, int] | None, added: list[str], index: int
    ) -> None:
        if path is None or hunk is None:
            return
        position, count = hunk
        lines = self.history.lines.setdefault(path, [])
        origins = self.history.origins.setdefault(path, [])
        position = max(0, min(position, len(lines)))
        lines[position : position + count] = added
        origins[position : position + count] = [index] * len(added)

    def _drop(self, path: str) -> None:
        self.history.lines.pop(path, None)
        self.history.origins.pop(path, None)

    def _measure(self, index: int, touched: set[str]) -> None:
        for path in touched:
            if path.endswith(".md") and path in self.history.lines:
                self.tokens[path] = estimate_tokens("\n".join(self.history.lines[path]))
            else:
                self.tokens.pop(path, None)
        self.history.sizes.append(SizePoint(index, len(self.tokens), sum(self.tokens.values())))


def _diff_path(text: str, prefix: str) -> str | None:
    text = text.rstrip("\t")
    if text == "/dev/null":
        return None
    if text.startswith('"') and text.endswith('"'):  # git quotes unusual names C-style
        text = codecs.escape_decode(text[1:-1].encode("utf-8"))[0].decode("utf-8", "replace")
    return text.removeprefix(prefix)


def runs_by_merge(merges: Mapping[str, str], history: LineHistory) -> list[str | None]:
    """Each commit's reflection run: its trailer, or the run whose record names it as its
    merge (`merges`: merge commit -> run id)."""
    return [commit.run_id or merges.get(commit.sha) for commit in history.commits]
