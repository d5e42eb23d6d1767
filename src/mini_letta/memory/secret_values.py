"""Judging a candidate credential once a shape has matched: is the value real, or a placeholder,
a code expression, an English word, a year?

The shapes in `secret_patterns` find where a credential would be; these checks keep the names
of things (`password = request.form["password"]`, `API_KEY=<your-key>`, "the password is
required", "密码为 8 到 64 位") from being refused. Each check sees the regex match, and reads
at most a few characters past it, so the scan stays linear.
"""

from __future__ import annotations

import base64
import binascii
import re

_PLACEHOLDER_MARKS = ("<", ">", "${", "{{", "}}", "...", "…", "****", "xxxx", "XXXX")
_PLACEHOLDER_STARTS = ("$", "{", "your", "changeme", "example", "insert", "replace")
_PLACEHOLDER_WORDS = {
    "password", "secret", "token", "none", "null", "nil", "true", "false", "redacted", "hidden",
    "placeholder", "dummy", "string", "required", "optional", "undefined", "empty",
}  # fmt: skip
# A call, an index, or a dotted name: `secrets.token_urlsafe(32)`, `os.environ[`, `cfg.key_v2`.
_CODE = re.compile(r"[A-Za-z_$][\w$]*+(?:\.[A-Za-z_$][\w$]*+)*+(?:[(\[]|$)")
_DOTTED = re.compile(r"[A-Za-z_$][\w$]*+(?:\.[A-Za-z_$][\w$]*+)++$")
# Words that follow "password is" in prose about passwords rather than in a password.
_PROSE_WORDS = {
    "a", "an", "the", "in", "on", "at", "of", "for", "to", "with", "by", "from", "not", "never",
    "always", "still", "also", "only", "just", "now", "too", "very", "your", "my", "our", "their",
    "his", "her", "its", "this", "that", "these", "those", "what", "whatever", "same",
    "different", "required", "incorrect", "invalid", "wrong", "correct", "expired", "empty",
    "missing", "blank", "set", "unset", "sent", "kept", "reset", "weak", "strong", "secure",
    "insecure", "long", "short", "good", "bad", "fine", "ok", "okay", "valid", "visible",
    "unknown", "something", "written", "taken", "known", "easy", "hard", "simple", "complex",
    "safe", "fake", "temporary", "new", "old", "default", "there", "here", "available",
    "sensitive", "case", "being", "going", "optional", "mandatory", "needed", "due", "about",
    "probably", "maybe", "literally", "actually", "really", "supposed", "mine", "yours",
    "ready", "printed", "stored", "saved", "hashed", "encrypted", "and", "but", "or", "so",
    "because", "as", "if", "when", "like", "one", "two", "three", "four", "five", "six",
    "eight", "ten", "twelve", "characters", "chars", "digits", "letters", "login",
}  # fmt: skip
_TECH_WORD = re.compile(
    r"(?i:sha|md|aes|rsa|des|utf|base|bcrypt|argon|pbkdf|hmac|scrypt|crc|ecdsa|ed)[-_0-9a-z]*+$"
)
_SEPARATORS = re.compile(r"[-_.:/]")
_UNITS = set("年月日号號位个個次天小分秒元块塊人条條岁歲")


def placeholder(value: str) -> bool:
    """`<your-token>`, `${DB_PASSWORD}`, `********`, `your_api_key_here`, `changeme`."""
    stripped = value.strip("\"'`")
    lower = stripped.lower()
    if not stripped or lower in _PLACEHOLDER_WORDS:
        return True
    if lower.startswith(_PLACEHOLDER_STARTS) or any(m in stripped for m in _PLACEHOLDER_MARKS):
        return True
    if len(stripped) > 2 and stripped[0] == stripped[-1] == "%":  # %API_KEY%
        return True
    return not set(lower) - set("*x.-_#•")


