"""The interactive session's slash commands, driven in-process through piped input."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from mini_letta.cli.commands.slash import COMMANDS, help_lines, unknown_message

# the project's agent is there already (a copy): these tests are about the session's commands
pytestmark = pytest.mark.usefixtures("project_agent")

HUMAN = "system/human.md"


def _session(cli, *lines: str, env: dict[str, str] | None = None):
    result = cli(stdin="".join(f"{line}\n" for line in (*lines, "/exit")), env=env)
    assert result.code == 0, result.stderr
    return result


def _conversations(cli, *args: str) -> list[dict[str, object]]:
    return json.loads(cli("conversations", "list", "--json", *args).stdout)


def test_help_lists_every_command_with_its_description(cli):
    out = _session(cli, "/help").stdout
    for command in COMMANDS:
        assert re.search(rf"^  {re.escape(command.name)}\b.* {re.escape(command.description)}$",
                         out, re.MULTILINE), command.name  # fmt: skip
    assert out.strip().splitlines() == help_lines()
    assert "/search QUERY" in out


def test_a_mistyped_command_gets_the_closest_name(cli):
    err = _session(cli, "/memroy", "/contxt", "/zzzzzz").stderr
    assert "Unknown command /memroy; did you mean /memory?" in err
    assert "Unknown command /contxt; did you mean /context?" in err
    assert "Unknown command /zzzzzz; /help lists them." in err
    assert unknown_message("/resum") == "Unknown command /resum; did you mean /resume?"


def test_memory_commands_print_what_the_cli_prints(cli):
    out = _session(cli, "/memory", f"/memory show {HUMAN}", "/memory log", "/memory diff").stdout
    expected = "".join(
        cli("memory", *args).stdout for args in (["tree"], ["show", HUMAN], ["log"], ["diff"])
    )
    assert out == expected
    assert HUMAN.split("/")[1] in out and "Initialize memory" in out and "No changes." in out


def test_memory_edit_commits_and_undo_reverts_it(cli, tmp_path: Path):
    saved = tmp_path / "saved.md"  # the editor saves this over the file it opens
    saved.write_text("---\ndescription: The user\n---\nSam, edited in the session\n")
    env = {"EDITOR": f"cp {shlex.quote(str(saved))}"}
    out = _session(cli, f"/memory edit {HUMAN}", "/undo", "/memory log", env=env).stdout
    assert re.search(r"^committed [0-9a-f]{7}$", out, re.MULTILINE), out
    assert re.search(r"^reverted [0-9a-f]{7} as [0-9a-f]{7}$", out, re.MULTILINE), out
    assert "Sam" not in cli("memory", "show", HUMAN).stdout


def test_errors_of_a_command_are_one_line_and_the_session_goes_on(cli):
    result = _session(cli, "/memory show nope.md", "/reflections show nope", "/undo",
                      "/memory show 'unclosed", "hello")  # fmt: skip
    assert "nope.md is not in memory" in result.stderr
    assert "'nope' is not a reflection run id" in result.stderr
    assert "first memory commit" in result.stderr
    assert "No closing quotation" in result.stderr
    assert "（mock）我听到了：hello" in result.stdout


def test_resume_without_an_id_offers_a_numbered_list(cli):
    assert cli("chat", "-p", "first conversation").code == 0
    assert cli("chat", "--new", "-p", "second conversation").code == 0
    listed = _conversations(cli)
    older = next(c for c in listed if c["title"] == "first conversation")
    # The list is newest first: number 2 is the older conversation.
    out = _session(cli, "/resume", "2", "back again").stdout
    row = rf"^  2  \d{{4}}-\d\d-\d\d \d\d:\d\d +2 msgs  first conversation  {older['id']}$"
    assert re.search(row, out, re.MULTILINE), out  # title, last message time, message count
    counts = {c["id"]: cli("conversations", "show", str(c["id"]), "--json") for c in listed}
    shown = json.loads(counts[str(older["id"])].stdout)
    assert shown["messageCount"] == 4  # the resumed conversation got the new turn
    assert len(_conversations(cli)) == 2


def test_resume_rejects_a_number_out_of_range_and_an_unknown_id(cli):
    assert cli("chat", "-p", "only one").code == 0
    err = _session(cli, "/resume", "7", "/resume conv-nope").stderr
    assert "no conversation numbered 7; pick 1 to 1" in err
    assert "conversation 'conv-nope' not found" in err


def test_model_shows_and_switches_this_sessions_model(cli):
    result = _session(cli, "/model", "/model ollama/qwen3", "/model", "/model nosuch/x", "/model")
    shown = re.findall(r"^model: (\S+)", result.stdout, re.MULTILINE)
    assert shown == ["mock", "ollama/qwen3", "ollama/qwen3"]
    assert "This session now uses ollama/qwen3." in result.stderr
    assert "unknown model 'nosuch/x'" in result.stderr
    agent = json.loads(cli("agents", "show", "--json").stdout)
    assert agent["model"] == "mock"  # the agent keeps its own model


def test_agent_switches_to_another_agent(cli):
    assert cli("chat", "-p", "hello").code == 0
    assert cli("agents", "create", "--name", "helper").code == 0
    result = _session(cli, "/agents", "/agent helper", "for the helper", "/agent nobody")
    assert "helper" in result.stdout
    assert "Now talking to helper on mock" in result.stderr
    assert "no agent with id or name 'nobody'" in result.stderr
    titles = [c["title"] for c in _conversations(cli, "--agent", "helper")]
    assert titles == ["for the helper"]


def test_new_and_clear_start_conversations_and_keep_memory(cli):
    assert cli("chat", "-p", "hello").code == 0
    head = cli("memory", "log").stdout
    result = _session(cli, "/new", "/clear", "/conversations")
    assert len(re.findall(r"^New conversation conv-", result.stderr, re.MULTILINE)) == 2
    assert result.stdout.count("conv-") == 2  # /new's, left empty by /clear, is gone at once
    assert cli("memory", "log").stdout == head


def test_new_and_clear_leave_no_empty_conversation_behind(cli):
    first = json.loads(cli("chat", "-p", "hello", "--output-format", "json").stdout)
    _session(cli, "/new", "/clear", "/new")
    assert [c["id"] for c in _conversations(cli)] == [first["conversationId"]]
    again = json.loads(cli("-c", "-p", "on", "--output-format", "json").stdout)
    assert again["conversationId"] == first["conversationId"]  # the last one is current again
    used = _session(cli, "/new", "kept")
    assert "我听到了：kept" in used.stdout and len(_conversations(cli)) == 2
    _session(cli, "/model mock", "/permissions plan")  # a switch keeping the conversation
    assert len(_conversations(cli)) == 2


def test_permissions_show_and_change_the_sessions_mode(cli):
    result = _session(cli, "/permissions", "/permissions acceptedits", "/permissions",
                      "/permissions never")  # fmt: skip
    modes = re.findall(r"^permission mode: (\w+)", result.stdout, re.MULTILINE)
    assert modes == ["default", "acceptEdits"]
    assert "unknown permission mode never" in result.stderr


def test_context_breakdown_adds_up_to_the_window(cli):
    out = _session(cli, "a first message", "/context").stdout
    head = re.search(r"context  \[(.+)\] (\d+) of (\d+) tokens \((\d+)%\)", out)
    assert head, out
    bar, used, window = head.group(1), int(head.group(2)), int(head.group(3))
    assert len(bar) == 40
    parts = dict(re.findall(r"^  . ([a-z ]+?) +(\d+)$", out, re.MULTILINE))
    numbers = {name: int(value) for name, value in parts.items()}
    assert {"system prompt", "memory", "tools", "messages", "free"} <= set(numbers)
    assert numbers["memory"] > 0 and numbers["messages"] > 0
    assert sum(v for k, v in numbers.items() if k != "free") == used
    assert used + numbers["free"] == window
    assert HUMAN in out  # memory files by size
    status = _session(cli, "/status").stdout
    assert f"about {used} of {window} tokens" in status  # the loop's own figure


def test_compact_with_a_focus_compacts_the_conversation(cli):
    from support.compaction_fakes import CHINESE_TURNS

    for text in CHINESE_TURNS[:4]:
        assert cli("chat", "-p", text).code == 0
    err = _session(cli, "/compact the deployment plan").stderr
    assert re.search(r"↻ compacted \d+ messages \(\d+ → \d+ tokens\)", err), err


def test_status_reflections_and_sleeptime(cli):
    result = _session(cli, "hello", "/status", "/reflections", "/sleeptime")
    assert "agent       " in result.stdout and "last run    none yet" in result.stdout
    assert "conversation conv-" in result.stdout and "tokens:" in result.stdout
    assert "No reflection runs yet" in result.stdout
    assert '"trigger"' in result.stdout


def test_completers_offer_what_exists(cli, home):
    from mini_letta.cli.commands.slash import BY_NAME

    assert cli("chat", "-p", "hello").code == 0
    memory = BY_NAME["/memory"].complete
    permissions = BY_NAME["/permissions"].complete
    assert memory is not None and permissions is not None
    state = _state(cli)
    assert memory(state, "sh") == ["show"]
    assert memory(state, "show system/h") == [f"show {HUMAN}"]
    assert permissions(state, "b") == ["bypassPermissions"]
    model = BY_NAME["/model"].complete
    assert model is not None and model(state, "o") == ["opus", "openai/", "ollama/"]
    assert model(state, "")[:2] == ["mock", "script:"]


def _state(cli):
    """A SlashState on the test's home and project, as the session builds it."""
    import io

    from mini_letta.cli.commands.slash_state import SlashState
    from mini_letta.cli.headless import ChatSession, SessionRequest
    from mini_letta.cli.repl_watch import ReflectionWatch
    from mini_letta.cli.terminal import Terminal
    from mini_letta.clock import SystemClock
    from mini_letta.home import Home
    from mini_letta.workspace import World

    world = World(home=Home(cli.home), cwd=cli.cwd, environ={}, clock=SystemClock())
    terminal = Terminal(io.StringIO(), io.StringIO(), io.StringIO(), {}, cli.cwd)
    request = SessionRequest(world=world)
    session = ChatSession(request, terminal.stdout, terminal.stderr)
    return SlashState(
        request, session, ReflectionWatch(world, terminal.stderr, live=False), input, terminal
    )


