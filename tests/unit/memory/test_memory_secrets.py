"""The secret scanner: every planted shape is found and named; ordinary text is not."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from mini_letta.memory.secrets import (
    _VERDICTS,
    _scan,
    _Verdicts,
    find_secret,
    kind_slug,
    redact_secrets,
    scan_secrets,
)
from support.secrets import NOT_PASTED_SECRETS, NOT_SECRETS, PASTED_SECRETS, PLANTED_SECRETS


def _assert_each(cases: Iterable[tuple[str, ...]], problem: Callable[..., str | None]) -> None:
    """Every (id, *fields) case checked by `problem(*fields)`; the failure lists each wrong case
    by its id and what was wrong."""
    wrong = [f"{case[0]}: {why}" for case in cases if (why := problem(*case[1:])) is not None]
    assert not wrong, "\n".join(wrong)


def _named(kind: str | None, *texts: str) -> str | None:
    """Why the scanner does not name `kind` (None: nothing) in each of `texts`, or None."""
    for text in texts:
        if (found := find_secret(text)) != kind:
            return f"found {found!r} in {text!r}, not {kind!r}"
    return None


def _redacted(text: str, kind: str) -> str | None:
    """Why redacting `text` does not leave its kind's marker and nothing findable, or None."""
    redacted = redact_secrets(text)
    if f"<redacted:{kind_slug(kind)}>" not in redacted:
        return f"no <redacted:{kind_slug(kind)}> in {redacted!r}"
    found = find_secret(redacted)
    return None if found is None else f"{found!r} still found in {redacted!r}"


def test_secrets_find_names_the_kind():
    _assert_each(
        PLANTED_SECRETS,
        lambda text, kind: _named(kind, text, f"some words before\n{text}\nand after"),
    )


def test_secrets_redact_leaves_nothing_findable():
    _assert_each(PLANTED_SECRETS, lambda text, kind: _redacted(text, kind))


def test_secrets_ordinary_text_passes():
    def problem(text: str) -> str | None:
        return _named(None, text) or (
            None if redact_secrets(text) == text else "redaction changed it"
        )

    _assert_each(NOT_SECRETS, problem)


def test_secrets_what_people_paste_is_found_named_and_redacted():
    _assert_each(
        PASTED_SECRETS,
        lambda text, kind: _named(kind, f"note: {text}\nend") or _redacted(text, kind),
    )


def test_secrets_text_about_credentials_passes():
    _assert_each(NOT_PASTED_SECRETS, lambda text: _named(None, text))


def test_secrets_card_redaction_covers_the_number_expiry_and_code():
    text = "pay with 4111 1111 1111 1111 exp 04/28 cvv 123 please"
    assert redact_secrets(text) == "pay with <redacted:payment-card> please"


BODY = ["MIIEpAIBAAKCAQEAz3k8Vq2Lx9Pm4Nb7Cc1Dd5Ee0Ff3Gg6Hh9Ii2Jj5Kk8Ll1Mm4N", "b7Oo0Pp3Qq6Rr9Ss2Tt"]


