"""`mini-letta search` and `mini-letta import`, and the recall tools in a scripted model's turn."""

from __future__ import annotations

import json

import pytest

# the project's agent is there already (a copy of a fresh one): not what these tests are about
pytestmark = pytest.mark.usefixtures("project_agent")


def _import(cli, project, name, records, *extra):
    (project / name).write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    result = cli("import", name, "--output-format", "json", *extra)
    assert result.code == 0, result.stderr
    return json.loads(result.stdout)


HISTORY = [
    {"role": "user", "content": "我更喜欢用 tabs 缩进", "createdAt": "2025-05-01T10:00:00Z"},
    {"role": "assistant", "content": "记下了：tabs。", "createdAt": "2025-05-01T10:00:05Z"},
    {"role": "user", "content": "部署脚本报错了", "createdAt": "2025-06-02T09:00:00Z"},
]


def test_search_prints_conversation_date_role_and_a_highlighted_snippet(cli, project):
    imported = _import(cli, project, "t.jsonl", HISTORY)
    result = cli("search", "缩进")
    assert result.code == 0, result.stderr
    header, snippet = result.stdout.splitlines()[:2]
    assert header.startswith(f"{imported['conversationId']}  2025-05-01 10:00  user")
    assert snippet == "  我更喜欢用 tabs **缩进**"


def test_search_json_lists_hits_with_ids_and_scores(cli, project):
    imported = _import(cli, project, "t.jsonl", HISTORY)
    result = cli("search", "报错", "--output-format", "json", "--role", "user")
    assert result.code == 0, result.stderr
    (hit,) = json.loads(result.stdout)
    assert set(hit) == {"conversationId", "messageId", "role", "createdAt", "text", "score"}
    assert hit["conversationId"] == imported["conversationId"]
    assert (hit["role"], hit["createdAt"], hit["text"]) == (
        "user",
        "2025-06-02T09:00:00.000Z",
        "部署脚本报错了",
    )
    dated = cli("search", "报错", "--until", "2025-06-01", "--output-format", "json")
    assert json.loads(dated.stdout) == []


def test_search_memory_lists_path_line_and_text(cli, home):
    cli("chat", "-p", "请记住我喜欢用 vim")
    result = cli("search", "vim", "--memory", "--output-format", "json")
    assert result.code == 0, result.stderr
    hits = json.loads(result.stdout)
    assert hits and set(hits[0]) == {"path", "line", "text", "score"}
    assert hits[0]["path"] == "system/human.md" and "vim" in hits[0]["text"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--since", "2025-02-30"], "--since '2025-02-30' is not a date"),
        (["--until", "tomorrow"], "--until 'tomorrow' is not a date"),
        (["--limit", "0"], "Invalid value for '--limit'"),
        (["--limit", "many"], "Invalid value for '--limit'"),
        (["--role", "tool"], "Invalid value for '--role'"),
        (["--memory", "--role", "user"], "drop the message filters"),
    ],
    ids=["since", "until", "limit-zero", "limit-text", "role", "memory-with-filters"],
)
def test_bad_search_flags_exit_2_in_one_line(cli, args, needle):
    result = cli("search", "x", *args)
    assert result.code == 2
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_search_in_an_unknown_conversation_is_an_error(cli):
    cli("chat", "-p", "hi")
    result = cli("search", "x", "--conversation", "conv-nope")
    assert result.code == 1
    assert "conv-nope" in result.stderr


