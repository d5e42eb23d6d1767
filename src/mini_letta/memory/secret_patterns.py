"""The table of credential shapes the secret scanner looks for, each anchored on literal text.

Every pattern names the literal strings (`anchors`) that any match contains at a known place,
and a `shape` regex matched at an anchor, never searched: the scanner finds anchors with
`str.find` and runs the shape only there, inside a window of at most `WINDOW` characters after
the anchor and `LOOKBACK` before it. So the work is linear in the input whatever the text;
shapes also use possessive quantifiers so a window is never backtracked over more than once.
Shapes are specific (key prefixes, PEM headers, JWTs, passwords in URLs, `*_KEY=` assignments,
"my password is …", a card number before its CVV) rather than entropy guesses, so prose, git
shas, uuids, hashes and message ids pass; `secret_values` judges the value a shape found. The
table order decides overlaps: specific shapes first, then the generic ones.

A few shapes have no literal prefix (a Telegram bot token is digits, `:AA`, then the secret; a
Discord token is base64, `.`, …): they anchor on the literal part in the middle and count the
`lead` characters before it, at most `LOOKBACK`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from mini_letta.memory import secret_values as values
from mini_letta.structs import Struct

WINDOW = 4096  # the longest credential a shape matches, in characters
LOOKBACK = 96  # how far before its anchor a pattern may look

Check = Callable[[re.Match[str]], bool]
Locate = Callable[[str, int, int], "tuple[int, int] | None"]


class SecretPattern(Struct, frozen=True):
    kind: str
    anchors: tuple[str, ...]  # ASCII-lowercase when `fold`
    shape: str  # regex source, compiled by `compiled` the first time its anchor is seen
    group: int = 0  # the part of the match that is the secret (what redaction replaces)
    check: Check | None = None
    fold: bool = False  # anchors match ASCII case-insensitively
    lead: str = ""  # characters a match extends back over from its anchor ...
    lead_count: tuple[int, int] = (0, 0)  # ... at least and at most this many, then a boundary
    locate: Locate | None = None  # instead of `shape`: (text, anchor, window end) -> span
    tail: str | None = None  # regex source that continues a match that fills its window


_B = r"(?<![A-Za-z0-9_\-])"  # not in the middle of a longer word or token
_E = r"(?![A-Za-z0-9_\-])"
_SEP = r"[\"']?\s*+[=:]\s*+[\"']?"  # `NAME = value`, `"name": "value"`, `name: value`
# A value runs to the next quote, comma or space, and stops at `=` or `:` but for trailing
# padding: the next `NAME=` starts there, so the values of one pattern never overlap.
_VALUE = r"([^\s\"'`,;=:]{{{},}}+=*+)"
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_HEX = "0123456789abcdef"

# A private key block: its header, then body lines (base64, `Name: value` fields, blank lines;
# newlines real or written `\n` in JSON, or flattened to spaces; numbered as `cat -n` and the
# Read tool number them), then its END line if present.
# A block cut short is redacted to where its body stops, not only its header.
_PEM = r"(?:[A-Z0-9]++ )*PRIVATE KEY(?: BLOCK)?-----"
_NL = r"(?:[ \t]*+(?:\r?\n|\\r\\n|\\n)|[ \t]++)"
_BODY_LINE = (
    r"(?:[A-Za-z0-9+/]{16,}+={0,2}+|[A-Za-z0-9+/]*+={1,2}+|[A-Za-z][A-Za-z-]*+: [^\r\n\\]*+)"
)
_END = r"(?:" + _NL + r"*+-----END " + _PEM + r")?+"
_KEY_BODY = r"(?:" + _NL + r"[ \t]*+(?:[0-9]{1,9}+\t)?+" + _BODY_LINE + r"?+)*+" + _END
_KEY_TAIL = r"[A-Za-z0-9+/=]*+" + _KEY_BODY

# What may come before `key` in a secret's name: `api_key`, `SECRET-KEY`, `accessKey`,
# `AccountKey`, `*_key`, `?key=`.
_KEY_OWNER = (
    "(?:"
    + "|".join(
        f"(?<={owner}{sep})"
        for owner in ("api", "secret", "access", "private", "account", "master", "signing")
        for sep in ("", "_", "-")
    )
    + r"|(?<=_)|(?<=[?&]))"
)
# `password`, `passwd`, `pwd`, `pass` (not `bypass`; `smtpPass` is camel case).
_PASS_NAME = r"(?:(?<![A-Za-z])|(?<=[a-z])(?=P))(?i:pass(?:w(?:or)?d|phrase)?|pwd)"

_CVV = (
    r"(?i:cvv2?|cvc2?|cv2|csc|security[ \t]++code|card[ \t]++code)[ \t]*+(?:[:：=#]|is|是)?"
    r"[ \t]*+([0-9]{3,4})(?![0-9])|(?:安全[码碼]|校验码|CVV2?码)[ \t]*+(?:[:：]|是|为|為)?[ \t]*+"
    r"([0-9]{3,4})(?![0-9])"
)
_CARD = r"(?<![0-9])[0-9](?:[ -]?+[0-9]){12,18}+(?![0-9])"


def _card_before_cvv(text: str, position: int, end: int) -> tuple[int, int] | None:
    """A card number (13–19 digits, grouped or not) within LOOKBACK before a CVV and its code:
    the span covers the number, the expiry between and the code."""
    cvv = compiled(_CVV).match(text, position, min(end, position + 48))
    if cvv is None:
        return None
    cards = list(compiled(_CARD).finditer(text, max(0, position - LOOKBACK), position))
    if not cards:
        return None
    card = cards[-1]  # the number nearest the code
    return card.start(), cvv.end(cvv.lastindex or 0)


@functools.cache
def compiled(source: str) -> re.Pattern[str]:
    """A shape's regex, compiled once and only when needed: a scan compiles the shapes whose
    anchors it meets, not the whole table (compiling all of it costs tens of milliseconds)."""
    return re.compile(source)


def _p(kind: str, anchors: tuple[str, ...], shape: str, **options: object) -> SecretPattern:
    return SecretPattern(kind, anchors, shape, **options)  # type: ignore[arg-type]


def _token(kind: str, anchors: tuple[str, ...], shape: str, **options: object) -> SecretPattern:
    """A token with a fixed prefix, not inside a longer word, its body mixing letters and
    digits."""
    options.setdefault("check", _mixed_match)
    return _p(kind, anchors, _B + shape + _E, **options)


def _mixed_match(match: re.Match[str]) -> bool:
    return values.mixed(match.group(0))


def _hex_tail(match: re.Match[str]) -> bool:
    return values.lowercase_hex(match.group(0)[2:])


PATTERNS: tuple[SecretPattern, ...] = (
    _p("private key", ("-----BEGIN ",), r"-----BEGIN " + _PEM + _KEY_BODY, tail=_KEY_TAIL),
    # AI providers
    _token("Anthropic API key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_\-]{20,}+"),
    _p(
        "OpenAI API key",
        ("sk-",),
        _B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}+",
        check=_mixed_match,
    ),
    _token("Hugging Face token", ("hf_",), r"hf_[A-Za-z0-9]{34,}+"),
    # cloud
    _p(
        "AWS access key",
        ("AKIA", "ASIA", "ABIA", "ACCA"),
        r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])",
    ),
    _p(
        "AWS secret key",
        ("aws_secret_access_key",),
        r"(?i:aws_secret_access_key)" + _SEP + r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        group=1,
        fold=True,
    ),
    _token("Google API key", ("AIza",), r"AIza[0-9A-Za-z_\-]{35}", check=None),
    _token("Google OAuth secret", ("GOCSPX-",), r"GOCSPX-[A-Za-z0-9_\-]{24,}+", check=None),
    _token("Google OAuth token", ("ya29.",), r"ya29\.[A-Za-z0-9_\-]{30,}+"),
    _p(
        "Azure client secret",
        ("Q~",),
        r"Q~[A-Za-z0-9_~.\-]{31,34}+(?![A-Za-z0-9_~.\-])",
        lead=_ALNUM + "_~.",
        lead_count=(4, 4),
        check=_mixed_match,
    ),
    _p(
        "Azure SAS signature",
        ("sig=",),
        r"(?<=[?&])sig=([A-Za-z0-9%+/]{30,}+(?:=|%3[Dd])*+)",
        group=1,
    ),
    _token("Alibaba Cloud AccessKey", ("LTAI",), r"LTAI[A-Za-z0-9]{12,28}+"),
    _token("Tencent Cloud SecretId", ("AKID",), r"AKID[A-Za-z0-9]{32}"),
    _token("DigitalOcean token", ("dop_v1_", "doo_v1_", "dor_v1_"), r"do[opr]_v1_[a-f0-9]{64}"),
    # code hosting and CI
    _p(
        "GitHub token",
        ("gh", "github_pat_"),
        _B + r"(?:gh[pousr]_[A-Za-z0-9]{36,}+|github_pat_[A-Za-z0-9_]{22,}+)" + _E,
    ),
    _token(
        "GitLab token",
        ("glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "glft-", "glsoat-", "GR1348941"),
        r"(?:gl(?:pat|dt|ptt|rt|cbt|ft|soat)-|GR1348941)[A-Za-z0-9_\-]{20,}+",
        check=None,
    ),
    _token(
        "CircleCI token", ("CCIPAT_", "CCIPRJ_"), r"CCIP(?:AT|RJ)_[A-Za-z0-9]{20,}+_[a-f0-9]{40}"
    ),
    _token("Bitbucket app password", ("ATBB",), r"ATBB[A-Za-z0-9]{28,}+"),
    _token("Atlassian API token", ("ATATT3", "ATCTT3"), r"AT[AC]TT3[A-Za-z0-9_=\-]{60,}+"),
    _token("Vault token", ("hvs.", "hvb."), r"hv[sb]\.[A-Za-z0-9_\-]{24,}+"),
    _p(
        "Terraform Cloud token",
        (".atlasv1.",),
        r"\.atlasv1\.[A-Za-z0-9_=\-]{60,}+" + _E,
        lead=_ALNUM,
        lead_count=(14, 14),
    ),
    _token(
        "Doppler token",
        ("dp.",),
        r"dp\.(?:st|ct|sa|scim|audit|pt)\.(?:[a-z0-9_\-]++\.)?[A-Za-z0-9]{40,}+",
    ),
    _token("Databricks token", ("dapi",), r"dapi[a-f0-9]{32}(?:-[0-9])?"),
    _token("Postman key", ("PMAK-",), r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    _token("New Relic key", ("NRAK-", "NRII-", "NRJS-"), r"NR(?:AK|II|JS)-[A-Z0-9]{19,}+"),
    _token(
        "Grafana token",
        ("glsa_", "glc_"),
        r"(?:glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}+={0,2})",
    ),
    _token("Linear key", ("lin_api_",), r"lin_api_[A-Za-z0-9]{40}"),
    _token(
        "Notion token", ("secret_", "ntn_"), r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,}+)"
    ),
    _token("Sentry token", ("sntrys_", "sntryu_"), r"sntry[su]_[A-Za-z0-9_+/]{40,}+={0,2}+"),
    _token("Supabase token", ("sbp_",), r"sbp_[a-f0-9]{40}"),
    _token("PlanetScale token", ("pscale_",), r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-]{32,}+"),
    _token("age secret key", ("AGE-SECRET-KEY-1",), r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    # chat and messaging
    _p("Slack token", ("xox",), _B + r"xox[abposre]-[A-Za-z0-9\-]{10,}+", check=_mixed_match),
    _token("Slack app token", ("xapp-",), r"xapp-[0-9]-[A-Z0-9]++-[0-9]++-[a-f0-9]{32,}+"),
    _p(
        "Slack webhook",
        ("https://hooks.slack.com/services/T",),
        r"https://hooks\.slack\.com/services/T[A-Z0-9]++/B[A-Z0-9]++/[A-Za-z0-9]++",
    ),
    _p(
        "Discord webhook",
        ("discord.com/api/webhooks/", "discordapp.com/api/webhooks/"),
        r"discord(?:app)?\.com/api/webhooks/[0-9]{5,}+/[A-Za-z0-9_\-]{40,}+",
    ),
    _p(
        "Discord token",
        (".",),
        r"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}+" + _E,
        lead=_ALNUM,
        lead_count=(23, 28),
        check=_mixed_match,
    ),
    _p(
        "Telegram bot token",
        (":AA",),
        r":AA[A-Za-z0-9_\-]{30,}+" + _E,
        lead="0123456789",
        lead_count=(8, 10),
    ),
    _p(
        "Twilio key",
        ("AC", "SK"),
        r"(?<![A-Za-z0-9])(?:AC|SK)[a-f0-9]{32}(?![A-Za-z0-9])",
        check=_hex_tail,
    ),
    _token("Mailgun key", ("key-",), r"key-[a-z0-9]{32}", check=None),
    _p(
        "Mailgun key",
        ("-",),
        r"-[a-f0-9]{8}-[a-f0-9]{8}(?![A-Za-z0-9\-])",
        lead=_HEX,
        lead_count=(32, 32),
    ),
    _p("Mailchimp key", ("-us",), r"-us[0-9]{1,2}(?![A-Za-z0-9])", lead=_HEX, lead_count=(32, 32)),
    _p(
        "SendGrid key",
        ("SG.",),
        _B + r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _E,
    ),
    _token(
        "Feishu webhook", ("/open-apis/bot/v2/hook/",), r"/open-apis/bot/v2/hook/[0-9a-f\-]{36}"
    ),
    # payments
    _token(
        "Stripe key",
        ("sk_", "rk_", "whsec_"),
        r"(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}+|whsec_[A-Za-z0-9]{32,}+)",
        check=None,
    ),
    _token("Square token", ("sq0",), r"sq0(?:atp|csp|idp)-[A-Za-z0-9_\-]{22,}+"),
    _token("Square or Facebook token", ("EAA",), r"EAA[A-Za-z0-9_\-]{60,}+"),
    _token(
        "Braintree token",
        ("access_token$",),
        r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}",
    ),
    _token("Shopify token", ("shp",), r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}", check=None),
    SecretPattern(
        "payment card",
        ("cvv", "cvc", "cv2", "csc", "security", "card", "安全码", "安全碼", "校验码"),
        _CVV,
        fold=True,
        locate=_card_before_cvv,
    ),
    # package registries
    _token("npm token", ("npm_",), r"npm_[A-Za-z0-9]{36}"),
    _token("PyPI token", ("pypi-AgE",), r"pypi-AgE[A-Za-z0-9_\-]{50,}+", check=None),
    _token("RubyGems key", ("rubygems_",), r"rubygems_[a-f0-9]{48}"),
    _token("NuGet key", ("oy2",), r"oy2[a-z0-9]{43}"),
    _token("Docker Hub token", ("dckr_",), r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{24,}+"),
    # general shapes
    _p(
        "JWT",
        ("eyJ",),
        _B + r"eyJ[A-Za-z0-9_\-]{8,}+\.eyJ[A-Za-z0-9_\-]{8,}+\.[A-Za-z0-9_\-]{8,}+",
    ),
    _p(
        "basic auth",
        ("basic",),
        r"(?i:\bbasic)[ \t]++([A-Za-z0-9+/]{8,}+={0,2}+)(?![A-Za-z0-9+/=])",
        group=1,
        check=values.basic_credentials,
        fold=True,
    ),
    _p(
        "bearer token",
        ("bearer",),
        r"(?i:\bbearer)\s++([A-Za-z0-9\-._~+/]{20,}+=*+)",
        group=1,
        check=values.assigned,
        fold=True,
    ),
    _p(
        "password in URL",
        ("://",),
        r"(?<=[A-Za-z0-9+.\-])://[^\s/:@]*+:([^\s/@]++)@[^\s/@]",
        group=1,
        check=lambda match: not values.placeholder(match.group(1)),
    ),
    _p(
        "secret assignment",
        ("pass", "pwd"),
        _PASS_NAME + _SEP + _VALUE.format(6),
        group=1,
        check=values.assigned_password,
        fold=True,
    ),
    _p(
        "secret assignment",
        ("key", "token", "secret", "credential"),
        r"(?i:" + _KEY_OWNER + r"key|token|secret|credentials?)" + _SEP + _VALUE.format(8),
        group=1,
        check=values.assigned,
        fold=True,
    ),
    _p(
        "password",
        ("pass", "pw", "pin"),
        r"(?<![A-Za-z])"
        r"(?P<name>(?i:pass(?:word|wd|phrase|code)?|pwd?|pin(?:[ \-]?(?:code|number))?))"
        r"(?:[码碼]|(?i:s)?(?![A-Za-z]))"
        r"(?P<owner>[ \t]++(?i:for|on|of|to|at)(?:[ \t]++[^\s:=]{1,24}+){1,3}?)?"
        r"(?P<sep>[ \t]*+[:=：][ \t]*+"
        r"|[ \t]*+(?:是|为|為)[ \t]*+"
        r"|[ \t]++(?i:(?:is|was)(?:[ \t]++now)?|will[ \t]++be|now[ \t]++is)(?![A-Za-z])"
        r"[ \t]*+:?[ \t]*+"
        r"|[ \t]++)"
        r"(?P<quote>[\"'`“‘]?)(?P<value>[^\s\"'`,;:=，。、；”’：]{4,}+=*+)",
        group=5,
        check=values.prose_password,
        fold=True,
    ),
    _p(
        "password",
        ("code",),
        r"(?:"
        + "|".join(
            f"(?<=(?i:{place}) )"
            for place in ("door", "gate", "alarm", "garage", "locker", "safe", "entry")
        )
        + r")(?i:code)(?:[ \t]++(?i:is|was)|[ \t]*+[:=])[ \t]*+([0-9]{4,8})(?![0-9A-Za-z])",
        group=1,
        fold=True,
    ),
    _p(
        "password",
        ("密码", "密碼", "口令", "通关密语", "通關密語"),
        r"(?:密[码碼]|口令|通[关關]密[语語])(?:就|也|还|還)?(?:是|为|為|:|：|=|\s)"
        r"\s*+(?:是|为|為)?[:：]?\s*+[\"'“「『]?"
        r"([^\s\"'`,;，。、；：:”」』\u3000-\u9fff\uff00-\uffef]{4,}+)",
        group=1,
        check=values.chinese_password,
    ),
)
