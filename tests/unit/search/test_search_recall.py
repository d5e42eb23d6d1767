"""Recall over real conversation logs and a real memory repository."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3

import pytest

from mini_letta.errors import InvalidValueError
from mini_letta.search.query import MessageFilter, parse_time_bound
from mini_letta.search.store import SCHEMA_VERSION
from support.memory import commit_all, write_file
from support.recall import say


def ids(hits):
    return [hit.message_id for hit in hits]


@pytest.fixture
def chat(new_conversation):
    store = new_conversation()
    return store, {
        "tabs": say(store, "user", "我更喜欢用 tabs 缩进"),
        "error": say(store, "user", "帮我看下这个报错，部署脚本挂了"),
        "pnpm": say(store, "assistant", "好的：以后一律用 pnpm 的 lockfile。"),
        "walk": say(store, "user", "今天天气很好，我们去散步吧！"),
        "deploy": say(store, "assistant", "The deploy script failed on line 3 of deploy.sh"),
    }


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("缩进", "tabs"),
        ("报错", "error"),
        ("pnpm 的 lockfile", "pnpm"),
        ("ＬＯＣＫＦＩＬＥ", "pnpm"),
        ("散步！", "walk"),
        ("deploy failed", "deploy"),
        ("DEPLOY.SH", "deploy"),
    ],
    ids=["two-char-word", "two-char-word-2", "mixed", "full-width", "cjk-punct", "en", "en-case"],
)
def test_search_finds_the_message_first(recall, chat, query, expected):
    _, msgs = chat
    hits = recall.search_messages(query, MessageFilter())
    assert hits and hits[0].message_id == msgs[expected]


def test_search_does_not_match_a_word_across_a_cjk_boundary(recall, chat):
    # "缩进" is in the log; "进报" straddles two messages and must not be found.
    assert recall.search_messages("进报", MessageFilter()) == []


def test_a_question_falls_back_to_any_bigram_after_the_strict_matches(recall, chat):
    _, msgs = chat
    hits = recall.search_messages("我们以后用什么 lockfile", MessageFilter(limit=3))
    assert hits[0].message_id == msgs["pnpm"]


def test_hits_carry_conversation_line_time_and_role(recall, chat):
    store, msgs = chat
    (hit,) = recall.search_messages("缩进", MessageFilter(limit=1))
    assert (hit.conversation_id, hit.line, hit.role) == (store.conversation_id, 0, "user")
    assert hit.created_at == "2026-03-01T10:00:00.000Z"
    assert hit.to_json()["messageId"] == msgs["tabs"]


def test_filters_by_role_conversation_and_dates(recall, new_conversation):
    first, second = new_conversation(), new_conversation()
    old = say(first, "user", "pnpm 很好用", "2026-01-05T23:59:00.000Z")
    answer = say(first, "assistant", "pnpm 确实好用", "2026-01-06T00:00:30.000Z")
    other = say(second, "user", "pnpm 又报错了", "2026-02-01T08:00:00.000Z")

    def find(**filters):
        return set(ids(recall.search_messages("pnpm", MessageFilter(**filters))))

    assert find() == {old, answer, other}
    assert find(role="assistant") == {answer}
    assert find(conversation_id=second.conversation_id) == {other}
    until = parse_time_bound("2026-01-05", end=True, what="until")
    assert find(until=until) == {old}
    since = parse_time_bound("2026-01-06T00:00:00Z", end=False, what="since")
    assert find(since=since) == {answer, other}
    eastern = parse_time_bound("2026-01-06T08:00:30+08:00", end=False, what="since")
    assert find(since=eastern) == {answer, other}


@pytest.mark.parametrize("text", ["2026-13-01", "yesterday", "2026/01/01"])
def test_a_bad_date_is_a_usage_error(text):
    with pytest.raises(InvalidValueError, match="is not a date"):
        parse_time_bound(text, end=False, what="--since")


@pytest.mark.parametrize("limit", [0, -1, 201])
def test_a_bad_limit_is_a_usage_error(recall, limit):
    with pytest.raises(InvalidValueError, match="limit"):
        recall.search_messages("x", MessageFilter(limit=limit))


def test_tool_messages_and_empty_text_are_not_indexed(recall, new_conversation):
    store = new_conversation()
    say(store, "user", "")
    say(store, "tool", "secret tool output about pnpm")
    assert recall.search_messages("pnpm", MessageFilter()) == []


# -- incremental updates ----------------------------------------------------------------------


def test_refresh_indexes_only_what_is_new(recall, new_conversation):
    store = new_conversation()
    say(store, "user", "第一条 pnpm")
    assert recall.refresh().messages_added == 1
    assert recall.refresh().messages_added == 0
    fresh = say(store, "assistant", "第二条 pnpm")
    stats = recall.refresh()
    assert (stats.messages_added, stats.conversations_reset) == (1, 0)
    assert fresh in ids(recall.search_messages("pnpm", MessageFilter()))


def test_a_search_sees_messages_written_since_the_last_one(recall, new_conversation):
    store = new_conversation()
    say(store, "user", "alpha")
    assert len(recall.search_messages("alpha", MessageFilter())) == 1
    late = say(store, "user", "alpha again")
    assert late in ids(recall.search_messages("alpha", MessageFilter()))


def test_a_replaced_log_is_reindexed_whole(recall, new_conversation, tmp_path):
    store = new_conversation()
    say(store, "user", "旧的消息 kumquat")
    assert recall.search_messages("kumquat", MessageFilter())
    log = store.dir / "messages.jsonl"
    replacement = tmp_path / "replacement.jsonl"
    line = {"id": "msg-new", "role": "user", "content": "新的 papaya", "createdAt": "2026-03-02"}
    replacement.write_text(json.dumps(line, ensure_ascii=False) + "\n")
    os.replace(replacement, log)  # a new file (new inode), as an atomic rewrite makes
    stats = recall.refresh()
    assert stats.conversations_reset == 1
    assert recall.search_messages("kumquat", MessageFilter()) == []
    assert ids(recall.search_messages("papaya", MessageFilter())) == ["msg-new"]


def test_a_truncated_log_is_reindexed_whole(recall, new_conversation):
    store = new_conversation()
    say(store, "user", "keep me")
    say(store, "user", "drop me")
    recall.refresh()
    log = store.dir / "messages.jsonl"
    first_line = log.read_bytes().split(b"\n")[0] + b"\n"
    with open(log, "r+b") as f:  # in place: same inode, fewer lines
        f.truncate(len(first_line))
    assert recall.refresh().conversations_reset == 1
    assert recall.search_messages("drop", MessageFilter()) == []
    assert len(recall.search_messages("keep", MessageFilter())) == 1


def test_a_deleted_conversation_leaves_the_index(recall, new_conversation):
    store = new_conversation()
    say(store, "user", "ephemeral words")
    assert recall.search_messages("ephemeral", MessageFilter())
    shutil.rmtree(store.dir)
    assert recall.search_messages("ephemeral", MessageFilter()) == []


# -- a damaged or outdated index --------------------------------------------------------------


def _garbage_index(world, agent):
    """The agent's index file replaced by bytes that are not a database."""
    path = world.home.search_index_file(agent.id)
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    path.write_bytes(b"this is not a database at all" * 100)
    return path


