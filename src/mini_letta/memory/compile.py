"""The system prompt compiled from the committed memory (HEAD), cached by HEAD's sha.

Order (deterministic, locale-independent): base prompt, `<self>` from system/persona.md, every
other system/**.md inlined (folders as nested sections, each file with its description), the
external memory as a tree with descriptions (bounded: memory/listing.py), the skills block
the caller renders (from the frontmatter of skills/<name>/SKILL.md this module hands out with the
section), then a short metadata block. With a `FileCap`, a system file over its budget shows only
what the budget allows, then a visible marker saying what is hidden and how to read it (a large
file costs its budget, not its size). Uncommitted edits are invisible. `PromptCompiler` owns the
cache (in memory and, optionally, a JSON file keyed by sha holding the commit's entries and each
rendering made of them), so an unchanged memory costs one HEAD lookup per call. It compiles
HEAD or any given commit: a conversation keeps the commit its prompt was compiled from
(context/prompt_pin.py), so its prompt stays byte-identical while memory moves on.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath

from mini_letta.errors import CorruptFileError, FrontmatterError, GitError, StorageError
from mini_letta.home import SKILLS_DIR_NAME as SKILLS
from mini_letta.memory.layout import PERSONA_FILE as PERSONA
from mini_letta.memory.repo import GitRepo
from mini_letta.structs import Struct, field, replace

CACHE_SCHEMA_VERSION = 2  # 2: each commit's entries kept, rendered for any budget
_SKILL_HEAD_BYTES = 8192  # a skill's frontmatter is far shorter; the body is loaded on demand
_RENDER_VERSION = 6  # bump when the section format changes, so disk caches are rebuilt
_MARKER_TOKENS = 80  # room kept for the truncation marker inside a capped file's budget

Metadata = Mapping[str, str] | Callable[[], Mapping[str, str]]


class MemoryEntry(Struct, frozen=True):
    """One file as the memory section shows it."""

    path: str
    description: str
    body: str
    first_line: int = 1  # the file's line (1-based) where the body begins

    def to_json(self) -> list[object]:
        return [self.path, self.description, self.body, self.first_line]

    @classmethod
    def from_json(cls, data: object) -> MemoryEntry | None:
        if not isinstance(data, list) or len(data) != 4:
            return None
        path, description, body, first = data
        if not all(isinstance(text, str) for text in (path, description, body)):
            return None
        if not isinstance(first, int) or isinstance(first, bool) or first < 1:
            return None
        return cls(path, description, body, first)


class MemorySnapshot(Struct, frozen=True):
    """What the prompt uses of one commit's files, whatever the budget: the disk cache's
    record of that commit, from which any rendering is made without git."""

    entries: tuple[MemoryEntry, ...]
    skills: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, blobs: Mapping[str, bytes]) -> MemorySnapshot:
        return cls(memory_entries(blobs), memory_skill_texts(blobs))


class FileCap(Struct, frozen=True):
    """The budget of one system file in the prompt, in the tokens `measure` counts."""

    tokens: int
    measure: Callable[[str], int]


class _Folder(Struct):
    files: list[MemoryEntry] = field(default_factory=list)
    folders: dict[str, _Folder] = field(default_factory=dict)


def render_memory_section(repo_path: Path) -> str:
    """The memory section alone (self, system files, external tree, skills) at HEAD."""
    repo = GitRepo(repo_path)
    _require_repo(repo)
    if not repo.has_head():
        return ""
    return build_memory_section(repo.read_blobs("HEAD"))


def assemble_prompt(base: str, section: str, metadata: Mapping[str, str], skills: str = "") -> str:
    parts = [base.strip()]
    if section:
        parts.append(section)
    if skills:
        parts.append(skills)
    if metadata:
        lines = "\n".join(f"- {key}: {value}" for key, value in metadata.items())
        parts.append(f"<memory_metadata>\n{lines}\n</memory_metadata>")
    return "\n\n".join(parts) + "\n"


def build_memory_section(blobs: Mapping[str, bytes], cap: FileCap | None = None) -> str:
    """Render files (path -> bytes, as at HEAD); only `.md` files take part. With `cap`, each
    system file's body is clipped to its budget (the persona too)."""
    return render_entries(memory_entries(blobs), cap)