def test_import_claude_code_and_codex_files(cli, project):
    claude = [
        {"type": "user", "sessionId": "s", "uuid": "u1", "timestamp": "2025-08-01T09:00:00Z",
         "message": {"role": "user", "content": "登录页面报错了"}},
        {"type": "assistant", "sessionId": "s", "uuid": "u2", "timestamp": "2025-08-01T09:00:03Z",
         "message": {"id": "m1", "role": "assistant", "content": [
             {"type": "text", "text": "看看 login.ts"},
             {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "login.ts"}},
         ]}},
    ]  # fmt: skip
    codex = [
        {"timestamp": "2025-10-29T00:59:38Z", "type": "session_meta", "payload": {"id": "x"}},
        {"timestamp": "2025-10-29T00:59:39Z", "type": "response_item",
         "payload": {"type": "message", "role": "user",
                     "content": [{"type": "input_text", "text": "pnpm install 失败"}]}},
    ]  # fmt: skip
    first = _import(cli, project, "s.jsonl", claude, "--title", "登录问题")
    second = _import(cli, project, "rollout.jsonl", codex, "--format", "codex")
    assert first["messages"] == 2 and second["messages"] == 1
    shown = json.loads(cli("conversations", "show", first["conversationId"], "--json").stdout)
    assert shown["title"] == "登录问题"
    assert shown["importedFrom"] == {
        "format": "claude-code",
        "file": "s.jsonl",
        "sourceId": "claude-code:s",
        "messages": 2,
        "logLines": 2,
    }
    assert [m["content"] for m in shown["messages"]] == ["登录页面报错了", "看看 login.ts"]
    assert shown["messages"][1]["toolCalls"] == [
        {"id": "t1", "name": "Read", "arguments": '{"file_path": "login.ts"}'}
    ]
    hits = json.loads(cli("search", "login.ts", "--output-format", "json").stdout)
    assert [h["conversationId"] for h in hits] == [first["conversationId"]]


def test_a_bad_file_imports_nothing(cli, project, home):
    cli("chat", "-p", "hi")
    before = cli("conversations", "list", "--json").stdout
    (project / "bad.jsonl").write_text('{"role": "user", "content": "ok"}\n{"role": "user"}\n')
    result = cli("import", "bad.jsonl")
    assert result.code == 1
    assert "bad.jsonl line 2: content must be a string" in result.stderr
    assert cli("conversations", "list", "--json").stdout == before


def test_an_imported_conversation_can_be_reflected_on(cli, project):
    records = [
        {"role": "user", "content": "我更喜欢用 tabs 缩进", "createdAt": "2025-05-01T10:00:00Z"},
        {"role": "assistant", "content": "好的", "createdAt": "2025-05-01T10:00:05Z"},
    ]
    imported = _import(cli, project, "t.jsonl", records)
    result = cli("reflect", "--conversation", imported["conversationId"])
    assert result.code == 0, result.stderr
    assert "☾ reflection" in result.stderr and "merged" in result.stderr
    human = cli("memory", "show", "system/human.md").stdout
    assert "tabs" in human


def test_a_scripted_model_cites_what_conversation_search_found(cli, project):
    imported = _import(cli, project, "t.jsonl", HISTORY)
    script = [
        {"toolCalls": [{"name": "conversation_search", "arguments": {"query": "缩进"}}]},
        {"toolCalls": [{"name": "memory_search", "arguments": {"query": "tabs"}}]},
        "你在 2025-05-01 说过喜欢 tabs 缩进。",
    ]
    (project / "s.json").write_text(json.dumps(script, ensure_ascii=False), encoding="utf-8")
    result = cli("chat", "-p", "我之前说过缩进吗？", "--model", "script:s.json", "--new")
    assert result.code == 0, result.stderr
    assert result.stdout == "你在 2025-05-01 说过喜欢 tabs 缩进。\n"
    current = json.loads(cli("conversations", "list", "--json").stdout)[0]["id"]
    shown = json.loads(cli("conversations", "show", current, "--json").stdout)
    tool_results = [m for m in shown["messages"] if m["role"] == "tool"]
    found, memory = tool_results
    assert not found.get("isError") and imported["conversationId"] in found["content"]
    assert "2025-05-01T10:00:00.000Z user] 我更喜欢用 tabs **缩进**" in found["content"]
    assert memory["content"] == "No memory lines match 'tabs'."


def test_import_with_reflect_reflects_the_whole_conversation(cli, project):
    path = project / "long.jsonl"
    records = []
    for n in range(40):
        records.append({"role": "user", "content": f"step {n} of the migration, slowly " * 8})
        records.append({"role": "assistant", "content": "ok"})
    records.append({"role": "user", "content": "我更喜欢用 tabs 缩进"})
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n")
    result = cli("import", str(path), "--reflect")
    assert result.code == 0, result.stderr
    assert "Imported 81 message(s)" in result.stdout
    assert "☾ slice 1 (" in result.stderr and "0 left" in result.stderr
    assert "tabs" in cli("memory", "show", "system/human.md").stdout
