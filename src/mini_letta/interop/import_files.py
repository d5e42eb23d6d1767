"""`memory import`: other tools' instruction files become memory files, in one commit.

Sources: CLAUDE.md (with its `@path` imports, to a bounded depth, confined to the file's own
folder, cycles ignored), AGENTS.md, CONVENTIONS.md, `.cursor/rules/*.mdc` and any other `.md`.
A folder stands for the known files in it. The block `memory export` writes into an AGENTS.md
is skipped (a file that holds nothing else imports nothing), so a round trip never nests the
export in itself. Tiers:
- a project's files become `projects/<project>/<source>.md`, with a description saying where
  they came from (a Cursor rule keeps its own description, globs and alwaysApply);
- a user-level file (`~/.claude/CLAUDE.md`, `~/.codex/AGENTS.md`) is personal: it becomes a
  marked section of `system/human.md`, replaced (not repeated) when imported again.
Importing the same files twice changes nothing; a secret anywhere refuses the whole import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from mini_letta.errors import FrontmatterError, MemfsError, NotFoundError, SecretDetectedError
from mini_letta.memory.frontmatter import (
    MemoryFile,
    decode_memory_bytes,
    parse_memory_file,
    render_memory_file,
)
from mini_letta.memory.layout import HUMAN_FILE
from mini_letta.memory.secrets import find_secret
from mini_letta.structs import Struct

KNOWN_FILES = ("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "CONVENTIONS.md")
IMPORT_DEPTH = 5
HUMAN = HUMAN_FILE
_IMPORT = re.compile(r"(?<![\w`])@((?:\.{1,2}/|[\w-])[\w./-]*\.(?:md|mdc|txt))\b")
_SLUG = re.compile(r"[^a-z0-9]+")


class Source(Struct, frozen=True):
    path: Path
    personal: bool


class ImportedFile(Struct, frozen=True):
    """One memory file an import writes (`section`: a marked part of system/human.md)."""

    path: str
    source: str
    text: str
    section: bool = False


def find_sources(paths: Sequence[Path], user_home: Path) -> list[Source]:
    """The files to import from files and folders; NotFoundError for a path that has none."""
    found: list[Source] = []
    for given in paths:
        path = given.expanduser().absolute()
        if path.is_dir():
            files = [path / name for name in KNOWN_FILES if (path / name).is_file()]
            files += sorted((path / ".cursor" / "rules").glob("*.mdc"))
            if not files:
                raise NotFoundError(
                    f"{given} holds none of {', '.join(KNOWN_FILES)} or .cursor/rules/*.mdc"
                )
        elif path.is_file():
            files = [path]
        else:
            raise NotFoundError(f"{given} does not exist")
        for file in files:
            personal = _is_personal(file, user_home)
            _confine(file, user_home if personal else _project_dir(file))
            found.append(Source(file, personal))
    return list({source.path: source for source in found}.values())


def _confine(file: Path, folder: Path) -> None:
    """A source (even through a link) must be a file inside its own project (or, for a
    personal file, the user's home): a link elsewhere would import what nobody chose."""
    if not file.resolve().is_relative_to(folder.resolve()):
        raise MemfsError(
            f"{file} is a link to a file outside {folder}; nothing was imported (import the "
            "file it points at by its own path)"
        )


def read_source(path: Path, name: str) -> str:
    """A source's text: a regular file (the link resolved), within the memory tool's size
    limit, UTF-8 without NUL bytes, read without ever blocking on a FIFO or a device."""
    from mini_letta.memory.files import read_plain_bytes

    return decode_memory_bytes(read_plain_bytes(path.resolve(), name), name)


def plan_import(sources: Iterable[Source]) -> list[ImportedFile]:
    """What each source becomes in memory (read-only; secrets and frontmatter checked); a
    source that holds only mini-letta's own export becomes nothing."""
    planned: list[ImportedFile] = []
    for source in sources:
        label = _label(source)
        body = _expand_imports(source.path)
        if not body.strip():
            continue
        kind = find_secret(body)
        if kind:
            raise SecretDetectedError(kind, f"{label} (nothing was imported)")
        if source.personal:
            planned.append(ImportedFile(HUMAN, label, body, section=True))
        else:
            planned.append(ImportedFile(_target(source), label, _project_file(source, body)))
    return planned


def apply_sections(current: str, imported: Sequence[ImportedFile]) -> str:
    """system/human.md with each personal import's marked section added or replaced."""
    text = current
    for item in imported:
        start, end = f"<!-- imported from {item.source} -->", f"<!-- end of {item.source} -->"
        section = f"{start}\n{item.text.strip()}\n{end}\n"
        before, found, rest = text.partition(start)
        if found:
            _, closed, after = rest.partition(end)
            if not closed:
                raise MemfsError(f"{HUMAN}: the section from {item.source} has lost its end mark")
            text = before + section + after.removeprefix("\n")
        else:
            text = text + ("" if text.endswith("\n") else "\n") + "\n" + section
    parse_memory_file(text, HUMAN)
    _check_size(text, HUMAN)
    return text


class ImportResult(Struct, frozen=True):
    changed: tuple[str, ...]  # memory files written
    unchanged: tuple[str, ...]
    sha: str | None  # the import's commit; None when nothing changed
    skipped: tuple[str, ...] = ()  # sources that held only mini-letta's own export


def import_into_memory(memory_dir: Path, paths: Sequence[Path], user_home: Path) -> ImportResult:
    """Import `paths` into memory as one commit under the memory lock (see the module doc)."""
    from mini_letta.memory.edits import MemoryEditPlan
    from mini_letta.memory.history import write_and_commit
    from mini_letta.memory.layout import DEFAULT_HUMAN_DESCRIPTION
    from mini_letta.memory.repo import GitRepo, lock_memory

    sources = find_sources(paths, user_home)
    planned = plan_import(sources)
    skipped = tuple(sorted({_label(s) for s in sources} - {item.source for item in planned}))
    sections = [item for item in planned if item.section]
    files = {item.path: item for item in planned if not item.section}
    with lock_memory(memory_dir):
        targets = [*files, *([HUMAN] if sections else [])]
        dirty = GitRepo(memory_dir).changed_paths(targets)
        if dirty:
            raise MemfsError(
                f"cannot import: memory has uncommitted changes ({', '.join(dirty)}); commit or "
                "discard them first (`mini-letta memory status`)"
            )
        wanted = {path: item.text for path, item in files.items()}
        if sections:
            human = _read(memory_dir / HUMAN) or render_memory_file(
                MemoryFile(DEFAULT_HUMAN_DESCRIPTION, "")
            )
            wanted[HUMAN] = apply_sections(human, sections)
        writes = {
            path: text.encode("utf-8")
            for path, text in wanted.items()
            if _read(memory_dir / path) != text
        }
        unchanged = tuple(sorted(set(wanted) - set(writes)))
        if not writes:
            return ImportResult((), unchanged, None, skipped)
        names = ", ".join(sorted({item.source for item in planned}))
        plan = MemoryEditPlan("import", writes, (), f"imported {names}")
        _, sha = write_and_commit(memory_dir, plan, f"Import {names}")
    return ImportResult(tuple(sorted(writes)), unchanged, sha, skipped)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def _is_personal(path: Path, user_home: Path) -> bool:
    personal = (user_home / ".claude" / "CLAUDE.md", user_home / ".codex" / "AGENTS.md")
    return any(path == candidate.absolute() for candidate in personal)


def _label(source: Source) -> str:
    """How a source is named in commits and sections: from its project, or from ~."""
    if source.personal:
        return f"~/{source.path.parent.name}/{source.path.name}"
    project = _project_dir(source.path)
    return f"{project.name}/{source.path.relative_to(project).as_posix()}"


def _target(source: Source) -> str:
    project = _slug(_project_dir(source.path).name) or "project"
    stem = _slug(source.path.name.rsplit(".", 1)[0]) or "instructions"
    if source.path.suffix == ".mdc":
        stem = f"cursor-rule-{stem}"
    return f"projects/{project}/{stem}.md"


def _project_dir(path: Path) -> Path:
    parent = path.parent
    if parent.name == "rules" and parent.parent.name == ".cursor":
        return parent.parent.parent
    return parent


def _slug(text: str) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")


def _project_file(source: Source, body: str) -> str:
    project = _project_dir(source.path).name
    description = f"Conventions of the {project} project, imported from {source.path.name}."
    extra: dict[str, object] = {}
    if source.path.suffix == ".mdc":
        try:
            rule = parse_memory_file(read_source(source.path, source.path.name), source.path.name)
        except FrontmatterError:
            rule = None
        if rule is not None:
            description = rule.description or description
            body = _expand_imports(source.path, text=rule.body)
            extra = {k: v for k, v in rule.extra.items() if k in ("globs", "alwaysApply")}
    if not body.endswith("\n"):
        body += "\n"
    text = render_memory_file(MemoryFile(description, body, False, extra))
    parse_memory_file(text, _target(source))
    _check_size(text, _label(source))
    return text


def _check_size(text: str, label: str) -> None:
    from mini_letta.memory.files import MAX_FILE_CHARS

    if len(text) > MAX_FILE_CHARS:
        raise MemfsError(
            f"{label} would be {len(text)} characters in memory, past the limit of "
            f"{MAX_FILE_CHARS}; nothing was imported"
        )


def _expand_imports(path: Path, *, text: str | None = None) -> str:
    """The file's text, with each `@path` it imports appended once as a section.

    Imports resolve against the importing file's folder and must stay inside the root file's
    folder; deeper than IMPORT_DEPTH, outside, missing or already included: left as written.
    """
    from mini_letta.interop.export_files import without_block

    root = _project_dir(path).resolve()
    main = without_block(read_source(path, path.name) if text is None else text, path.name)
    if not main.strip():
        return ""
    seen = {path.resolve()}
    sections: list[str] = []
    pending = [(path.resolve().parent, main, 1)]
    while pending:
        folder, content, depth = pending.pop(0)
        if depth > IMPORT_DEPTH:
            continue
        for match in _IMPORT.finditer(_outside_code(content)):
            target = (folder / match.group(1)).resolve()
            if target in seen or not target.is_file() or not target.is_relative_to(root):
                continue
            seen.add(target)
            rel = PurePosixPath(target.relative_to(root).as_posix())
            imported = read_source(target, f"@{rel}")
            sections.append(f"\n## Imported from @{rel}\n\n{imported.strip()}\n")
            pending.append((target.parent, imported, depth + 1))
    return main.rstrip("\n") + "\n" + "".join(sections)


def _outside_code(text: str) -> str:
    """The text with fenced code blocks and inline code blanked, where `@x` is no import."""
    kept: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            kept.append("")
            continue
        kept.append("" if fenced else re.sub(r"`[^`]*`", "", line))
    return "\n".join(kept)