def mixed(value: str) -> bool:
    """Real keys mix letters and digits; `sk-this-is-prose` does not."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def code(value: str) -> bool:
    """A value that is a program expression, not a literal."""
    if _CODE.match(value) is None:
        return False
    if "(" in value or "[" in value:
        return True
    dotted = _DOTTED.match(value) is not None  # `settings.api_key`, not `UGy1QO9d4.XsKk.g7p`
    return dotted and sum(c.isdigit() for c in value) <= 2


def assigned(match: re.Match[str]) -> bool:
    """`NAME_TOKEN=value`: a literal mixing letters and digits, not a reference, a call or a
    name made of words and numbers (`cache_key = "user_1234_profile"`, `order-2024-0001`)."""
    value = match.group(1)
    return not placeholder(value) and not code(value) and mixed(value) and not _worded(value)


def _worded(value: str) -> bool:
    """Every part between separators is all letters or all digits: an identifier, not a key."""
    return all(part.isalpha() or part.isdigit() for part in _SEPARATORS.split(value) if part)


def assigned_password(match: re.Match[str]) -> bool:
    """`db_pass: value`: as `assigned`, and short or all-digit passwords count too."""
    value = match.group(1)
    if placeholder(value) or code(value):
        return False
    if value.isdigit():
        return len(value) >= 6
    return mixed(value) and len(value) >= 6


def _ascii_letters(value: str) -> bool:
    return any("a" <= c.lower() <= "z" for c in value)


def _prose_word(value: str) -> bool:
    word = value.lower().rstrip(".!?)")
    return word in _PROSE_WORDS or word.endswith("ed") or _TECH_WORD.match(word) is not None


def prose_password(match: re.Match[str]) -> bool:
    """`my password is …`, `the wifi pw is …`, `PIN: 4821`, `password: abcde12`, `the password
    for the NAS is …`; not "the password is required" or "pin the version to 1.2.3"."""
    name = match.group("name").lower()
    separator = match.group("sep").strip().lower()
    value = match.group("value").rstrip(".)")
    worded = separator not in ("", ":", "=", "：") or bool(match.group("quote"))
    if match.group("owner") and separator in ("", ":", "=", "："):
        return False  # "password for the app: …" is a label; "… for the NAS is …" a sentence
    if not separator and name in ("pass", "passcode"):
        return False  # "boarding pass 1234", "the pass 2048"
    if placeholder(value) or code(value) or len(value) < 4:
        return False
    if value.isdigit():
        return len(value) <= 12 and not _unit_after(match, 5)
    if name.startswith("pin"):
        return mixed(value) and not _prose_word(value)
    if mixed(value):
        return len(value) >= (5 if separator else 6) and not _prose_word(value)
    return worded and len(value) >= 6 and _ascii_letters(value) and not _prose_word(value)


def _unit_after(match: re.Match[str], group: int) -> bool:
    """Whether a number is followed by a unit (`2024 年`, `8 位`): a count, not a PIN."""
    after = match.string[match.end(group) : match.end(group) + 3].lstrip()
    return after[:1] in _UNITS


def chinese_password(match: re.Match[str]) -> bool:
    """`密码是 …`, `口令：…`, `密碼為 …`, `银行卡密码是 482913` (not `密码是2024年改的`)."""
    value = match.group(1)
    if placeholder(value) or code(value):
        return False
    if value.isdigit():
        return 4 <= len(value) <= 12 and not _unit_after(match, 1)
    if mixed(value):
        return len(value) >= 5 and _TECH_WORD.match(value) is None
    return len(value) >= 5 and _ascii_letters(value) and not _prose_word(value)


def basic_credentials(match: re.Match[str]) -> bool:
    """`Authorization: Basic …` holding base64 of `user:password`."""
    value = match.group(1)
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    text = decoded.decode("utf-8", "replace")
    user, colon, secret = text.partition(":")
    return bool(colon and secret) and text.isprintable() and not placeholder(secret)


def lowercase_hex(value: str) -> bool:
    return all(c in "0123456789abcdef" for c in value) and mixed(value)
