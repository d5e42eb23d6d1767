"""THE SKILL.md format: YAML frontmatter, then markdown instructions (agentskills.io).

One parser and one validator serve discovery, the Skill tool, `skills validate` and the memory
gate, so a skill is valid everywhere or nowhere. Each broken rule is a `Problem` naming the rule
(`name-charset`, `description-length`, ...). Claude Code's extension keys (`argument-hint`,
`disable-model-invocation`, `user-invocable`, ...) are accepted, so its skills load unchanged;
any other unknown key breaks the standard's `unknown-field` rule. Only the frontmatter is parsed
at discovery: the plain `key: value` shape (and a `metadata:` block of such lines) is read
without yaml, which is imported only for anything else.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from mini_letta.structs import Struct, field

SKILL_FILE = "SKILL.md"
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
MAX_SKILL_BYTES = 256 * 1024  # a SKILL.md past this is refused whole, never read into a prompt
STANDARD_FIELDS = frozenset(
    {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
)
# Claude Code's own keys: its skills must load as they are.
CLIENT_FIELDS = frozenset(
    {
        "argument-hint",
        "disable-model-invocation",
        "user-invocable",
        "model",
        "context",
        "agent",
        "hooks",
        "when_to_use",
        "version",
    }
)
Source = Literal["memory", "project", "user"]
SOURCES: tuple[Source, ...] = ("memory", "project", "user")

_FENCE = re.compile(r"\n---[ \t]*(?:\n|$)")
_GOOD_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_UNSAFE_FIRST = set("-?:,[]{}#&*!|>'\"%@`0123456789+.~<=\\")
_RESERVED = {"null", "true", "false", "yes", "no", "on", "off", "nan", "inf", "~"}


class Problem(Struct, frozen=True):
    """One broken rule of the standard: its short id and what to change."""

    rule: str
    message: str

    def render(self) -> str:
        return f"{self.message} [{self.rule}]"


class SkillFile(Struct, frozen=True):
    """A SKILL.md as parsed: the known fields, the rest of the frontmatter, and the body."""

    name: str
    description: str
    body: str = ""
    license: str = ""
    compatibility: str = ""
    metadata: dict[str, str] = field(default_factory=dict)
    allowed_tools: tuple[str, ...] = ()
    model_invocable: bool = True  # False: `disable-model-invocation: true` (never listed)
    user_invocable: bool = True  # False: no `/name` slash command
    argument_hint: str = ""


class Skill(Struct, frozen=True):
    """A discovered, valid skill and where it came from."""

    file: SkillFile
    source: Source
    label: str  # the source folder as the user knows it, e.g. `.claude/skills`
    folder: Path
    size: int  # bytes of SKILL.md

    @property
    def name(self) -> str:
        return self.file.name

    @property
    def description(self) -> str:
        return self.file.description

    @property
    def skill_file(self) -> Path:
        return self.folder / SKILL_FILE


def split_frontmatter(text: str) -> tuple[str, str] | Problem:
    """(frontmatter block, body) of a normalised text, or the framing rule it breaks."""
    first, sep, rest = text.partition("\n")
    if first.rstrip(" \t") != "---":
        return Problem("frontmatter", "SKILL.md must start with a '---' line (YAML frontmatter)")
    match = _FENCE.search("\n" + rest) if sep else None
    if match is None:
        return Problem("frontmatter", "the frontmatter opened with '---' is never closed")
    rest = "\n" + rest
    return rest[1 : match.start()], rest[match.end() :]


def normalise(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_skill(text: str, folder_name: str | None) -> tuple[SkillFile | None, list[Problem]]:
    """The skill and every rule it breaks; the skill is None when a required part is unusable.

    `folder_name` is the folder the SKILL.md sits in (None skips the name-matches-folder rule).
    """
    split = split_frontmatter(normalise(text))
    if isinstance(split, Problem):
        return None, [split]
    block, body = split
    data = load_block(block)
    if isinstance(data, Problem):
        return None, [data]
    problems = check_fields(data, folder_name)
    name, description = data.get("name"), data.get("description")
    if not isinstance(name, str) or not isinstance(description, str):
        return None, problems
    metadata = data.get("metadata")
    tools = data.get("allowed-tools")
    # Positional, in field order: built for every skill at start-up, and keywords cost more.
    skill = SkillFile(
        _nfkc(name.strip()),  # name
        " ".join(description.split()),  # description
        body,
        _text(data.get("license")),
        _text(data.get("compatibility")),
        _string_map(metadata),
        tuple(tools.replace(",", " ").split() if isinstance(tools, str) else _strings(tools) or ()),
        data.get("disable-model-invocation") is not True,  # model_invocable
        data.get("user-invocable") is not False,  # user_invocable
        _text(data.get("argument-hint")),
    )
    return skill, problems


def check_fields(data: dict[str, Any], folder_name: str | None) -> list[Problem]:
    """Every rule of the standard the frontmatter `data` breaks, in the standard's order."""
    problems: list[Problem] = []
    unknown = sorted(set(data) - STANDARD_FIELDS - CLIENT_FIELDS)
    if unknown:
        problems.append(
            Problem(
                "unknown-field",
                f"unknown frontmatter field(s) {', '.join(unknown)} (the standard allows "
                f"{', '.join(sorted(STANDARD_FIELDS))}; put anything else under metadata)",
            )
        )
    problems += _name_problems(data.get("name"), folder_name)
    problems += _description_problems(data.get("description"))
    if "license" in data and not isinstance(data["license"], str):
        problems.append(Problem("license-type", "'license' must be text (a name or a file)"))
    if "compatibility" in data:
        problems += _compatibility_problems(data["compatibility"])
    if "metadata" in data:
        problems += _metadata_problems(data["metadata"])
    tools = data.get("allowed-tools")
    if "allowed-tools" in data and not isinstance(tools, str) and _strings(tools) is None:
        problems.append(
            Problem(
                "allowed-tools-type",
                "'allowed-tools' must be a space-separated string or a list of strings",
            )
        )
    return problems


