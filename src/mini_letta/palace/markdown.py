"""A small, safe markdown renderer for the palace: one element per source line.

Every source line becomes one element carrying its line number (`data-l`), so the page can show
each line's provenance and findings beside it. Everything is escaped first; links are shown as
text with their address in a tooltip, never as anchors, and images as their alt text, so the
page never loads or leaves for anything. Headings, lists (with task boxes), quotes, rules,
fenced code, table rows, `code`, **strong** and *emphasis* are recognised. Linear time.
"""

from __future__ import annotations

import html
import re

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?(.*)$")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_TABLE_BORDER = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_EM = re.compile(
    r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?!\*)|(?<![\w_])_(?=\S)([^_]+?)(?<=\S)_(?!\w)"
)
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]*)[^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]*)[^)]*\)")


def render_lines(text: str, first_line: int = 1) -> str:
    """HTML for `text`, whose first line is line `first_line` of its file."""
    out: list[str] = []
    fence: str | None = None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the end of the last line, not a line
    front = _frontmatter_end(lines) if first_line == 1 else 0
    for offset, line in enumerate(lines):
        number = first_line + offset
        stripped = line.strip()
        if offset < front:
            out.append(_tag("div", "fm", number, html.escape(line)))
            continue
        if fence is not None:
            if stripped.startswith(fence):
                fence = None
                out.append(_tag("div", "code fence", number, ""))
            else:
                out.append(_tag("div", "code", number, html.escape(line)))
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            language = html.escape(stripped[3:].strip())
            out.append(_tag("div", "code fence", number, language))
            continue
        out.append(_block(line, stripped, number))
    return "".join(out)


def _frontmatter_end(lines: list[str]) -> int:
    """How many lines the frontmatter takes (both fences), 0 without one."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            return index + 1
    return 0


def _block(line: str, stripped: str, number: int) -> str:
    if not stripped:
        return _tag("div", "blank", number, "")
    heading = _HEADING.match(stripped)
    if heading:
        level = len(heading[1])
        return _tag(f"h{min(level + 2, 6)}", "heading", number, render_inline(heading[2]))
    if _RULE.match(line):
        return _tag("div", "rule", number, "")
    item = _ITEM.match(line)
    if item:
        depth = min(len(item[1].expandtabs(4)) // 2, 8)
        marker = item[2] if item[2][0].isdigit() else "•"
        box = ""
        if item[3]:
            box = "☑ " if "x" in item[3].lower() else "☐ "
        body = f'<span class="bullet">{html.escape(marker)}</span>{box}{render_inline(item[4])}'
        return _tag("div", f"item d{depth}", number, body)
    if stripped.startswith(">"):
        return _tag("div", "quote", number, render_inline(stripped.lstrip("> ")))
    if stripped.startswith("|"):
        if _TABLE_BORDER.match(stripped):
            return _tag("div", "row border", number, "")
        cells = [c.strip() for c in stripped.strip("|").split("|")]
        inner = "".join(f'<span class="cell">{render_inline(c)}</span>' for c in cells)
        return _tag("div", "row", number, inner)
    return _tag("p", "para", number, render_inline(stripped))


def render_inline(text: str) -> str:
    """Escaped text with `code`, **strong**, *emphasis* and links shown as text."""
    parts = text.split("`")
    out: list[str] = []
    for index, part in enumerate(parts):
        if index % 2 and index < len(parts) - 1:
            out.append(f"<code>{html.escape(part)}</code>")
            continue
        if index % 2:  # an unclosed backtick is a literal one
            part = "`" + part
        out.append(_decorate(html.escape(part, quote=True)))
    return "".join(out)


def _decorate(escaped: str) -> str:
    escaped = _IMAGE.sub(
        lambda m: f'<span class="image" title="{m[2]}">[image: {m[1]}]</span>', escaped
    )
    escaped = _LINK.sub(lambda m: f'<span class="link" title="{m[2]}">{m[1]}</span>', escaped)
    escaped = _STRONG.sub(lambda m: f"<strong>{m[1] or m[2]}</strong>", escaped)
    return _EM.sub(lambda m: f"<em>{m[1] or m[2]}</em>", escaped)


def _tag(name: str, kind: str, number: int, inner: str) -> str:
    return f'<{name} class="ln {kind}" data-l="{number}">{inner}</{name}>'