def memory_entries(blobs: Mapping[str, bytes]) -> tuple[MemoryEntry, ...]:
    """The files the memory section shows, parsed, in its order, any credential redacted (a
    file committed by hand outside mini-letta would otherwise reach the provider and the
    cache); a file outside `system/` keeps only its description, all the section shows of it.
    What the disk cache keeps of a commit: rendering it needs no git and no parsing."""
    from mini_letta.memory.secrets import find_secret  # only when memory is parsed

    system: list[MemoryEntry] = []
    external: list[MemoryEntry] = []
    for path in sorted(blobs, key=_sort_key):
        if not path.endswith(".md") or path.startswith(f"{SKILLS}/"):
            continue  # skills are listed by the skills block, from memory_skill_texts
        entry = _entry(path, blobs[path])
        if path.startswith("system/"):
            system.append(_redacted_entry(entry))
        else:
            external.append(replace(entry, body=""))
    # Thousands of external files are looked at in one scan of their tree lines; one by one
    # only when it finds something.
    if find_secret("\n".join(f"{e.path} — {e.description}" for e in external)) is not None:
        external = [_redacted_entry(entry) for entry in external]
    return tuple(sorted((*system, *external), key=lambda entry: _sort_key(entry.path)))


def render_entries(entries: Sequence[MemoryEntry], cap: FileCap | None = None) -> str:
    """The memory section of `memory_entries`' files, each system file clipped to `cap`."""
    persona: MemoryEntry | None = None
    system = _Folder()
    external: list[MemoryEntry] = []
    for entry in entries:
        path = entry.path
        if cap is not None and path.startswith("system/"):
            entry = _clipped(entry, cap)
        parts = path.split("/")
        if path == PERSONA:
            persona = entry
        elif parts[0] == "system":
            _insert(system, parts[1:], entry)
        else:
            external.append(entry)
    sections: list[str] = []
    if persona is not None:
        sections.append(f'<self path="{_attr(PERSONA)}">\n{_block(persona.body)}</self>')
    if system.files or system.folders:
        sections.append(f"<system_memory>\n{_render_folder(system)}</system_memory>")
    if external:
        from mini_letta.memory.listing import render_bounded_tree

        listed = [(e.path, e.description) for e in external]
        tree = render_bounded_tree(listed, render_tree_lines)
        sections.append(f"<external_memory>\n{tree}\n</external_memory>")
    return "\n\n".join(sections)


def memory_skill_texts(blobs: Mapping[str, bytes]) -> tuple[tuple[str, str], ...]:
    """(path, frontmatter text) of every skills/<name>/SKILL.md: what the prompt lists."""
    found: list[tuple[str, str]] = []
    for path in sorted(blobs, key=_sort_key):
        parts = path.split("/")
        if len(parts) == 3 and parts[0] == SKILLS and parts[2] == "SKILL.md":
            text = blobs[path][:_SKILL_HEAD_BYTES].decode("utf-8", "replace")
            end = text.find("\n---", 3)
            found.append((path, text if end < 0 else text[: end + 4] + "\n"))
    return tuple(found)


UPDATE_NOTE = (
    "Memory was changed outside this conversation (a reflection, the person, or another "
    "conversation). The files below are as they are now; where they differ from the memory "
    "in the system prompt, these are current."
)


def render_memory_update(
    before: Mapping[str, bytes],
    after: Mapping[str, bytes],
    commit: str,
    cap: FileCap | None = None,
) -> str:
    """What changed between two memory snapshots, rendered as the prompt renders memory.

    Changed or new `.md` files appear whole, in their prompt sections; removed ones by path.
    Empty when no `.md` file changed.
    """
    changed = {p: data for p, data in after.items() if p.endswith(".md") and before.get(p) != data}
    removed = sorted((p for p in before if p.endswith(".md") and p not in after), key=_sort_key)
    if not changed and not removed:
        return ""
    parts = [f'<memory_update commit="{commit[:12]}">\n{UPDATE_NOTE}']
    if changed:
        section = build_memory_section(changed, cap)
        if section:
            parts.append(section)
        skills = sorted(p.split("/")[1] for p, _ in memory_skill_texts(changed))
        if skills:
            parts.append(
                "Skills added or changed in memory (skills/<name>/SKILL.md): " + ", ".join(skills)
            )
    if removed:
        parts.append("Removed: " + ", ".join(removed))
    return "\n\n".join(parts) + "\n</memory_update>"


