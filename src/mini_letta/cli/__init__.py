"""The command-line interface: the entry point (main.py), the command tree (commands/), and
the terminal every command talks to (terminal.py)."""

from mini_letta import __version__

VERSION_LINE = f"mini-letta {__version__}"  # `--version`, answered before click is imported
# The detached reflection worker (hidden; cli/commands/reflect_worker.py): its command line is
# written by cli/background.py and read without click (a sixth of the worker's start-up).
WORKER_COMMAND = "_reflect-worker"