def _name_problems(name: object, folder_name: str | None) -> list[Problem]:
    if name is None:
        return [Problem("name-required", "the frontmatter needs 'name' (the folder's name)")]
    if not isinstance(name, str) or not name.strip():
        return [Problem("name-required", "'name' must be non-empty text")]
    name = name.strip()
    if len(name) <= MAX_NAME and _GOOD_NAME.fullmatch(name) and folder_name in (None, name):
        return []  # the usual case, decided without the rules one by one
    name = _nfkc(name)
    problems: list[Problem] = []
    if len(name) > MAX_NAME:
        problems.append(
            Problem("name-length", f"'name' is {len(name)} characters, over {MAX_NAME}")
        )
    if name != name.lower():
        problems.append(Problem("name-lowercase", f"'name' {name!r} must be lowercase"))
    if not all(c.isalnum() or c == "-" for c in name):
        problems.append(
            Problem("name-charset", f"'name' {name!r} may hold only letters, digits and hyphens")
        )
    if name.startswith("-") or name.endswith("-"):
        problems.append(
            Problem("name-hyphen-edge", f"'name' {name!r} must not start or end with a hyphen")
        )
    if "--" in name:
        problems.append(
            Problem("name-double-hyphen", f"'name' {name!r} must not hold consecutive hyphens")
        )
    if folder_name is not None and _nfkc(folder_name) != name:
        problems.append(
            Problem(
                "name-folder",
                f"'name' {name!r} must equal its folder's name {folder_name!r}",
            )
        )
    return problems


def _description_problems(description: object) -> list[Problem]:
    if description is None:
        return [
            Problem(
                "description-required",
                "the frontmatter needs 'description' (what the skill does and when to use it)",
            )
        ]
    if not isinstance(description, str) or not description.strip():
        return [Problem("description-required", "'description' must be non-empty text")]
    if len(description) > MAX_DESCRIPTION:
        return [
            Problem(
                "description-length",
                f"'description' is {len(description)} characters, over {MAX_DESCRIPTION}",
            )
        ]
    return []


def _compatibility_problems(value: object) -> list[Problem]:
    if not isinstance(value, str) or not value.strip():
        return [Problem("compatibility-type", "'compatibility' must be non-empty text")]
    if len(value) > MAX_COMPATIBILITY:
        return [
            Problem(
                "compatibility-length",
                f"'compatibility' is {len(value)} characters, over {MAX_COMPATIBILITY}",
            )
        ]
    return []


