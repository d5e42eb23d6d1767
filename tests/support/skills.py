"""Skill folders for tests: a SKILL.md (and any bundled files) written where a source looks."""

from __future__ import annotations

from pathlib import Path


def write_skill(
    root: Path,
    name: str,
    description: str = "",
    body: str = "Do the thing.\n",
    *,
    frontmatter: str | None = None,
    files: dict[str, str] | None = None,
) -> Path:
    """`root/<name>/SKILL.md`; `frontmatter` replaces the generated name/description lines."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    head = (
        frontmatter
        if frontmatter is not None
        else (f"name: {name}\ndescription: {description or f'Use {name} when asked to {name}.'}\n")
    )
    (folder / "SKILL.md").write_text(f"---\n{head}---\n{body}", encoding="utf-8")
    for rel, text in (files or {}).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder
