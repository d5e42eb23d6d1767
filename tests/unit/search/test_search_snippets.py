"""A search snippet never shows a credential: redaction comes before highlighting.

Highlighting wraps query words in marks; done first, it splits a credential's pattern
(`aws_secret_access_**key**`, `PRIVATE **KEY**`) so the scanner no longer sees it. Every
planted shape, searched by each of its own words, must come back with none of the values the
scanner finds in the original text, in the snippet function and in the tools that show one.
"""

from __future__ import annotations

import json
import re

from mini_letta.conversations.messages import ToolCall
from mini_letta.memory.secrets import scan_secrets
from mini_letta.search.text import build_snippet, parse_query
from mini_letta.tools.base import ToolContext, Toolset, execute_tool_call
from mini_letta.tools.recall import ConversationSearchTool, MemorySearchTool
from support.memory import commit_all, write_file
from support.recall import say
from support.secrets import PLANTED_SECRETS

EXTRA = [
    ("aws-words", "my aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY ok"),
    (
        "pem-words",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1x2y3z\n-----END RSA PRIVATE KEY-----",
    ),
]
CASES = [(case_id, text) for case_id, text, _ in PLANTED_SECRETS] + EXTRA


def _values(text: str) -> list[str]:
    return [text[m.start : m.end] for m in scan_secrets(text)]


def _leaks(shown: str, values: list[str]) -> list[str]:
    flat = " ".join(shown.split())
    return [v for v in values if " ".join(v.split()) in flat]


def test_no_snippet_shows_a_secret_whatever_word_is_searched():
    """Every planted shape, every word of its message searched, both kinds of highlight: the
    failure lists each (case, word, snippet) that showed a secret."""
    leaked = []
    for case_id, text in CASES:
        message = f"here it is: {text} — keep it safe"
        values = _values(message)
        assert values, f"{case_id}: the scanner must know this shape"
        for word in sorted(set(re.findall(r"\w+", message))):
            parsed = parse_query(word)
            if parsed is None:
                continue
            for marks in (("**", "**"), ("\x1b[1m", "\x1b[0m")):
                snippet = build_snippet(message, parsed.words, width=400, marks=marks)
                if _leaks(snippet, values):
                    leaked.append((case_id, word, snippet))
    assert not leaked, "\n".join(map(repr, leaked))


def test_conversation_search_tool_results_hold_no_secret(world, agent, new_conversation):
    store = new_conversation()
    text = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY for the key"
    say(store, "user", text)
    ctx = ToolContext(cwd=world.cwd, clock=world.clock, agent_id=agent.id, home=world.home)
    for query in ("key", "access", "secret"):
        call = ToolCall("call-1", "conversation_search", json.dumps({"query": query}))
        content = execute_tool_call(call, Toolset((ConversationSearchTool(),)), ctx).content
        assert "wJalrXUtnFEMI" not in content, (query, content)
        assert "1 message(s)" in content


def test_memory_search_tool_lines_hold_no_secret(world, agent):
    memory = world.home.memory_dir(agent.id)
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    write_file(memory, "notes/aws.md", f"---\ndescription: a\n---\naws_secret_access_key = {key}\n")
    commit_all(memory, "planted by hand")
    ctx = ToolContext(cwd=world.cwd, clock=world.clock, agent_id=agent.id, home=world.home)
    shown = MemorySearchTool().run({"query": "key"}, ctx).content
    assert "notes/aws.md" in shown and key not in shown


def test_the_search_command_shows_no_secret(cli, project):
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    record = {
        "role": "user",
        "content": f"aws_secret_access_key = {key}",
        "createdAt": "2025-05-01",
    }
    (project / "t.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert cli("import", "t.jsonl").code == 0
    for query in ("key", "access"):
        result = cli("search", query)
        assert result.code == 0 and "<redacted:" in result.stdout
        assert key not in result.stdout
