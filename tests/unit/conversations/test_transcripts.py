"""Transcript readers: plain JSONL, Claude Code sessions and Codex rollouts, written here in
the shapes those tools write."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from mini_letta.conversations.messages import ToolCall
from mini_letta.conversations.transcripts import (
    TranscriptError,
    detect_format,
    load_transcript,
)
from support.transcripts import ANSWER, CLAUDE_CODE, CODEX, COMPACT, write_lines


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


def test_claude_code_keeps_the_person_s_words_tools_as_tools_and_harness_text_out(tmp_path):
    transcript = load_transcript(write_lines(tmp_path / "s1.jsonl", CLAUDE_CODE))
    assert transcript.format == "claude-code"
    assert transcript.title == "Fix the login page crash"  # the summary line, not markup
    assert transcript.source_id == "claude-code:5d0c1f9e-7b1a-4c1e-9f3a-2b8e6d4a0c11"
    shapes = [(m.role, m.content) for m in transcript.messages]
    assert shapes == [
        ("user", "登录页面报错了，帮我看看"),
        ("assistant", "我先看一下 login.ts。"),
        ("tool", "export function login"),
        ("assistant", ""),
        ("tool", "Error: 2 tests failed"),
        ("user", "/review PR 12"),  # the words typed after the command, without the markup
        ("summary", COMPACT),
        ("assistant", "问题在第 12 行：token 没有判空。"),
    ]
    read, bash = transcript.messages[1], transcript.messages[3]
    assert read.tool_calls == (ToolCall("toolu_1", "Read", '{"file_path": "/w/login.ts"}'),)
    assert bash.tool_calls[0].name == "Bash" and bash.stop_reason == "interrupted"
    result, failed = transcript.messages[2], transcript.messages[4]
    assert (result.tool_call_id, result.name, result.is_error) == ("toolu_1", "Read", False)
    assert (failed.tool_call_id, failed.name, failed.is_error) == ("toolu_2", "Bash", True)
    # caveat, /clear, its stdout, the interrupt, the expanded /review body, the command line
    assert transcript.harness_lines == 6
    assert transcript.messages[0].created_at == datetime(2025, 8, 1, 9, 0, tzinfo=UTC)
    words = " ".join(m.content for m in transcript.messages if m.role == "user")
    for markup in ("<command", "<local-command", "Caveat", "[Request interrupted", "continued"):
        assert markup not in words


def test_a_renamed_claude_code_session_takes_its_custom_title(tmp_path):
    lines = [*CLAUDE_CODE, {"type": "custom-title", "customTitle": "登录修复", "sessionId": "s"}]
    assert load_transcript(write_lines(tmp_path / "s.jsonl", lines)).title == "登录修复"


def test_codex_keeps_words_calls_and_results_and_drops_instructions(tmp_path):
    transcript = load_transcript(write_lines(tmp_path / "rollout-2025-10-29.jsonl", CODEX))
    assert transcript.format == "codex"
    assert transcript.source_id == "codex:019a"
    assert [(m.role, m.content) for m in transcript.messages] == [
        ("user", "为什么 pnpm install 失败？"),
        ("assistant", ""),
        ("tool", "ERR_PNPM_LOCKFILE"),
        ("assistant", ANSWER),  # once: the event_msg mirror is not a second copy
        ("tool", "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nDone!"),
        ("summary", "Summary: pnpm lockfile was stale; fixed."),
    ]
    shell, answer = transcript.messages[1], transcript.messages[3]
    assert shell.tool_calls == (
        ToolCall("call_1", "shell", '{"command":["bash","-lc","pnpm install"]}'),
    )
    assert answer.tool_calls[0].name == "apply_patch"
    assert json.loads(answer.tool_calls[0].arguments) == {
        "input": "*** Begin Patch\n*** End Patch\n"
    }
    assert answer.stop_reason == "interrupted"  # the turn was aborted
    assert (transcript.messages[2].is_error, transcript.messages[4].is_error) == (True, False)
    assert transcript.harness_lines == 2  # the environment context and the developer message


def test_a_codex_rollout_with_its_words_only_as_events_is_read_from_them(tmp_path):
    # meta, the user_message event, the call, its output, the agent_message event
    events = [CODEX[0], CODEX[3], *CODEX[6:8], CODEX[10]]
    transcript = load_transcript(write_lines(tmp_path / "rollout.jsonl", events))
    assert [(m.role, m.content) for m in transcript.messages] == [
        ("user", "为什么 pnpm install 失败？"),
        ("assistant", ""),
        ("tool", "ERR_PNPM_LOCKFILE"),
        ("assistant", ANSWER),
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
    records = [(1, {"type": "file-history-snapshot"}), (2, CLAUDE_CODE[2])]
    assert detect_format(tmp_path, records) == "claude-code"