class PromptCompiler:
    """Compiles one memory repo's prompt, caching it by HEAD sha for the life of its owner.

    With `cache_file`, the memory section is also kept on disk (written atomically) so a new
    process with an unchanged memory reads JSON instead of parsing every file again. Metadata
    given as a callable is evaluated when the prompt is (re)compiled, i.e. once per HEAD.
    """

    def __init__(
        self,
        repo_path: Path,
        cache_file: Path | None = None,
        file_cap: Callable[[], FileCap | None] | None = None,
    ) -> None:
        self.repo = GitRepo(repo_path)
        self.cache_file = cache_file
        self.file_cap = file_cap  # asked once, at the first compile: it may load settings
        self._cap: tuple[FileCap | None] | None = None
        self._section_key: str | None = None
        self._section = ""
        self._skills: tuple[tuple[str, str], ...] = ()
        self._prompt_key: tuple[str, str, str] | None = None
        self._prompt = ""
        self.compiles = 0  # how many times the memory was actually rendered (for tests/bench)

    def head(self) -> str:
        _require_repo(self.repo)
        return self.repo.head_sha_or_none() or ""

    def memory_section(self, head: str | None = None) -> str:
        head = self.head() if head is None else head
        if head == self._section_key:
            return self._section
        record = self._read_cache(head)
        renderings = dict(record.memory) if record is not None else {}
        snapshot = record.snapshot if record is not None else None
        section = renderings.get(self._cap_key())
        if section is None:
            if snapshot is None:
                snapshot = MemorySnapshot.of(self.repo.read_blobs(head) if head else {})
            section = render_entries(snapshot.entries, self.budget())
            self.compiles += 1
            renderings[self._cap_key()] = section
            self._save_cached(head, snapshot, renderings)
        assert snapshot is not None  # read with the rendering, or made for it
        self._section_key, self._section, self._skills = head, section, snapshot.skills
        return self._section

    def cap_files(self, file_cap: Callable[[], FileCap | None]) -> None:
        """Clip each system file to the budget `file_cap` gives (asked at the first compile)."""
        self.file_cap, self._cap = file_cap, None
        self._section_key = self._prompt_key = None

    def budget(self) -> FileCap | None:
        """The system files' budget in the prompt (None: uncapped)."""
        if self._cap is None:
            self._cap = (self.file_cap() if self.file_cap is not None else None,)
        return self._cap[0]

    def memory_skills(self, head: str | None = None) -> tuple[tuple[str, str], ...]:
        """(path, frontmatter) of the memory's skills at `head`, read with the section."""
        self.memory_section(head)
        return self._skills

    def compile(
        self, base: str, metadata: Metadata, commit: str | None = None, skills: str = ""
    ) -> str:
        """The prompt at `commit` (default HEAD) with the skills block the caller rendered;
        GitError when that commit cannot be read."""
        head = self.head() if commit is None else commit
        key = (head, base, skills)
        if key == self._prompt_key:
            if not callable(metadata):
                return assemble_prompt(base, self._section, metadata, skills)
            return self._prompt
        section = self.memory_section(head)
        meta = metadata() if callable(metadata) else metadata
        self._prompt_key, self._prompt = key, assemble_prompt(base, section, meta, skills)
        return self._prompt

    def _cap_key(self) -> str:
        cap = self.budget()
        return "whole" if cap is None else str(cap.tokens)

    def _read_cache(self, head: str) -> _CacheRecord | None:
        if self.cache_file is None or not head:
            return None
        return read_prompt_cache(self.cache_file, head)

    def _save_cached(self, head: str, snapshot: MemorySnapshot, memory: dict[str, str]) -> None:
        if self.cache_file is not None and head:
            write_prompt_cache(self.cache_file, head, snapshot, memory)