def test_a_commands_help_prints_on_the_session_terminal(cli):
    out = _session(cli, "/memory show --help", "/sleeptime --help").stdout
    assert "Print one memory file." in out
    assert "Usage: /sleeptime" in out


def test_the_context_command_prints_what_the_session_prints(cli):
    assert cli("chat", "-p", "hello").code == 0
    session = _session(cli, "/context").stdout
    assert cli("context").stdout == session
    data = json.loads(cli("context", "--json").stdout)
    assert sum(data["parts"].values()) == data["used"]
    assert data["used"] + data["free"] == data["window"]
    sizes = [f["tokens"] for f in data["memoryFiles"]]
    assert sizes == sorted(sizes, reverse=True) and len(sizes) == 2


def test_quit_leaves_like_exit(cli):
    result = cli(stdin="/quit\nnever sent\n")
    assert result.code == 0 and "never sent" not in result.stdout


def test_reflections_show_a_runs_diff_and_undo_reverts_the_run(cli):
    assert cli("chat", "-p", "我更喜欢用 tabs 缩进").code == 0
    reflected = cli("reflect")
    match = re.search(r"☾ reflection (\d{14}-[0-9a-f]{8}): merged", reflected.stderr)
    assert match, reflected.stderr
    run_id = match.group(1)
    out = _session(cli, "/reflections", f"/reflections show {run_id}", f"/undo {run_id}").stdout
    assert out.startswith(f"{run_id}  merged ")
    assert "+- Preference: 我更喜欢用 tabs 缩进" in out
    assert re.search(rf"^reverted reflection run {run_id} as [0-9a-f]{{7}}$", out, re.MULTILINE)
    assert "tabs" not in cli("memory", "show", HUMAN).stdout


