"""Transcript readers: plain JSONL, Claude Code sessions and Codex rollouts, written here in
the shapes those tools write."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from mini_letta.conversations.transcripts import (
    TranscriptError,
    detect_format,
    load_transcript,
    summarise_tool_call,
)


def write_lines(path, records):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    return path


CLAUDE_CODE = [
    {"type": "summary", "summary": "Fix the login bug", "leafUuid": "u4"},
    {
        "parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/w",
        "sessionId": "s1", "version": "1.0.83", "type": "user", "uuid": "u1",
        "timestamp": "2025-08-01T09:00:00.000Z",
        "message": {"role": "user", "content": "登录页面报错了，帮我看看"},
    },
    {
        "parentUuid": "u1", "isSidechain": False, "sessionId": "s1", "type": "assistant",
        "uuid": "u2", "timestamp": "2025-08-01T09:00:03.000Z", "requestId": "req_1",
        "message": {
            "id": "msg_01", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [
                {"type": "thinking", "thinking": "look at the file", "signature": "x"},
                {"type": "text", "text": "我先看一下 login.ts。"},
            ],
        },
    },
    {
        "parentUuid": "u2", "isSidechain": False, "sessionId": "s1", "type": "assistant",
        "uuid": "u3", "timestamp": "2025-08-01T09:00:04.000Z",
        "message": {
            "id": "msg_01", "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read",
                         "input": {"file_path": "/w/login.ts"}}],
        },
    },
    {
        "parentUuid": "u3", "isSidechain": False, "sessionId": "s1", "type": "user",
        "uuid": "u4", "timestamp": "2025-08-01T09:00:05.000Z",
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "export function login"}
        ]},
    },
    {
        "parentUuid": "u4", "isSidechain": True, "sessionId": "s1", "type": "assistant",
        "uuid": "u5", "timestamp": "2025-08-01T09:00:06.000Z",
        "message": {"id": "msg_02", "role": "assistant",
                    "content": [{"type": "text", "text": "a sub-agent's note"}]},
    },
    {
        "parentUuid": "u4", "isSidechain": False, "isMeta": True, "sessionId": "s1",
        "type": "user", "uuid": "u6", "timestamp": "2025-08-01T09:00:07.000Z",
        "message": {"role": "user", "content": "Caveat: local command output"},
    },
    {
        "parentUuid": "u4", "isSidechain": False, "sessionId": "s1", "type": "assistant",
        "uuid": "u7", "timestamp": "2025-08-01T09:00:09.000Z",
        "message": {"id": "msg_03", "role": "assistant",
                    "content": [{"type": "text", "text": "问题在第 12 行：token 没有判空。"}]},
    },
]  # fmt: skip

ENV_CONTEXT = "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"
ANSWER = "lockfile 过期了，运行 pnpm install --no-frozen-lockfile。"
CODEX = [
    {"timestamp": "2025-10-29T00:59:38.317Z", "type": "session_meta",
     "payload": {"id": "019a", "timestamp": "2025-10-29T00:59:38.308Z", "cwd": "/w",
                 "originator": "codex_cli_rs", "cli_version": "0.46.0"}},
    {"timestamp": "2025-10-29T00:59:38.317Z", "type": "response_item",
     "payload": {"type": "message", "role": "user",
                 "content": [{"type": "input_text", "text": ENV_CONTEXT}]}},
    {"timestamp": "2025-10-29T00:59:38.400Z", "type": "response_item",
     "payload": {"type": "message", "role": "user",
                 "content": [{"type": "input_text", "text": "为什么 pnpm install 失败？"}]}},
    {"timestamp": "2025-10-29T00:59:38.400Z", "type": "event_msg",
     "payload": {"type": "user_message", "message": "为什么 pnpm install 失败？", "kind": "plain"}},
    {"timestamp": "2025-10-29T00:59:38.500Z", "type": "turn_context",
     "payload": {"cwd": "/w", "approval_policy": "never", "model": "gpt-5-codex"}},
    {"timestamp": "2025-10-29T00:59:39.522Z", "type": "response_item",
     "payload": {"type": "reasoning", "summary": [], "encrypted_content": "gAAA"}},
    {"timestamp": "2025-10-29T00:59:40.000Z", "type": "response_item",
     "payload": {"type": "function_call", "name": "shell", "call_id": "call_1",
                 "arguments": "{\"command\":[\"bash\",\"-lc\",\"pnpm install\"]}"}},
    {"timestamp": "2025-10-29T00:59:45.000Z", "type": "response_item",
     "payload": {"type": "function_call_output", "call_id": "call_1",
                 "output": "{\"output\":\"ERR_PNPM_LOCKFILE\"}"}},
    {"timestamp": "2025-10-29T00:59:50.000Z", "type": "response_item",
     "payload": {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": ANSWER}]}},
]  # fmt: skip


def test_jsonl_keeps_every_line_in_order_with_its_time(tmp_path):
    path = write_lines(
        tmp_path / "t.jsonl",
        [
            {"role": "user", "content": "缩进用 tabs", "createdAt": "2025-05-01T10:00:00Z"},
            {"role": "assistant", "content": "好的", "createdAt": "2025-05-01T18:00:05+08:00"},
            {"role": "user", "content": "", "createdAt": "2025-05-01T10:01:00.250Z"},
        ],
    )
    transcript = load_transcript(path)
    assert transcript.format == "jsonl"
    assert [(m.role, m.content) for m in transcript.messages] == [
        ("user", "缩进用 tabs"),
        ("assistant", "好的"),
        ("user", ""),
    ]
    assert transcript.messages[1].created_at == datetime(2025, 5, 1, 10, 0, 5, tzinfo=UTC)


def test_claude_code_keeps_text_summarises_tools_and_skips_the_rest(tmp_path):
    transcript = load_transcript(write_lines(tmp_path / "s1.jsonl", CLAUDE_CODE))
    assert transcript.format == "claude-code"
    assert [(m.role, m.content) for m in transcript.messages] == [
        ("user", "登录页面报错了，帮我看看"),
        ("assistant", '我先看一下 login.ts。\n[tool call] Read {"file_path": "/w/login.ts"}'),
        ("assistant", "问题在第 12 行：token 没有判空。"),
    ]
    assert transcript.messages[0].created_at == datetime(2025, 8, 1, 9, 0, tzinfo=UTC)


def test_codex_keeps_text_summarises_calls_and_drops_boilerplate(tmp_path):
    transcript = load_transcript(write_lines(tmp_path / "rollout-2025-10-29.jsonl", CODEX))
    assert transcript.format == "codex"
    assert [(m.role, m.content) for m in transcript.messages] == [
        ("user", "为什么 pnpm install 失败？"),
        ("assistant", '[tool call] shell {"command": ["bash", "-lc", "pnpm install"]}'),
        ("assistant", "lockfile 过期了，运行 pnpm install --no-frozen-lockfile。"),
    ]


def test_an_older_codex_rollout_without_wrappers_is_read(tmp_path):
    records = [
        {"id": "s", "timestamp": "2025-05-01T00:00:00Z", "instructions": None},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"record_type": "state"},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "hello"}]},
    ]  # fmt: skip
    transcript = load_transcript(write_lines(tmp_path / "old.jsonl", records))
    assert transcript.format == "codex"
    assert [m.content for m in transcript.messages] == ["hi", "hello"]


@pytest.mark.parametrize(
    ("lines", "fmt", "message"),
    [
        (['{"role":"user","content":"a"}', "{oops"], "auto", "line 2: not valid JSON"),
        (['{"role":"user","content":"a"}', "[1, 2]"], "jsonl", "line 2: expected a JSON object"),
        (['{"role":"system","content":"a"}'], "jsonl", "line 1: role must be"),
        (['{"role":"user","content":3}'], "jsonl", "line 1: content must be a string"),
        (['{"role":"user","content":"a","createdAt":"soon"}'], "jsonl", "line 1: 'soon' is not"),
        (['{"hello":"world"}'], "auto", "cannot tell the transcript format"),
        (["", "  "], "jsonl", "no user or assistant messages"),
        (['{"type":"user","sessionId":"s","message":"x"}'], "claude-code", "line 1: a user entry"),
        (['{"type":"response_item","payload":3}'], "codex", "line 1: response_item without"),
    ],
    ids=[
        "bad-json", "not-object", "bad-role", "bad-content", "bad-time", "unknown", "empty",
        "claude-no-message", "codex-no-payload",
    ],
)  # fmt: skip
def test_a_bad_file_names_the_line(tmp_path, lines, fmt, message):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TranscriptError, match=message):
        load_transcript(path, fmt)


def test_a_missing_or_binary_file_is_a_clear_error(tmp_path):
    with pytest.raises(TranscriptError, match="no such file"):
        load_transcript(tmp_path / "nope.jsonl")
    (tmp_path / "b.jsonl").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(TranscriptError, match="not UTF-8"):
        load_transcript(tmp_path / "b.jsonl")


def test_detect_prefers_the_first_recognisable_record(tmp_path):
    records = [(1, {"type": "file-history-snapshot"}), (2, CLAUDE_CODE[1])]
    assert detect_format(tmp_path, records) == "claude-code"


def test_a_long_tool_call_is_cut_to_one_short_line():
    line = summarise_tool_call("Write", {"content": "x\n" * 500})
    assert "\n" not in line and len(line) < 230 and line.endswith("…")
