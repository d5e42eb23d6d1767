"""The table of credential shapes the secret scanner looks for, each anchored on literal text.

Every pattern names the literal strings (`anchors`) that any match contains at a known place,
and a `shape` regex matched at an anchor, never searched: the scanner finds anchors with
`str.find` and runs the shape only there, inside a window of at most `WINDOW` characters. So
the work is linear in the input whatever the text; shapes also use possessive quantifiers so a
window is never backtracked over more than once. Shapes are specific (key prefixes, PEM headers,
JWTs, passwords in URLs, `*_KEY=` assignments, "my password is …") rather than entropy guesses,
so prose, git shas, uuids and message ids pass. The table order decides overlaps.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mini_letta.structs import Struct

WINDOW = 4096  # the longest credential a shape matches, in characters


class SecretPattern(Struct, frozen=True):
    kind: str
    anchors: tuple[str, ...]  # ASCII-lowercase when `fold`
    shape: re.Pattern[str]
    group: int = 0
    check: Callable[[str], bool] | None = None
    fold: bool = False  # anchors match ASCII case-insensitively
    closing: tuple[str, re.Pattern[str]] | None = None  # a block's last line (anchor, shape)


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


def _prose_password(value: str) -> bool:
    ascii_letters = any("a" <= c.lower() <= "z" for c in value)
    return _not_placeholder(value) and ascii_letters and any(c.isdigit() for c in value)


_B = r"(?<![A-Za-z0-9_\-])"  # not in the middle of a longer word or token
_E = r"(?![A-Za-z0-9_\-])"
_SEP = r"[\"']?\s*+[=:]\s*+[\"']?"  # `NAME = value`, `"name": "value"`, `name: value`
_PEM = r"(?:[A-Z0-9]++ )*PRIVATE KEY(?: BLOCK)?-----"


def _p(kind: str, anchors: tuple[str, ...], shape: str, **options: object) -> SecretPattern:
    return SecretPattern(kind, anchors, re.compile(shape), **options)  # type: ignore[arg-type]


# What may come before `key` in a secret's name: `api_key`, `SECRET-KEY`, `accessKey`, `*_key`.
_KEY_OWNER = (
    "(?:"
    + "|".join(
        f"(?<={owner}{sep})"
        for owner in ("api", "secret", "access", "private")
        for sep in ("", "_", "-")
    )
    + "|(?<=_))"
)


PATTERNS: tuple[SecretPattern, ...] = (
    _p(
        "private key",
        ("-----BEGIN ",),
        r"-----BEGIN " + _PEM,
        closing=("-----END ", re.compile("-----END " + _PEM)),
    ),
    _p("Anthropic API key", ("sk-ant-",), _B + r"sk-ant-[A-Za-z0-9_\-]{20,}+", check=_mixed),
    _p(
        "OpenAI API key",
        ("sk-",),
        _B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}+",
        check=_mixed,
    ),
    _p(
        "Stripe key",
        ("sk_", "rk_"),
        _B + r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}+" + _E,
    ),
    _p(
        "AWS access key",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
        r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])",
    ),
    _p(
        "GitHub token",
        ("gh", "github_pat_"),
        _B + r"(?:gh[pousr]_[A-Za-z0-9]{36,}+|github_pat_[A-Za-z0-9_]{22,}+)" + _E,
    ),
    _p("GitLab token", ("glpat-",), _B + r"glpat-[A-Za-z0-9_\-]{20,}+" + _E),
    _p(
        "Slack token",
        ("xox",),
        _B + r"xox[abposr]-[A-Za-z0-9\-]{10,}+",
        check=_mixed,
    ),
    _p(
        "Slack webhook",
        ("https://hooks.slack.com/services/T",),
        r"https://hooks\.slack\.com/services/T[A-Z0-9]++/B[A-Z0-9]++/[A-Za-z0-9]++",
    ),
    _p("Google API key", ("AIza",), _B + r"AIza[0-9A-Za-z_\-]{35}" + _E),
    _p("Hugging Face token", ("hf_",), _B + r"hf_[A-Za-z0-9]{34,}+" + _E, check=_mixed),
    _p("npm token", ("npm_",), _B + r"npm_[A-Za-z0-9]{36}" + _E),
    _p("SendGrid key", ("SG.",), _B + r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _E),
    _p(
        "JWT",
        ("eyJ",),
        _B + r"eyJ[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+",
    ),
    _p(
        "bearer token",
        ("bearer",),
        r"(?i:\bbearer)\s++([A-Za-z0-9\-._~+/]{20,}+=*+)",
        group=1,
        check=_assigned_secret,
        fold=True,
    ),
    _p(
        "password in URL",
        ("://",),
        r"(?<=[A-Za-z0-9+.\-])://[^\s/:@]++:([^\s/@]++)@[^\s/@]",
        group=1,
        check=_not_placeholder,
    ),
    _p(
        "AWS secret key",
        ("aws_secret_access_key",),
        r"(?i:aws_secret_access_key)" + _SEP + r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        group=1,
        fold=True,
    ),
    _p(
        "secret assignment",
        ("key", "token", "secret", "passw", "pwd", "credential"),
        r"(?i:"
        + _KEY_OWNER
        + r"key|token|secret|passw(?:or)?d|pwd|credentials?)"
        + _SEP
        + r"([^\s\"'`,;]{8,}+)",
        group=1,
        check=_assigned_secret,
        fold=True,
    ),
    _p(
        "password",
        ("pass",),
        r"(?i:pass(?:word|wd|phrase))s?[ \t]++(?i:is|was)(?![A-Za-z])[ \t]*+[:=]?[ \t]*+"
        r"[\"'`“]?([^\s\"'`,;，。、；”]{6,}+)",
        group=1,
        check=_prose_password,
        fold=True,
    ),
    _p(
        "password",
        ("密码", "口令"),
        r"(?:密码|口令)(?:是|为|:|：|=)\s*+[\"'“「]?([^\s\"'`,;，。、；”」]{6,}+)",
        group=1,
        check=_prose_password,
    ),
)
