"""The command-line interface: the entry point (main.py), the command tree (commands/), and
the terminal every command talks to (terminal.py)."""

from mini_letta import __version__

VERSION_LINE = f"mini-letta {__version__}"  # `--version`, answered before click is imported
