"""Whether the `mcp` SDK is installed: it is an extra (`mini-letta[mcp]`), needed only by
`mini-letta mcp` and by configured MCP servers, so its absence is a one-line hint, not a
traceback."""

from __future__ import annotations

from mini_letta.errors import MiniLettaError

INSTALL_HINT = "pip install 'mini-letta[mcp]'"


class McpSdkMissingError(MiniLettaError):
    def __init__(self, needed_by: str) -> None:
        super().__init__(
            f"{needed_by} needs the MCP SDK, which is not installed: {INSTALL_HINT} "
            "(pipx: pipx install --force 'mini-letta[mcp]')"
        )


def require_sdk(needed_by: str = "an MCP server in your configuration") -> None:
    """Raise McpSdkMissingError unless `mcp` can be imported (nothing is imported here)."""
    from importlib.util import find_spec

    try:
        found = find_spec("mcp") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise McpSdkMissingError(needed_by)
