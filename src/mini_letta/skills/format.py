"""THE SKILL.md format: YAML frontmatter, then markdown instructions (agentskills.io).

One parser and one validator serve discovery, the Skill tool, `skills validate` and the memory
gate, so a skill is valid everywhere or nowhere. Each broken rule is a `Problem` naming the rule
(`name-charset`, `description-length`, ...). Claude Code's extension keys (`argument-hint`,
`disable-model-invocation`, `user-invocable`, ...) are accepted, so its skills load unchanged;
any other unknown key breaks the standard's `unknown-field` rule. The frontmatter itself is read
by `frontmatter.py`, without yaml for the usual shapes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from mini_letta.skills.frontmatter import load_block, normalise, split_frontmatter
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

_GOOD_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


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


def parse_skill(text: str, folder_name: str | None) -> tuple[SkillFile | None, list[Problem]]:
    """The skill and every rule it breaks; the skill is None when a required part is unusable.

    `folder_name` is the folder the SKILL.md sits in (None skips the name-matches-folder rule).
    """
    split = split_frontmatter(normalise(text))
    if isinstance(split, str):
        return None, [Problem("frontmatter", split)]
    block, body = split
    data = load_block(block)
    if isinstance(data, str):
        return None, [Problem("frontmatter", data)]
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