def seed_prompt_cache(cache_file: Path, memory_dir: Path, paths: Sequence[str]) -> bool:
    """Write the disk cache's record of HEAD from the files at `paths` as they are on disk, when
    they are exactly HEAD's files: their tree, hashed here as git hashes it, is the commit's
    tree (read from its loose object). So a new agent's first prompt, and a reflection before
    its first edit, need no git. False when that cannot be shown (HEAD unreadable, the commit
    packed, any other file or byte): the first compile reads git, as without a cache."""
    from mini_letta.memory.gitfiles import ASK_GIT, commit_tree, read_head, tree_sha

    head = read_head(memory_dir)
    if head is None or head is ASK_GIT:
        return False
    blobs: dict[str, bytes] = {}
    for path in paths:
        try:
            blobs[path] = (memory_dir / path).read_bytes()
        except OSError:
            return False
    if commit_tree(memory_dir, head) != tree_sha(blobs, sha256=len(head) == 64):
        return False
    write_prompt_cache(cache_file, head, MemorySnapshot.of(blobs), {})
    return True


class _CacheRecord(Struct, frozen=True):
    snapshot: MemorySnapshot
    memory: dict[str, str]  # the section per budget ("whole", or the cap's tokens)


def read_prompt_cache(cache_file: Path, head: str) -> _CacheRecord | None:
    """The disk cache's record of commit `head`; None when missing, unreadable, of another
    commit or format, or malformed in any part (derived data: the caller rebuilds it)."""
    from mini_letta.storage.atomic import load_json

    try:
        data = load_json(cache_file)
    except (CorruptFileError, StorageError):
        return None
    if not data or data.get("head") != head or data.get("renderVersion") != _RENDER_VERSION:
        return None
    if data.get("schemaVersion") != CACHE_SCHEMA_VERSION:
        return None
    memory, raw_entries, raw_skills = data.get("memory"), data.get("entries"), data.get("skills")
    if not isinstance(memory, dict) or not all(isinstance(v, str) for v in memory.values()):
        return None
    if not isinstance(raw_entries, list) or not isinstance(raw_skills, list):
        return None
    entries = [MemoryEntry.from_json(item) for item in raw_entries]
    skills = [
        (item[0], item[1])
        for item in raw_skills
        if isinstance(item, list) and len(item) == 2 and all(isinstance(t, str) for t in item)
    ]
    if None in entries or len(skills) != len(raw_skills):
        return None
    snapshot = MemorySnapshot(tuple(e for e in entries if e is not None), tuple(skills))
    return _CacheRecord(snapshot, {str(key): value for key, value in memory.items()})


def write_prompt_cache(
    cache_file: Path, head: str, snapshot: MemorySnapshot, memory: Mapping[str, str]
) -> None:
    """Replace the disk cache with the record of commit `head` (written atomically; a failed
    write is let go: the prompt is correct without its cache, the next compile tries again)."""
    from mini_letta.storage.atomic import save_json

    record = {
        "schemaVersion": CACHE_SCHEMA_VERSION,
        "renderVersion": _RENDER_VERSION,
        "head": head,
        "entries": [entry.to_json() for entry in snapshot.entries],
        "skills": [list(pair) for pair in snapshot.skills],
        "memory": dict(memory),
    }
    with contextlib.suppress(StorageError):
        save_json(cache_file, record)


def _require_repo(repo: GitRepo) -> None:
    if not repo.exists():
        raise GitError(
            f"the memory repository {repo.path} is missing; `mini-letta memory recover` "
            "starts it again (the old folder is kept)"
        )


def _sort_key(path: str) -> tuple[tuple[str, str], ...]:
    return tuple((part.casefold(), part) for part in path.split("/"))


