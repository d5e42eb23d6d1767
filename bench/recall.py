"""Recall: index build, warm search, a turn's incremental update, and BM25 quality.

Usage: python bench/recall.py [--runs N] [--large N]
Prints: the build of a fresh index over 10,000 messages; a search over --large messages
(default 100,000) once indexed (median per query kind); the refresh after one turn (two new
messages) and with nothing new; recall@5 and recall@10 of BM25 on a generated labelled set
(bench/recall_corpus.py), in Chinese and English.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _common import median_ms
from recall_corpus import FACTS, build_sessions

from mini_letta.clock import SystemClock, format_timestamp
from mini_letta.conversations.messages import Message
from mini_letta.conversations.registry import create_conversation
from mini_letta.conversations.store import ConversationStore
from mini_letta.home import Home
from mini_letta.ids import new_message_id
from mini_letta.memory.repo import init_memory_repo
from mini_letta.search.query import MessageFilter
from mini_letta.search.recall import Recall

QUERIES = {
    "cjk word": "缩进",
    "cjk phrase": "部署脚本",
    "mixed": "pnpm 的 依赖",
    "english": "staging cluster",
    "question": "我们用什么工具管理依赖？",
}


def _agent(root: Path, name: str) -> tuple[Home, str]:
    home = Home(root / name)
    init_memory_repo(home.memory_dir(name))
    return home, name


def _write_sessions(home: Home, agent_id: str, sessions: int, per_session: int) -> dict[int, str]:
    """Write the corpus; returns fact index -> id of the message that states it."""
    clock = SystemClock()
    answers: dict[int, str] = {}
    for chat in build_sessions(sessions, per_session):
        store = create_conversation(home, agent_id, clock)
        batch = []
        for line in chat:
            now = clock.now()
            message = Message(new_message_id(now), line.role, line.text, format_timestamp(now))
            if line.answers is not None:
                answers[line.answers] = message.id
            batch.append(message)
        store.append(batch)
    return answers


def bench_build(root: Path, runs: int) -> None:
    home, agent = _agent(root, "build")
    _write_sessions(home, agent, 25, 400)
    recall = Recall(home, agent)

    cpu: list[float] = []

    def fresh_build() -> None:
        home.search_index_file(agent).unlink(missing_ok=True)
        started = time.process_time()
        recall.refresh()
        cpu.append((time.process_time() - started) * 1000)

    fresh_build()
    wall = median_ms(fresh_build, runs)
    print(f"build from scratch, 10,000 messages: {wall:8.1f} ms (CPU {min(cpu):.0f} ms at best)")


def bench_large(root: Path, runs: int, large: int) -> None:
    home, agent = _agent(root, "large")
    per_session = 1000
    _write_sessions(home, agent, max(1, large // per_session), per_session)
    recall = Recall(home, agent)
    started = time.perf_counter()
    recall.refresh()
    built = (time.perf_counter() - started) * 1000
    print(f"first search at {large:,} messages (one-time build): {built:8.0f} ms")
    for kind, query in QUERIES.items():
        recall.search_messages(query, MessageFilter())
        took = median_ms(lambda q=query: recall.search_messages(q, MessageFilter()), runs)
        print(f"search, warm, {large:,} messages, {kind:<10} {query!r}: {took:6.1f} ms")
    store = ConversationStore(
        agent, sorted(p.name for p in home.conversations_dir(agent).iterdir())[0], home
    )
    clock = SystemClock()

    def one_turn() -> None:
        now = format_timestamp(clock.now())
        store.append(
            [
                Message(new_message_id(clock.now()), "user", "新的问题：缓存过期了吗", now),
                Message(new_message_id(clock.now()), "assistant", "缓存十分钟过期", now),
            ]
        )

    samples = []
    for _ in range(runs):
        one_turn()
        started = time.perf_counter()
        stats = recall.refresh()
        samples.append((time.perf_counter() - started) * 1000)
        assert stats.messages_added == 2
    samples.sort()
    conversations = len(list(home.conversations_dir(agent).iterdir()))
    print(
        f"refresh after one turn (2 messages, {conversations} conversations): "
        f"{samples[len(samples) // 2]:6.2f} ms"
    )
    print(f"refresh with nothing new: {median_ms(recall.refresh, runs):6.2f} ms")


def bench_quality(root: Path) -> None:
    home, agent = _agent(root, "quality")
    answers = _write_sessions(home, agent, 12, 500)
    recall = Recall(home, agent)
    found: dict[str, list[tuple[bool, bool]]] = {"zh": [], "en": []}
    for index, (_, question) in enumerate(FACTS):
        hits = [h.message_id for h in recall.search_messages(question, MessageFilter(limit=10))]
        language = "en" if question.isascii() else "zh"
        found[language].append((answers[index] in hits[:5], answers[index] in hits))
    total = sum(len(v) for v in found.values())
    print(f"labelled set: {total} questions over {12 * 500 + len(FACTS):,} messages, 12 sessions")
    for language, rows in [*found.items(), ("all", found["zh"] + found["en"])]:
        at5 = sum(a for a, _ in rows) / len(rows)
        at10 = sum(b for _, b in rows) / len(rows)
        print(
            f"BM25 {language:<3} recall@5 {at5:.2f}  recall@10 {at10:.2f}  ({len(rows)} questions)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--large", type=int, default=100_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        bench_quality(root)
        bench_build(root, max(3, args.runs // 5))
        bench_large(root, args.runs, args.large)


if __name__ == "__main__":
    main()