def test_search_finds_earlier_messages_and_memory(cli):
    cli("chat", "-p", "我更喜欢用 tabs 缩进")
    cli("chat", "-p", "请记住我用 pnpm")
    out = _session(cli, "/search 缩进", "/search pnpm --memory", "/search").stdout
    assert "我更喜欢用 tabs **缩进**" in out  # the matched word highlighted
    assert "system/human.md:" in out and "**pnpm**" in out
    err = _session(cli, "/search").stderr
    assert "/search needs a query" in err


def test_expand_shows_a_tool_call_of_the_last_turn_in_full_even_after_resume(cli, project):
    (project / "a.txt").write_text("alpha\nbeta\n")
    reading = {"toolCalls": [{"name": "Read", "arguments": {"path": "a.txt"}},
                             {"name": "Glob", "arguments": {"pattern": "*.txt"}}]}  # fmt: skip
    (project / "s.json").write_text(json.dumps([reading, "Read it."]))
    assert cli("agents", "create", "--model", "script:s.json").code == 0
    assert cli("chat", "-p", "read a.txt").code == 0  # the last turn: the log has it
    first = _conversations(cli)[0]["id"]
    result = _session(cli, "/expand", "/expand 1", "/expand 3", "/new", "/expand",
                      f"/resume {first}", "/expand all", "/new", "read it again")  # fmt: skip
    assert "  ⚙ [1] Read a.txt ✓ 2 lines" in result.stderr
    assert result.stderr.count("(/expand N shows the Nth tool call in full)") == 1
    read = "  ⚙ [1] Read a.txt ✓\n  arguments:\n    path: a.txt\n  output (2 lines):\n"
    glob = "  ⚙ [2] Glob "
    out = result.stdout
    assert out.count(read) == 2 and out.count(glob) == 2  # /expand 1, then /expand all
    assert out.index(glob) < out.index(read)  # a bare /expand is the last call
    assert "1\talpha" in out.replace(" ", "")
    assert result.stderr.count("mini-letta: no tool calls in the last turn") == 1
    assert "no tool call 3 in the last turn; pick 1 to 2 or `all`" in result.stderr


