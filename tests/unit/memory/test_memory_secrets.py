"""The secret scanner: every planted shape is found and named; ordinary text is not."""

from __future__ import annotations

import pytest

from mini_letta.memory.secrets import find_secret, kind_slug, redact_secrets
from support.secrets import NOT_SECRETS, PLANTED_SECRETS


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


def test_secrets_first_kind_is_the_earliest():
    text = "first ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 then AKIAIOSFODNN7EXAMPLE"
    assert find_secret(text) == "GitHub token"
    assert redact_secrets(text) == "first <redacted:github-token> then <redacted:aws-access-key>"


def test_secrets_assignment_keeps_the_name():
    assert redact_secrets("DEPLOY_TOKEN=abc123def456ghi") == (
        "DEPLOY_TOKEN=<redacted:secret-assignment>"
    )
