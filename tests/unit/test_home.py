"""Home's paths: the layout as joined by hand, whichever Home and in whatever order asked
(its joins are remembered, so a mix-up between homes or names would show here)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from mini_letta.home import Home, git_lock_files, index_file_for, lock_file_for, project_folder


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


def test_git_lock_files_lists_the_git_dirs_and_every_refs_lock_without_following_links(
    tmp_path,
):
    git_dir = tmp_path / ".git"
    (git_dir / "refs" / "heads" / "feature").mkdir(parents=True)
    (git_dir / "refs" / "tags").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "elsewhere.lock").write_text("")
    (git_dir / "refs" / "linked").symlink_to(outside)
    for name in ("index.lock", "HEAD.lock", "HEAD", "config", "packed-refs.lock"):
        (git_dir / name).write_text("")
    (git_dir / "objects.lock").mkdir()  # a folder so named is listed, not entered
    (git_dir / "objects.lock" / "inner.lock").write_text("")
    for name in ("heads/main.lock", "heads/main", "heads/feature/x.lock", "tags/v1.lock"):
        (git_dir / "refs" / name).write_text("")
    found = sorted(path.relative_to(git_dir).as_posix() for path in git_lock_files(git_dir))
    assert found == [
        "HEAD.lock",
        "index.lock",
        "objects.lock",
        "packed-refs.lock",
        "refs/heads/feature/x.lock",
        "refs/heads/main.lock",
        "refs/tags/v1.lock",
    ]
    assert all(type(path) is type(git_dir) for path in git_lock_files(git_dir))
    assert git_lock_files(tmp_path / "missing") == []