def _entry(path: str, data: bytes) -> MemoryEntry:
    # Only a cache miss parses files: a turn on an unchanged memory never loads the parser.
    from mini_letta.memory.frontmatter import decode_memory_bytes, normalize_text, parse_memory_file

    try:
        text = decode_memory_bytes(data, path)
    except FrontmatterError as exc:
        return MemoryEntry(path, f"(unreadable: {_detail(exc, path)})", "")
    try:
        parsed = parse_memory_file(text, path)
    except FrontmatterError as exc:
        return MemoryEntry(
            path, f"(invalid frontmatter: {_detail(exc, path)})", normalize_text(text)
        )
    first = text.count("\n") - parsed.body.count("\n") + 1
    return MemoryEntry(path, parsed.description, parsed.body, max(1, first))


def _redacted_entry(entry: MemoryEntry) -> MemoryEntry:
    from mini_letta.memory.secrets import redact_secrets  # only when memory is rendered

    texts = (entry.path, entry.description, entry.body)
    redacted = [redact_secrets(text) for text in texts]
    if redacted == list(texts):
        return entry
    return replace(entry, path=redacted[0], description=redacted[1], body=redacted[2])


def _clipped(entry: MemoryEntry, cap: FileCap) -> MemoryEntry:
    """`entry` with its body cut to what its budget allows, whole lines first (a single line
    longer than the budget by characters), and a marker that says how to read the rest."""
    total = cap.measure(entry.body)
    if total <= cap.tokens:
        return entry
    room = max(0, cap.tokens - _MARKER_TOKENS)
    lines = entry.body.split("\n")
    whole = 0  # lines shown whole
    used = 0
    for line in lines:
        size = cap.measure(line) + 1
        if used + size > room:
            break
        whole += 1
        used += size
    kept = lines[:whole]
    if not kept and room:  # one huge first line: as much of it as fits, by characters
        first = lines[0]
        kept = [first[: max(1, len(first) * room // (cap.measure(first) + 1))]]
    hidden = len(lines) - whole  # a line cut short counts as not shown
    resume = entry.first_line + whole
    marker = (
        f"[… {hidden} more line(s) of {entry.path} not shown: the file is ~{total} tokens, over "
        f"its budget of {cap.tokens} in this prompt. Read the rest with Read on this file in "
        f"the memory path, offset={resume}.]"
    )
    return replace(entry, body="\n".join([*kept, marker]))


def _detail(exc: FrontmatterError, path: str) -> str:
    return str(exc).removeprefix(f"{path}: ")


def _insert(folder: _Folder, parts: list[str], entry: MemoryEntry) -> None:
    for name in parts[:-1]:
        folder = folder.folders.setdefault(name, _Folder())
    folder.files.append(entry)


def _render_folder(folder: _Folder, prefix: str = "system/") -> str:
    out: list[str] = []
    for entry in folder.files:
        out.append(
            f'<file path="{_attr(entry.path)}" description="{_attr(entry.description)}">\n'
            f"{_block(entry.body)}</file>\n"
        )
    for name, child in folder.folders.items():
        path = f"{prefix}{name}/"
        out.append(f'<folder path="{_attr(path)}">\n{_render_folder(child, path)}</folder>\n')
    return "".join(out)


def render_tree_lines(entries: list[tuple[str, str]]) -> list[str]:
    """A box-drawing tree of paths, folders first, each file followed by its description."""
    root: dict[str, object] = {}
    for path, description in entries:
        node = root
        parts = PurePosixPath(path).parts
        for name in parts[:-1]:
            child = node.setdefault(name + "/", {})
            assert isinstance(child, dict)
            node = child
        node[parts[-1]] = description
    lines: list[str] = []
    _walk(root, "", lines)
    return lines


def _walk(node: dict[str, object], indent: str, lines: list[str]) -> None:
    names = sorted(node, key=lambda n: (not n.endswith("/"), n.casefold(), n))
    for index, name in enumerate(names):
        last = index == len(names) - 1
        value = node[name]
        branch = "└── " if last else "├── "
        if isinstance(value, dict):
            lines.append(f"{indent}{branch}{name}")
            _walk(value, indent + ("    " if last else "│   "), lines)
        else:
            lines.append(f"{indent}{branch}{name} — {value}")


def _block(body: str) -> str:
    body = body.strip("\n")
    return f"{body}\n" if body else ""


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