def test_an_index_full_of_garbage_is_rebuilt(recall, world, agent, chat, caplog):
    _, msgs = chat
    assert recall.search_messages("缩进", MessageFilter())
    _garbage_index(world, agent)
    assert ids(recall.search_messages("缩进", MessageFilter())) == [msgs["tabs"]]
    assert "rebuilding the search index" in caplog.text


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="root may remove a file from a read-only folder; the folder case below covers root",
)
def test_a_damaged_index_that_cannot_be_removed_is_searched_in_memory(
    recall, world, agent, chat, caplog
):
    _, msgs = chat
    assert recall.search_messages("缩进", MessageFilter())
    path = _garbage_index(world, agent)
    folder = path.parent
    folder.chmod(0o555)  # the damaged file cannot be deleted
    try:
        assert ids(recall.search_messages("缩进", MessageFilter())) == [msgs["tabs"]]
    finally:
        folder.chmod(0o755)
    assert "cannot be removed" in caplog.text and "index in memory" in caplog.text
    assert path.read_bytes().startswith(b"this is not a database")  # left for the person


def test_something_that_cannot_be_removed_in_the_index_place_is_searched_in_memory(
    recall, world, agent, chat, caplog
):
    _, msgs = chat
    path = world.home.search_index_file(agent.id)
    for suffix in ("", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    (path / "stuck").mkdir(parents=True)  # a folder: unlink fails, even for root
    assert ids(recall.search_messages("缩进", MessageFilter())) == [msgs["tabs"]]
    assert ids(recall.search_messages("缩进", MessageFilter())) == [msgs["tabs"]]  # again
    assert "index in memory" in caplog.text and path.is_dir()


def test_an_index_of_an_older_schema_is_rebuilt(recall, world, agent, chat):
    _, msgs = chat
    recall.refresh()
    path = world.home.search_index_file(agent.id)
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:  # closed, after a commit
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION - 1),)
        )
        conn.execute("DELETE FROM messages")  # if it were trusted, nothing would be found
    assert ids(recall.search_messages("缩进", MessageFilter())) == [msgs["tabs"]]


