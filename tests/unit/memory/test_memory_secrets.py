"""The secret scanner: every planted shape is found and named; ordinary text is not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mini_letta.memory.secrets import find_secret, kind_slug, redact_secrets
from support.secrets import NOT_PASTED_SECRETS, NOT_SECRETS, PASTED_SECRETS, PLANTED_SECRETS

SRC = Path(__file__).resolve().parents[3] / "src"


@pytest.mark.parametrize(
    ("text", "kind"),
    [(t, k) for _, t, k in PLANTED_SECRETS],
    ids=[i for i, _, _ in PLANTED_SECRETS],
)
def test_secrets_find_names_the_kind(text, kind):
    assert find_secret(text) == kind
    assert find_secret(f"some words before\n{text}\nand after") == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [(t, k) for _, t, k in PLANTED_SECRETS],
    ids=[i for i, _, _ in PLANTED_SECRETS],
)
def test_secrets_redact_leaves_nothing_findable(text, kind):
    redacted = redact_secrets(text)
    assert f"<redacted:{kind_slug(kind)}>" in redacted
    assert find_secret(redacted) is None


@pytest.mark.parametrize("text", [t for _, t in NOT_SECRETS], ids=[i for i, _ in NOT_SECRETS])
def test_secrets_ordinary_text_passes(text):
    assert find_secret(text) is None
    assert redact_secrets(text) == text


@pytest.mark.parametrize(
    ("text", "kind"),
    [(t, k) for _, t, k in PASTED_SECRETS],
    ids=[i for i, _, _ in PASTED_SECRETS],
)
def test_secrets_what_people_paste_is_found_named_and_redacted(text, kind):
    assert find_secret(f"note: {text}\nend") == kind
    redacted = redact_secrets(text)
    assert f"<redacted:{kind_slug(kind)}>" in redacted
    assert find_secret(redacted) is None


@pytest.mark.parametrize(
    "text", [t for _, t in NOT_PASTED_SECRETS], ids=[i for i, _ in NOT_PASTED_SECRETS]
)
def test_secrets_text_about_credentials_passes(text):
    assert find_secret(text) is None


def test_secrets_card_redaction_covers_the_number_expiry_and_code():
    text = "pay with 4111 1111 1111 1111 exp 04/28 cvv 123 please"
    assert redact_secrets(text) == "pay with <redacted:payment-card> please"


BODY = ["MIIEpAIBAAKCAQEAz3k8Vq2Lx9Pm4Nb7Cc1Dd5Ee0Ff3Gg6Hh9Ii2Jj5Kk8Ll1Mm4N", "b7Oo0Pp3Qq6Rr9Ss2Tt"]


@pytest.mark.parametrize(
    "block",
    [
        "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(BODY),
        "-----BEGIN OPENSSH PRIVATE KEY-----\r\n" + "\r\n".join(BODY) + "\r\n",
        "-----BEGIN PRIVATE KEY-----\\n" + "\\n".join(BODY),  # inside a JSON string
        "-----BEGIN PRIVATE KEY----- " + " ".join(BODY),  # newlines flattened to spaces
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\n" + "\n".join(BODY),
        "  -----BEGIN EC PRIVATE KEY-----\n    " + "\n    ".join(BODY),  # indented YAML
    ],
    ids=["pem", "crlf", "json-escaped", "flattened", "encrypted-headers", "indented"],
)
def test_secrets_key_block_without_end_is_redacted_to_the_end_of_its_body(block):
    redacted = redact_secrets(f"here is my key\n{block}\n\nthanks, that was all")
    assert not any(part in redacted for part in (BODY[0][:20], BODY[1]))
    assert redacted.startswith("here is my key\n") and redacted.endswith("that was all")


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


@pytest.mark.parametrize(
    "text", [t for _, t in PROSE_PASSWORDS], ids=[i for i, _ in PROSE_PASSWORDS]
)
def test_secrets_prose_password_is_found(text):
    assert find_secret(text) is not None
    assert "<redacted:" in redact_secrets(text)


@pytest.mark.parametrize(
    "text", [t for _, t in PROSE_NOT_PASSWORDS], ids=[i for i, _ in PROSE_NOT_PASSWORDS]
)
def test_secrets_prose_about_passwords_passes(text):
    assert find_secret(text) is None


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


ADVERSARIAL = {
    "one-character": "x" * 1_000_000,
    "dotted": "a." * 500_000,
    "hex": "0123456789abcdef" * 62_500,
    "key-names": "api_key_token_secret_" * 50_000,
    "pem-headers": "-----BEGIN PRIVATE KEY-----" * 40_000,
    "url-pieces": "a://b:c" * 150_000,
}


def test_secrets_scan_of_megabyte_adversarial_inputs_finishes(tmp_path):
    """The issue's reproducer at 1 MB: quadratic scanning took hours; a hang guard, not a timer."""
    script = tmp_path / "scan.py"
    script.write_text(
        "import sys\n"
        "from mini_letta.memory.secrets import find_secret\n"
        f"inputs = {ADVERSARIAL!r}\n"
        "for name, text in inputs.items():\n"
        "    find_secret(text)\n"
        "print('scanned', len(inputs))\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.stdout.strip() == f"scanned {len(ADVERSARIAL)}", done.stderr
