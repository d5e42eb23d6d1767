"""Classifying failed model calls into our kinds, whatever the server's dialect."""

from __future__ import annotations

import socket

import pytest

from mini_letta.errors import (
    AuthError,
    BadRequestError,
    ContextOverflowError,
    QuotaError,
    TransientError,
    UnknownModelError,
    UnreachableError,
)
from mini_letta.llm.failures import (
    Failure,
    classify,
    connection_failure,
    one_line,
    parse_retry_after,
)

# (status, error type, message, the kind it is), each named in CLASSIFIED_IDS
CLASSIFIED = [
    (
        400,
        "",
        "the request exceeds the available context size, try increasing it",
        ContextOverflowError,
    ),
    (400, "", "This model's maximum context length is 32768 tokens", ContextOverflowError),
    (
        400,
        "",
        "Trying to keep the first 9000 tokens when context length is 4096",
        ContextOverflowError,
    ),
    (0, "", "prompt is too long: 300000 tokens > 200000 maximum", ContextOverflowError),
    (413, "", "", ContextOverflowError),
    (429, "insufficient_quota", "You exceeded your current quota", QuotaError),
    (402, "billing_error", "payment required", QuotaError),
    (429, "rate_limit_exceeded", "Rate limit reached", TransientError),
    (401, "", "bad key", AuthError),
    (0, "authentication_error", "bad key", AuthError),
    (404, "", "model not found", UnknownModelError),
    (500, "", "oops", TransientError),
    (529, "overloaded_error", "Overloaded", TransientError),
    (0, "overloaded_error", "Overloaded", TransientError),
    (0, "", "something odd", TransientError),
    (400, "", "invalid tool schema", BadRequestError),
    (422, "", "unprocessable", BadRequestError),
]
CLASSIFIED_IDS = [
    "llamacpp-overflow",
    "openai-overflow",
    "ollama-overflow",
    "anthropic-in-stream-overflow",
    "413",
    "openai-quota",
    "402",
    "rate-limit",
    "401",
    "in-stream-auth",
    "404",
    "500",
    "529",
    "in-stream-overloaded",
    "in-stream-unknown",
    "400",
    "422",
]


def test_classify_picks_the_most_specific_kind():
    for case, (status, error_type, message, kind) in zip(CLASSIFIED_IDS, CLASSIFIED, strict=True):
        failure = Failure("openai/x", "http://h/v1", status, message, error_type, key_env="K")
        error = classify(failure)
        assert type(error) is kind, (case, error)
        assert str(error).startswith("openai/x: ") and "\n" not in str(error), case


def test_classify_transient_carries_retry_after():
    failure = Failure("h", "u", 429, "slow", headers={"Retry-After": "12"})
    error = classify(failure)
    assert isinstance(error, TransientError) and error.retry_after == 12.0


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"Retry-After": "1.5"}, 1.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, None),
        ({"retry-after": "-4"}, None),
        ({}, None),
        (None, None),
    ],
    ids=["seconds", "fraction", "ms-wins", "http-date", "negative", "absent", "none"],
)
def test_parse_retry_after(headers, expected):
    assert parse_retry_after(headers) == expected


def _raised(exc: BaseException, cause: BaseException) -> BaseException:
    try:
        try:
            raise cause
        except BaseException as inner:
            raise exc from inner
    except BaseException as outer:
        return outer


class ConnectError(Exception):
    """Named like httpx's, which is all the classifier relies on."""


class ReadTimeout(Exception):
    pass


@pytest.mark.parametrize(
    ("cause", "kind"),
    [
        (ConnectionRefusedError(111, "Connection refused"), UnreachableError),
        (socket.gaierror(-2, "Name or service not known"), UnreachableError),
        (ConnectError("boom"), UnreachableError),
        (ReadTimeout("timed out"), TransientError),
        (ConnectionResetError(104, "reset"), TransientError),
    ],
    ids=["refused", "dns", "connect-error", "read-timeout", "reset"],
)
def test_connection_failures(cause, kind):
    error = connection_failure(
        "ollama/x", "http://localhost:11434/v1", _raised(RuntimeError("x"), cause)
    )
    assert type(error) is kind
    assert "http://localhost:11434/v1" in str(error)


def test_one_line_flattens_and_shortens():
    assert one_line("a\n  b\tc") == "a b c"
    assert len(one_line("x" * 1000)) == 300
