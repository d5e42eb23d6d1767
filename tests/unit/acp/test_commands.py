"""The slash commands an editor lists run the CLI's commands for the session's agent."""

from __future__ import annotations

import os

import pytest

from mini_letta.acp.commands import COMMANDS, Target, available_commands, is_command, run_command
from mini_letta.cli.commands.acp import run_captured
from mini_letta.workspace import World, new_agent
from support.groups import ACP

pytestmark = ACP  # available_commands imports the SDK


@pytest.fixture
def target_world(home, project, clock) -> tuple[Target, World]:
    environ = {"PATH": os.environ["PATH"], "MINI_LETTA_HOME": str(home.root)}
    world = World(home=home, cwd=project, environ=environ, clock=clock)
    agent = new_agent(world, name="editor")
    return Target(agent.id, "conv-none"), world


def test_memory_lists_the_agents_memory_tree(target_world):
    target, world = target_world
    shown = run_command("/memory", target, world, run_captured)
    assert "system/" in shown and "human.md" in shown


def test_a_memory_file_is_shown_by_its_path(target_world):
    target, world = target_world
    shown = run_command("/memory show system/human.md", target, world, run_captured)
    assert "the person I work with" in shown
    missing = run_command("/memory show system/nope.md", target, world, run_captured)
    assert missing.startswith("mini-letta:") and "\n" not in missing.strip()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("/search", "mini-letta: /search needs a query"),
        ('/search "unclosed', "mini-letta: No closing quotation"),
        ("/help", "Commands:\n- /memory"),
    ],
    ids=["search-without-query", "unclosed-quote", "help"],
)
def test_usage_problems_and_help_are_one_message(target_world, line, expected):
    target, world = target_world
    assert run_command(line, target, world, run_captured).startswith(expected)


def test_only_our_commands_are_commands():
    assert is_command("/memory show system/human.md") and is_command("  /help")
    assert not is_command("/usr/bin is where it lives") and not is_command("memory")


def test_the_advertised_list_is_the_table_with_input_hints():
    listed = available_commands()
    assert [command.name for command in listed] == [command.name for command in COMMANDS]
    search = next(command for command in listed if command.name == "search")
    assert search.input is not None and search.input.root.hint == "QUERY [--memory]"
    assert next(command for command in listed if command.name == "status").input is None
