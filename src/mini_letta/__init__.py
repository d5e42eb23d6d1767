"""mini-letta: a memory-first, stateful agent for the terminal.

This module imports nothing, so `--version` and a mock turn start fast.
"""

__version__ = "0.1.0"
