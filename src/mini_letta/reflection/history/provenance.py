"""Where a memory line came from: `memory blame FILE` and `memory why FILE:LINE`.

Blame is `git blame` plus the `Reflection-Run` trailer of each commit (one `git log` for all
of them). Why follows a line to the run that wrote it, then to the messages that run's edits
cited for that line (the run record's `citedLines`), read from the conversations by id within
the run's slices only (never whole logs).
"""

from __future__ import annotations

from datetime import UTC, datetime

from mini_letta.conversations.messages import Message
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import CorruptFileError, MemoryEditError, NotFoundError
from mini_letta.home import Home
from mini_letta.memory.paths import resolve_memory_path
from mini_letta.memory.repo import GitRepo
from mini_letta.reflection.state.records import RunRecord, is_run_id, load_run_record
from mini_letta.structs import Struct

RUN_TRAILER = "Reflection-Run"


class BlameLine(Struct, frozen=True):
    number: int  # 1-based
    text: str
    commit: str
    date: str  # the commit's author date, UTC, to the minute
    run_id: str | None  # the reflection run that wrote it, from the commit's trailer


class Why(Struct, frozen=True):
    line: BlameLine
    record: RunRecord | None
    cited: tuple[str, ...]  # the message ids cited for this line
    messages: tuple[tuple[str, Message], ...]  # (conversation id, message) found among them


def blame_file(memory_dir: GitRepo, path: str, line: int | None = None) -> list[BlameLine]:
    """Each line of `path` at HEAD with the commit, date and run that wrote it."""
    rel = resolve_memory_path(memory_dir.path, path)
    text = memory_dir.show_file("HEAD", rel)
    if text is None:
        raise MemoryEditError(f"{rel} is not in memory (see `mini-letta memory tree`)")
    count = len(text.splitlines())
    if line is not None and not 1 <= line <= count:
        raise MemoryEditError(f"{rel} has lines 1-{count}, not {line}")
    span = ("-L", f"{line},{line}") if line is not None else ()
    output = memory_dir.run("blame", "--line-porcelain", *span, "HEAD", "--", rel)
    lines = _parse_porcelain(output)
    runs = _run_ids(memory_dir, sorted({sha for sha, *_ in lines}))
    return [
        BlameLine(number, text, sha, _date(seconds), runs.get(sha))
        for sha, number, seconds, text in lines
    ]


def why_line(home: Home, agent_id: str, path: str, number: int) -> Why:
    """The messages cited as the evidence of line `number` of `path`."""
    (line,) = blame_file(GitRepo(home.memory_dir(agent_id)), path, number)
    if line.run_id is None or not is_run_id(line.run_id):
        return Why(line, None, (), ())
    try:
        record = load_run_record(home, agent_id, line.run_id)
    except (NotFoundError, CorruptFileError):
        return Why(line, None, (), ())
    rel = resolve_memory_path(home.memory_dir(agent_id), path)
    cited = tuple(record.cited_lines.get(rel, {}).get(line.text.strip(), ()))
    return Why(line, record, cited, _find_messages(home, agent_id, record, set(cited)))


def _find_messages(
    home: Home, agent_id: str, record: RunRecord, wanted: set[str]
) -> tuple[tuple[str, Message], ...]:
    found: list[tuple[str, Message]] = []
    for piece in record.slices:
        if not wanted:
            break
        store = ConversationStore(agent_id, piece.conversation_id, home)
        if not store.exists():
            continue
        for number, message in store.iter_from(piece.start_line):
            if number >= piece.slice_end_line:
                break
            if message.id in wanted:
                found.append((piece.conversation_id, message))
                wanted.discard(message.id)
    return tuple(found)


def _parse_porcelain(output: str) -> list[tuple[str, int, int, str]]:
    rows: list[tuple[str, int, int, str]] = []
    sha, number, seconds = "", 0, 0
    for raw in output.split("\n"):
        if raw.startswith("\t"):
            rows.append((sha, number, seconds, raw[1:]))
        elif raw.startswith("author-time "):
            seconds = int(raw.split()[1])
        else:
            parts = raw.split(" ")
            if len(parts) >= 3 and len(parts[0]) == 40 and parts[2].isdigit():
                sha, number = parts[0], int(parts[2])
    return rows


def _run_ids(repo: GitRepo, shas: list[str]) -> dict[str, str]:
    if not shas:
        return {}
    fmt = f"%H%x00%(trailers:key={RUN_TRAILER},valueonly,separator=%x20)%x01"
    output = repo.run("log", "--no-walk=unsorted", f"--format={fmt}", *shas)
    runs: dict[str, str] = {}
    for entry in output.split("\x01"):
        sha, _, value = entry.strip().partition("\x00")
        if sha and value.strip():
            runs[sha] = value.strip().split()[0]
    return runs


def _date(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M")
