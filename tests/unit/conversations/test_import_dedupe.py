"""Importing a session again: no duplicate, only what is new, a live file's torn last line
skipped, links out of the folder refused, and a killed import's staging folder removed."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from mini_letta.conversations.importer import Importer, ImportSource
from mini_letta.conversations.registry import list_conversations
from mini_letta.conversations.transcripts import (
    TranscriptError,
    find_session_files,
    load_transcript,
)
from support.agents import fresh_agent
from support.transcripts import CLAUDE_CODE, CODEX, write_lines


@pytest.fixture
def agent_id(world):
    return fresh_agent(world).id


def _import(world, agent_id, path, within=None):
    transcript = load_transcript(path, within=within)
    with Importer(world.home, agent_id, world.clock) as importer:
        return importer.run(ImportSource(transcript, path.name))


def _log(store):
    return list(store.all())


def test_the_same_session_twice_is_one_conversation(world, agent_id, tmp_path):
    path = write_lines(tmp_path / "5d0c.jsonl", CLAUDE_CODE)
    first = _import(world, agent_id, path)
    again = _import(world, agent_id, path)
    assert first.created and first.added == 8
    assert (again.created, again.added, again.total) == (False, 0, 8)
    assert again.store.conversation_id == first.store.conversation_id
    (record,) = list_conversations(world.home, agent_id)
    assert record.title == "Fix the login page crash"
    assert record.imported_from == {
        "format": "claude-code",
        "file": "5d0c.jsonl",
        "sourceId": "claude-code:5d0c1f9e-7b1a-4c1e-9f3a-2b8e6d4a0c11",
        "messages": 8,
        "logLines": 8,
    }
    assert len(_log(first.store)) == 8


def test_the_stored_messages_keep_tool_calls_results_and_the_summary_role(
    world, agent_id, tmp_path
):
    store = _import(world, agent_id, write_lines(tmp_path / "s.jsonl", CLAUDE_CODE)).store
    messages = _log(store)
    assert [m.role for m in messages] == [
        "user", "assistant", "tool", "assistant", "tool", "user", "summary", "assistant",
    ]  # fmt: skip
    assert messages[1].tool_calls[0].name == "Read"
    assert messages[4].is_error and messages[4].tool_call_id == "toolu_2"
    assert messages[3].stop_reason == "interrupted"
    assert messages[6].compaction is None  # the other tool's summary, never our compaction


def test_a_grown_session_appends_only_its_new_messages(world, agent_id, tmp_path):
    path = write_lines(tmp_path / "rollout-2025-10-29T00-59-38-019a.jsonl", CODEX[:4])
    first = _import(world, agent_id, path)
    assert first.added == 1  # the question so far
    write_lines(path, CODEX)  # the session went on
    grown = _import(world, agent_id, path)
    assert (grown.created, grown.added, grown.total) == (False, 5, 6)
    messages = _log(grown.store)
    roles = ["user", "assistant", "tool", "assistant", "tool", "summary"]
    assert [m.role for m in messages] == roles
    assert messages[0].id == _log(first.store)[0].id
    assert len(list_conversations(world.home, agent_id)) == 1


def test_a_torn_last_line_is_skipped_with_a_warning_and_imported_when_whole(
    world, agent_id, tmp_path
):
    path = tmp_path / "live.jsonl"
    whole = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in CLAUDE_CODE)
    path.write_text(whole[: whole.rindex('"message"')])  # Claude Code is still writing
    transcript = load_transcript(path)
    assert len(transcript.messages) == 7
    (warning,) = transcript.warnings
    assert f"line {len(CLAUDE_CODE)}: an unfinished last line" in warning
    with Importer(world.home, agent_id, world.clock) as importer:
        importer.run(ImportSource(transcript, path.name))
    path.write_text(whole)
    done = _import(world, agent_id, path)
    assert (done.added, done.total) == (1, 8)


def test_a_torn_line_in_the_middle_is_still_an_error(tmp_path):
    lines = [json.dumps(line) for line in CLAUDE_CODE]
    lines[3] = lines[3][:40]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TranscriptError, match="line 4: not valid JSON"):
        load_transcript(path)


def test_an_import_killed_before_its_record_was_saved_appends_nothing_twice(
    world, agent_id, tmp_path
):
    path = write_lines(tmp_path / "rollout-019a.jsonl", CODEX[:4])
    store = _import(world, agent_id, path).store
    before = store.record_path.read_bytes()
    write_lines(path, CODEX)
    _import(world, agent_id, path)
    store.record_path.write_bytes(before)  # as if killed between the append and the record
    again = _import(world, agent_id, path)
    assert again.added == 0 and again.total == 6
    assert len(_log(store)) == 6
    assert store.load_record().imported_from["messages"] == 6


def test_a_conversation_continued_here_still_gets_the_session_s_new_messages(
    world, agent_id, tmp_path
):
    from mini_letta.conversations.messages import Message

    path = write_lines(tmp_path / "rollout-019a.jsonl", CODEX[:4])
    store = _import(world, agent_id, path).store
    said = Message("msg-000000000001aaaaaaaaaaaaaaaa", "user", "继续", "2026-01-01T00:00:00Z")
    store.append(said)  # a turn in the imported conversation, here
    write_lines(path, CODEX)
    before = store.record_path.read_bytes()
    assert _import(world, agent_id, path).added == 5
    store.record_path.write_bytes(before)  # killed before the record was saved
    assert _import(world, agent_id, path).added == 0
    assert [m.content for m in _log(store)][:2] == ["为什么 pnpm install 失败？", "继续"]
    assert len(_log(store)) == 7


def test_the_next_import_removes_a_killed_import_s_staging_folder(world, agent_id, tmp_path):
    staging = world.home.import_staging_dir(agent_id)
    half = staging / "conv-killed"
    half.mkdir(parents=True)
    (half / "messages.jsonl").write_text('{"id": "half"}\n')
    _import(world, agent_id, write_lines(tmp_path / "s.jsonl", CLAUDE_CODE))
    assert list(staging.iterdir()) == []
    assert len(list_conversations(world.home, agent_id)) == 1


def test_a_link_out_of_the_folder_is_refused_and_one_inside_is_read(tmp_path):
    outside = write_lines(tmp_path / "elsewhere" / "secret.jsonl", CLAUDE_CODE)
    folder = tmp_path / "projects" / "-w"
    folder.mkdir(parents=True)
    (folder / "s.jsonl").symlink_to(outside)
    with pytest.raises(TranscriptError, match="is a link to something outside"):
        load_transcript(folder / "s.jsonl")
    write_lines(folder / "real.jsonl", CLAUDE_CODE)
    (folder / "alias.jsonl").symlink_to(folder / "real.jsonl")
    assert load_transcript(folder / "alias.jsonl").title == "Fix the login page crash"


def test_find_session_files_skips_subagents_and_refuses_links_out(tmp_path):
    root = tmp_path / "projects"
    write_lines(root / "-w-app" / "a.jsonl", CLAUDE_CODE[:3])
    write_lines(root / "-w-app" / "agent-1f2e.jsonl", CLAUDE_CODE[:3])
    write_lines(root / "-w-app" / "a" / "subagents" / "agent-x.jsonl", CLAUDE_CODE[:3])
    write_lines(root / "-w-api" / "b.jsonl", CLAUDE_CODE[:3])
    (tmp_path / "out").mkdir()
    write_lines(tmp_path / "out" / "c.jsonl", CLAUDE_CODE[:3])
    (root / "-w-app" / "c.jsonl").symlink_to(tmp_path / "out" / "c.jsonl")
    (root / "linked").symlink_to(tmp_path / "out")
    found = find_session_files(root)
    assert [p.relative_to(root.resolve()).as_posix() for p in found.files] == [
        "-w-api/b.jsonl",
        "-w-app/a.jsonl",
    ]
    assert len(found.refused) == 2
    assert all("is a link to something outside" in line for line in found.refused)


def test_a_fifo_among_the_sessions_is_an_error_for_that_file_only(world, agent_id, tmp_path):
    folder = tmp_path / "sessions"
    write_lines(folder / "a.jsonl", CLAUDE_CODE)
    os.mkfifo(folder / "b.jsonl")
    found = find_session_files(folder)
    assert len(found.files) == 2
    with pytest.raises(TranscriptError, match="not a regular file"):
        load_transcript(found.files[1], within=folder)
    shutil.rmtree(folder)


def test_reflection_sees_the_person_s_words_and_never_the_harness(world, agent_id, tmp_path):
    from mini_letta.reflection.run.payload import normalise_message

    store = _import(world, agent_id, write_lines(tmp_path / "s.jsonl", CLAUDE_CODE)).store
    seen = [data for data in map(normalise_message, store.all()) if data is not None]
    said = [data["content"] for data in seen if data["role"] == "user"]
    assert said == ["登录页面报错了，帮我看看", "/review PR 12"]
    assert [data["role"] for data in seen].count("tool") == 2
    assert "summary" not in {data["role"] for data in seen}  # the other tool's recap


def test_a_folder_given_without_all_says_how(tmp_path):
    with pytest.raises(TranscriptError, match="is a folder; `import --all`"):
        load_transcript(tmp_path)


def test_a_session_title_with_a_credential_is_stored_redacted(world, agent_id, tmp_path):
    key = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    lines = [{"type": "summary", "summary": f"Rotate {key}", "leafUuid": "u1"}, *CLAUDE_CODE[1:]]
    store = _import(world, agent_id, write_lines(tmp_path / "s.jsonl", lines)).store
    title = store.load_record().title
    assert title.startswith("Rotate") and key not in title
    assert key not in store.record_path.read_text("utf-8")