def _metadata_problems(value: object) -> list[Problem]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        return [
            Problem(
                "metadata-type",
                "'metadata' must map text keys to text values (quote numbers: version: \"1.0\")",
            )
        ]
    return []


def _strings(value: object) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [item.strip() for item in value if item.strip()]
    return None


def _nfkc(text: str) -> str:
    """Unicode names compare in NFKC (as the reference validator does); ASCII is already so,
    and skipping the import keeps start-up light."""
    if text.isascii():
        return text
    import unicodedata

    return unicodedata.normalize("NFKC", text)


def _string_map(value: object) -> dict[str, str]:
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def load_block(block: str) -> dict[str, Any] | Problem:
    """The frontmatter as a mapping (the fast reader, else yaml), or the YAML problem."""
    fast = _read_simple(block)
    if fast is not None:
        return fast
    import yaml

    try:
        data = yaml.load(block, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at frontmatter line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "could not be parsed"
        return Problem("frontmatter", f"invalid YAML{where}: {problem}")
    if data is None:
        return {}
    if not isinstance(data, dict):
        return Problem("frontmatter", "the frontmatter must be 'key: value' lines")
    return {str(key): value for key, value in data.items()}


def _read_simple(block: str) -> dict[str, Any] | None:
    """`key: value` lines (plain or simply quoted text, or a flow list `[a, b]` of plain words),
    and `key:` blocks of two-space-indented `k: v` lines or `- item` lines.

    None for anything else, which yaml then reads; where this returns, yaml agrees.
    """
    data: dict[str, Any] = {}
    open_key: str | None = None  # the `key:` whose indented lines follow
    lines = block.split("\n") if block else []
    if lines and not lines[-1]:
        lines.pop()  # the newline that ends the last line
    for line in lines:
        if open_key is not None and line.startswith("  ") and not line.startswith("   "):
            if not _add_to_block(data, open_key, line[2:]):
                return None
            continue
        if open_key is not None and data[open_key] is None:
            return None  # `key:` with nothing under it is yaml's null
        open_key = None
        bare = line[:-1]
        if line.endswith(":") and _PLAIN_KEY.fullmatch(bare) and bare.lower() not in _RESERVED:
            if bare in data:
                return None
            open_key, data[bare] = bare, None
            continue
        key, value = _pair(line)
        if key is None or value is None or key in data:
            return None
        data[key] = value
    if open_key is not None and data[open_key] is None:
        return None
    return data


def _add_to_block(data: dict[str, Any], key: str, inner: str) -> bool:
    container = data[key]
    if inner.startswith("- "):
        item = _scalar(inner[2:].strip(" "))
        if container is None:
            container = data[key] = []
        if item is None or not isinstance(container, list):
            return False
        container.append(item)
        return True
    name, value = _pair(inner)
    if container is None:
        container = data[key] = {}
    if name is None or not isinstance(value, str) or not isinstance(container, dict):
        return False
    if name in container:
        return False
    container[name] = value
    return True


def _pair(line: str) -> tuple[str | None, str | list[str] | None]:
    key, sep, raw = line.partition(": ")
    if not sep or not _PLAIN_KEY.fullmatch(key) or key.lower() in _RESERVED:
        return None, None
    raw = raw.strip(" ")
    if raw.startswith("[") and raw.endswith("]"):
        return key, _flow_list(raw[1:-1])
    return key, _scalar(raw)


def _flow_list(inner: str) -> list[str] | None:
    """`a, b` of a flow list whose items are plain words (no indicators); None otherwise."""
    if not inner.strip(" "):
        return []
    items: list[str] = []
    for part in inner.split(","):
        item = part.strip(" ")
        if not item or any(c in item for c in "[]{}:#") or _scalar(item) is None:
            return None
        items.append(item)
    return items


def _scalar(raw: str) -> str | None:
    """The text a bare or simply quoted YAML scalar reads as; None when yaml must decide."""
    if not raw or not raw.isprintable() or "\t" in raw or "\ufeff" in raw:
        return None
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        inner = raw[1:-1]
        if raw[0] in inner or "\\" in inner:
            return None
        return inner
    if raw[0] in _UNSAFE_FIRST or raw.lower() in _RESERVED:
        return None
    if raw.endswith(":") or ": " in raw or " #" in raw or "\\" in raw:
        return None
    return raw