def test_the_readme_lists_the_commands_as_help_does():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("`/help` lists them:\n\n```text\n", 1)[1].split("```", 1)[0]
    assert block.splitlines() == help_lines()[1:]


def test_expand_completes_the_last_turns_call_numbers(cli, project):
    from mini_letta.cli.commands.slash import BY_NAME

    complete = BY_NAME["/expand"].complete
    assert complete is not None
    assert cli("chat", "-p", "hello").code == 0
    assert complete(_state(cli), "") == []  # that turn ran no tools
    calls = [{"name": "Glob", "arguments": {"pattern": "*"}}] * 2
    (project / "s.json").write_text(json.dumps([{"toolCalls": calls}, "Found them."]))
    assert cli("chat", "--model", "script:s.json", "-p", "list files").code == 0
    assert complete(_state(cli), "") == ["1", "2", "all"]
    assert complete(_state(cli), "a") == ["all"]


def test_resume_shows_the_last_messages_of_the_conversation_it_resumes(cli):
    long = "a long question " * 20
    assert cli("chat", "-p", "first question").code == 0
    assert cli("chat", "-p", long).code == 0
    first = _conversations(cli)[0]["id"]
    assert cli("chat", "--new", "-p", "elsewhere").code == 0
    err = _session(cli, f"/resume {first}", env={"COLUMNS": "90"}).stderr
    assert f"Resumed conversation {first} (4 messages)." in err
    shown = [row for row in err.splitlines() if row.startswith(("  you:", "  agent:"))]
    assert shown[0] == "  you: first question"
    assert shown[1] == "  agent: （mock）我听到了：first question"
    assert shown[2].startswith("  you: a long question a long") and shown[2].endswith("…")
    assert all(len(row) <= 90 for row in shown) and len(shown) == 4
    started = cli("-r", str(first), stdin="/exit\n", env={"COLUMNS": "90"})
    assert [row for row in started.stderr.splitlines() if row.startswith("  ")] == shown