def test_a_missing_index_is_built_from_scratch(recall, world, agent, chat):
    recall.refresh()
    world.home.search_index_file(agent.id).unlink()
    assert recall.search_messages("报错", MessageFilter())


# -- memory -----------------------------------------------------------------------------------


def test_memory_search_returns_path_line_and_text(recall, world, agent):
    root = world.home.memory_dir(agent.id)
    write_file(root, "projects/web.md", "---\ndescription: the web app\n---\n\n用 pnpm 管理依赖\n")
    commit_all(root)
    (hit,) = recall.search_memory("pnpm")
    assert (hit.path, hit.line, hit.text) == ("projects/web.md", 5, "用 pnpm 管理依赖")


def test_memory_reindexes_only_the_files_a_new_commit_changed(recall, world, agent):
    root = world.home.memory_dir(agent.id)
    write_file(root, "a.md", "---\ndescription: a\n---\n\nalpha fact\n")
    write_file(root, "b.md", "---\ndescription: b\n---\n\nbeta fact\n")
    commit_all(root)
    recall.refresh()
    write_file(root, "a.md", "---\ndescription: a\n---\n\ngamma fact\n")
    (root / "b.md").unlink()
    commit_all(root)
    stats = recall.refresh()
    assert stats.memory_lines == 2  # a.md's description and body line; b.md only forgotten
    assert [hit.path for hit in recall.search_memory("fact")] == ["a.md"]
    assert recall.search_memory("alpha") == []
    assert recall.refresh().memory_lines == 0  # same HEAD: nothing to do


def test_memory_indexes_the_commit_not_uncommitted_edits(recall, world, agent):
    root = world.home.memory_dir(agent.id)
    write_file(root, "draft.md", "---\ndescription: d\n---\n\nunsaved idea\n")
    assert recall.search_memory("unsaved") == []


def test_two_refreshes_at_once_index_each_message_once(world, agent, new_conversation):
    import threading

    from mini_letta.search.recall import Recall

    store = new_conversation()
    for i in range(200):
        say(store, "user", f"parallel message {i}")
    errors: list[BaseException] = []

    def refresh() -> None:
        try:
            Recall(world.home, agent.id).refresh()
        except BaseException as exc:  # reported below, on the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=refresh) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors
    with contextlib.closing(sqlite3.connect(world.home.search_index_file(agent.id))) as conn:
        assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 200


def test_connections_opening_a_new_index_at_once_all_get_it(tmp_path):
    """Turning a new file to WAL needs the file to itself and SQLite does not wait for that (the
    busy timeout is not consulted), so two openers racing on a fresh index used to see
    `database is locked` about one time in three."""
    import threading

    from mini_letta.search.store import open_index

    failures: list[str] = []
    for attempt in range(30):
        path = tmp_path / f"index-{attempt}.sqlite"
        start = threading.Barrier(2)

        def open_it(path=path, start=start) -> None:
            start.wait(timeout=10)
            try:
                open_index(path).close()
            except Exception as exc:  # reported below, on the test's thread
                failures.append(f"{path.name}: {exc}")

        threads = [threading.Thread(target=open_it) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
    assert failures == []


def test_the_loose_tier_keeps_the_words_the_index_holds(recall, new_conversation):
    """`vim AND OR NOT pnpm` on a small index: and/or/not are in no message, so they must not
    take the places of vim and pnpm among the rarest terms the loose tier keeps."""
    store = new_conversation()
    wanted = say(store, "user", "I use vim for editing")
    other = say(store, "user", "pnpm is the package manager here")
    say(store, "assistant", "noted: vim, pnpm")
    for n in range(3):
        say(store, "user", f"unrelated chatter number {n}")
    found = {
        hit.message_id for hit in recall.search_messages("vim AND OR NOT pnpm", MessageFilter())
    }
    assert {wanted, other} <= found
