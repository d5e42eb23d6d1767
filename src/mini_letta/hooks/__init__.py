"""Hooks: the user's own commands at the agent's lifecycle points, in Claude Code's format.

config.py parses the settings files' `hooks` objects and matches them, process.py runs one
command (JSON on stdin, bounded in time and output), runner.py answers each event as Claude
Code does. Nothing here is imported when no settings file has `hooks`.
"""
