"""mini-letta: a memory-first, stateful agent for the terminal.

`from mini_letta import Session` loads the public API (api.py) on first use; until then this
module imports nothing, so `--version` and a mock turn start fast.
"""

__version__ = "0.1.0"

TYPE_CHECKING = False  # not `typing`'s: importing typing would double what `--version` costs
if TYPE_CHECKING:
    from mini_letta.api import Session as Session
    from mini_letta.api import create_agent as create_agent
    from mini_letta.api import open_world as open_world

_PUBLIC = ("Session", "create_agent", "open_world")


def __getattr__(name: str) -> object:
    """The public names, from api.py when first asked for."""
    if name in _PUBLIC:
        from mini_letta import api

        return getattr(api, name)
    raise AttributeError(f"module 'mini_letta' has no attribute {name!r}")