BLOCKS_WITHOUT_END = [
    ("pem", "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(BODY)),
    ("crlf", "-----BEGIN OPENSSH PRIVATE KEY-----\r\n" + "\r\n".join(BODY) + "\r\n"),
    ("json-escaped", "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(BODY)),
    ("flattened", "-----BEGIN PRIVATE KEY----- " + " ".join(BODY)),  # newlines to spaces
    (
        "encrypted-headers",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\n" + "\n".join(BODY),
    ),
    ("indented", "  -----BEGIN EC PRIVATE KEY-----\n    " + "\n    ".join(BODY)),  # YAML
]


def test_secrets_key_block_without_end_is_redacted_to_the_end_of_its_body():
    def problem(block: str) -> str | None:
        redacted = redact_secrets(f"here is my key\n{block}\n\nthanks, that was all")
        if any(part in redacted for part in (BODY[0][:20], BODY[1])):
            return f"body left in {redacted!r}"
        whole = redacted.startswith("here is my key\n") and redacted.endswith("that was all")
        return None if whole else f"text around it lost: {redacted!r}"

    _assert_each(BLOCKS_WITHOUT_END, problem)


def test_secrets_key_block_with_end_is_redacted_whole_and_only_itself():
    block = (
        "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(BODY) + "\n-----END RSA PRIVATE KEY-----"
    )
    assert redact_secrets(f"a\n{block}\nb") == "a\n<redacted:private-key>\nb"


def test_secrets_first_kind_is_the_earliest():
    text = "first ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 then AKIAIOSFODNN7EXAMPLE"
    assert find_secret(text) == "GitHub token"
    assert redact_secrets(text) == "first <redacted:github-token> then <redacted:aws-access-key>"


def test_secrets_assignment_keeps_the_name():
    assert redact_secrets("DEPLOY_TOKEN=abc123def456ghi") == (
        "DEPLOY_TOKEN=<redacted:secret-assignment>"
    )


PROSE_PASSWORDS = [
    ("password-is-colon", "password is: Pl4ntedPassw0rd08"),
    ("my-password-is", "my password is hunter2X9"),
    ("password-was", "The Wi-Fi password was 'c0ffeeBeans7' until Monday"),
    ("password-in-backticks", "the staging password is `st4gingPass`"),
    ("chinese-is", "密码是 Pl4ntedPassw0rd08"),
    ("chinese-colon", "服务器口令：Pl4nted2024"),
    ("chinese-for", "数据库密码为abc12345"),
]
PROSE_NOT_PASSWORDS = [
    ("field-required", "the password field is required"),
    ("is-required", "the password is required and must be long"),
    ("is-in-vault", "my password is in the vault, ask Ana"),
    ("chinese-not-here", "密码是什么不重要，不要记下来"),
    ("passwords-are-rotated", "passwords are rotated every 90 days"),
]


def test_secrets_prose_password_is_found():
    def problem(text: str) -> str | None:
        if find_secret(text) is None:
            return "not found"
        return None if "<redacted:" in redact_secrets(text) else "not redacted"

    _assert_each(PROSE_PASSWORDS, problem)


def test_secrets_prose_about_passwords_passes():
    _assert_each(PROSE_NOT_PASSWORDS, lambda text: _named(None, text))


def test_secrets_prose_password_redacts_only_the_value():
    assert (
        redact_secrets("my password is hunter2X9, ok") == "my password is <redacted:password>, ok"
    )


def test_secrets_private_key_block_is_redacted_whole_among_many_headers():
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1x2y3z\n-----END RSA PRIVATE KEY-----"
    text = "-----BEGIN PRIVATE KEY-----\n" * 500 + block + "\nafter"
    redacted = redact_secrets(text)
    assert "MIIEow" not in redacted
    assert redacted.endswith("<redacted:private-key>\nafter")


def test_secrets_token_longer_than_the_window_is_redacted_whole():
    token = "eyJhbGciOiJIUzI1NiJ9.eyJ" + "a1" * 1_000 + ".sig" + "b2" * 3_000
    assert redact_secrets(f"jwt {token} end") == "jwt <redacted:jwt> end"


def test_secrets_many_keys_are_all_redacted():
    text = "id AKIAIOSFODNN7EXAMPLE, " * 20_000
    redacted = redact_secrets(text)
    assert redacted.count("<redacted:aws-access-key>") == 20_000
    assert "AKIA" not in redacted


def test_secrets_a_remembered_verdict_is_the_scan_itself():
    """A text judged again is answered from memory, the same matches as a fresh scan, and a
    caller changing the list it got does not change the next answer."""
    texts = [text for _, text, _ in PLANTED_SECRETS] + ["nothing here at all", "x" * 100]
    for text in texts:
        fresh = _scan(text, None, None)
        first = scan_secrets(text)
        assert _VERDICTS.get(text) == tuple(fresh)
        first.clear()
        assert scan_secrets(text) == fresh
    assert scan_secrets("") == []


def test_secrets_remembered_verdicts_stay_within_their_budget():
    verdicts = _Verdicts(80)
    for index in range(10):
        verdicts.put(f"text {index:05d}", ())  # 10 characters each
    assert verdicts.size == 80
    assert verdicts.get("text 00000") is None and verdicts.get("text 00001") is None
    assert verdicts.get("text 00009") == ()
    verdicts.put("eleven char", ())  # longer than an eighth of the budget: not kept
    assert verdicts.get("eleven char") is None
    assert verdicts.size == 80
