"""Which request fields each SDK major version takes as keyword arguments of its `create`, and
which travel in `extra_body` (the API still reads them; the SDK no longer names them).

The providers build one request body per API (openai_provider.py, anthropic_provider.py); this
table says, per SDK and major version, how that body is handed to the installed SDK, so a new
SDK major is a row here and a test, not a `TypeError` on every call (anthropic 2 dropped
`temperature` from `Messages.create`). A test checks each row against the installed SDK's
signature with `inspect`. An SDK major with no row is refused with the range we test.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mini_letta.errors import ProviderError
from mini_letta.structs import Struct


class SdkFields(Struct, frozen=True):
    keywords: frozenset[str]  # named parameters of `create`
    extra_body: frozenset[str] = frozenset()  # sent, but inside `extra_body`


# (package, major) -> fields; the body builders never produce a field not listed here.
SDK_FIELDS: Mapping[tuple[str, int], SdkFields] = {
    ("openai", 3): SdkFields(
        frozenset(
            {
                "model",
                "messages",
                "tools",
                "max_completion_tokens",
                "max_tokens",
                "temperature",
                "stream",
                "stream_options",
            }
        )
    ),
    ("anthropic", 2): SdkFields(
        frozenset({"model", "max_tokens", "messages", "tools", "system", "stream"}),
        frozenset({"temperature"}),
    ),
}
TESTED = {"openai": ">=3.60,<4", "anthropic": ">=2.16,<3"}  # as pyproject.toml pins them


def sdk_fields(package: str, version: str) -> SdkFields:
    """The row for `package` at `version` (its `__version__`); ProviderError for a major
    version without one."""
    try:
        major = int(version.split(".", 1)[0])
    except ValueError:
        major = -1
    row = SDK_FIELDS.get((package, major))
    if row is None:
        raise ProviderError(
            f"the installed {package} SDK {version} is not a version mini-letta was tested "
            f"against (pip install '{package}{TESTED.get(package, '')}')"
        )
    return row


def sdk_arguments(fields: SdkFields, body: Mapping[str, Any]) -> dict[str, Any]:
    """`body` as keyword arguments of `create`: named fields as keywords, the others of the
    row in `extra_body`. A field in neither is a bug in a body builder (RuntimeError)."""
    unknown = set(body) - fields.keywords - fields.extra_body
    if unknown:
        raise RuntimeError(f"request fields {sorted(unknown)} have no mapping for this SDK")
    kept = {key: value for key, value in body.items() if key in fields.keywords}
    extra = {key: value for key, value in body.items() if key in fields.extra_body}
    return {**kept, "extra_body": extra} if extra else kept
