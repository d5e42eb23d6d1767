"""Home's paths: the layout as joined by hand, whichever Home and in whatever order asked
(its joins are remembered, so a mix-up between homes or names would show here)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from mini_letta.home import Home, index_file_for, lock_file_for, project_folder


def test_each_path_is_the_layout_joined_by_hand(tmp_path):
    for root in (tmp_path / "one", tmp_path / "two"):
        home = Home(root)
        for _ in range(2):  # asked again: the same answers
            agent = root / "agents" / "agent-1"
            assert home.settings_file == root / "settings.json"
            assert home.agent_dir("agent-1") == agent
            assert home.agent_file("agent-1") == agent / "agent.json"
            assert home.memory_dir("agent-1") == agent / "memory"
            assert home.reflection_lease_file("agent-1") == agent / "reflection.lease"
            assert home.conversation_file("agent-1", "conv-2") == (
                agent / "conversations" / "conv-2" / "conversation.json"
            )
            files = home.conversation_files("agent-1", "conv-2")
            folder = agent / "conversations" / "conv-2"
            assert (files.dir, files.messages, files.record, files.lock, files.payloads_dir) == (
                folder,
                folder / "messages.jsonl",
                folder / "conversation.json",
                folder / "conversation.lock",
                folder / "payloads",
            )
            assert files.reflection_state == folder / "reflection-state.json"
            assert files.compaction_flag == folder / "compaction-event.json"
            assert home.conversation_files("agent-1", "conv-3").dir == folder.with_name("conv-3")
            assert home.agent_dir("agent-9") == agent.with_name("agent-9")


def test_the_remembered_helpers_answer_by_path_and_keep_its_type(tmp_path):
    assert lock_file_for(tmp_path / "queue.json") == tmp_path / "queue.json.lock"
    assert index_file_for(tmp_path / "m.jsonl") == tmp_path / "m.jsonl.idx"
    assert project_folder(tmp_path) == tmp_path / ".mini-letta"
    pure = PurePosixPath(tmp_path) / "queue.json"
    assert type(lock_file_for(pure)) is PurePosixPath
    assert type(lock_file_for(Path(pure))) is type(Path(pure))
