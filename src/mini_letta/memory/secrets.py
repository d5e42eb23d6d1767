"""The secret scanner: credentials must never reach memory, which git keeps forever.

One table of patterns serves `find_secret` (the write gate) and `redact_secrets` (for text that
is shown or sent elsewhere). Patterns are specific shapes (key prefixes, PEM headers, JWTs,
passwords in URLs, `*_KEY=`/`*_TOKEN=` assignments) rather than entropy guesses, so prose, git
shas, uuids and message ids pass. Where two matches overlap, the earlier table entry wins.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SecretMatch:
    kind: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    group: int = 0
    check: Callable[[str], bool] | None = None


def _mixed(value: str) -> bool:
    """Real keys mix letters and digits; `sk-this-is-prose` does not."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _not_placeholder(value: str) -> bool:
    stripped = value.strip("\"'")
    if stripped[:1] in ("$", "<", "{", "%") or stripped.startswith("${"):
        return False
    return len(set(stripped.lower()) - set("*x.-_")) > 0


def _assigned_secret(value: str) -> bool:
    return _not_placeholder(value) and _mixed(value)


_B = r"(?<![A-Za-z0-9_\-])"  # not in the middle of a longer word or token
_E = r"(?![A-Za-z0-9_\-])"
_SECRET_NAME = (
    r"[A-Za-z0-9_.\-]*(?:api[_\-]?key|secret[_\-]?key|access[_\-]?key|private[_\-]?key|"
    r"_key|_token|token|secret|password|passwd|pwd|credentials?)"
)

_PATTERNS: tuple[_Pattern, ...] = (
    _Pattern(
        "private key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)?"
        ),
    ),
    _Pattern("Anthropic API key", re.compile(_B + r"sk-ant-[A-Za-z0-9_\-]{20,}"), check=_mixed),
    _Pattern(
        "OpenAI API key",
        re.compile(_B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
        check=_mixed,
    ),
    _Pattern("Stripe key", re.compile(_B + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}" + _E)),
    _Pattern(
        "AWS access key",
        re.compile(
            r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}"
            r"(?![A-Z0-9])"
        ),
    ),
    _Pattern(
        "GitHub token",
        re.compile(_B + r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})" + _E),
    ),
    _Pattern("GitLab token", re.compile(_B + r"glpat-[A-Za-z0-9_\-]{20,}" + _E)),
    _Pattern("Slack token", re.compile(_B + r"xox[abposr]-[A-Za-z0-9\-]{10,}"), check=_mixed),
    _Pattern(
        "Slack webhook",
        re.compile(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+"),
    ),
    _Pattern("Google API key", re.compile(_B + r"AIza[0-9A-Za-z_\-]{35}" + _E)),
    _Pattern("Hugging Face token", re.compile(_B + r"hf_[A-Za-z0-9]{34,}" + _E), check=_mixed),
    _Pattern("npm token", re.compile(_B + r"npm_[A-Za-z0-9]{36}" + _E)),
    _Pattern("SendGrid key", re.compile(_B + r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _E)),
    _Pattern(
        "JWT",
        re.compile(_B + r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ),
    _Pattern(
        "bearer token",
        re.compile(r"(?i:\bbearer)\s+([A-Za-z0-9\-._~+/]{20,}=*)"),
        group=1,
        check=_assigned_secret,
    ),
    _Pattern(
        "password in URL",
        re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s/:@]+:([^\s/@]+)@[^\s/@]+"),
        group=1,
        check=_not_placeholder,
    ),
    _Pattern(
        "AWS secret key",
        re.compile(
            r"(?i:aws_secret_access_key)[\"']?\s*[=:]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        group=1,
    ),
    _Pattern(
        "secret assignment",
        re.compile(
            r"(?i:" + _SECRET_NAME + r")[\"']?\s*[=:]\s*[\"']?([^\s\"'`,;]{8,})",
        ),
        group=1,
        check=_assigned_secret,
    ),
)


def iter_secrets(text: str) -> Iterator[SecretMatch]:
    """Every credential in `text`, in order, overlaps resolved in favour of the table order."""
    taken: list[SecretMatch] = []
    for pattern in _PATTERNS:
        for match in pattern.regex.finditer(text):
            start, end = match.span(pattern.group)
            if pattern.check is not None and not pattern.check(match.group(pattern.group)):
                continue
            if any(start < other.end and other.start < end for other in taken):
                continue
            taken.append(SecretMatch(pattern.kind, start, end))
    yield from sorted(taken, key=lambda found: found.start)


def find_secret(text: str) -> str | None:
    """The kind of the first credential in `text` (e.g. "OpenAI API key"), or None."""
    for found in iter_secrets(text):
        return found.kind
    return None


def secret_values(text: str) -> set[str]:
    """The matched credential strings themselves (to compare before/after an edit)."""
    return {text[found.start : found.end] for found in iter_secrets(text)}


def kind_slug(kind: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")


def redact_secrets(text: str) -> str:
    """`text` with each credential replaced by `<redacted:KIND-SLUG>`."""
    parts: list[str] = []
    position = 0
    for found in iter_secrets(text):
        parts.append(text[position : found.start])
        parts.append(f"<redacted:{kind_slug(found.kind)}>")
        position = found.end
    parts.append(text[position:])
    return "".join(parts)
