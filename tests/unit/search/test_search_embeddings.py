"""Semantic re-ranking against the scripted server's /embeddings, through the real SDK."""

from __future__ import annotations

import json

import pytest

from mini_letta.errors import ConfigError
from mini_letta.search.embeddings import OpenAIEmbedder, load_embedder
from mini_letta.search.query import MessageFilter
from mini_letta.search.recall import Recall
from support.groups import SDK
from support.recall import say
from support.scripted_server import Reply

pytestmark = SDK


def embeddings(*vectors):
    return Reply(
        body={
            "object": "list",
            "model": "test-embed",
            "data": [
                {"object": "embedding", "index": i, "embedding": list(v)}
                for i, v in enumerate(vectors)
            ],
            "usage": {"prompt_tokens": 3, "total_tokens": 3},
        }
    )


@pytest.fixture
def three(new_conversation):
    store = new_conversation()
    return [
        say(store, "user", "pnpm pnpm pnpm"),
        say(store, "user", "pnpm pnpm and a few more words"),
        say(store, "user", "pnpm with many other words here and there and everywhere"),
    ]


def test_results_fuse_bm25_and_similarity_and_vectors_are_cached(
    world, agent, recall, three, scripted_server
):
    a, b, c = three
    assert [hit.message_id for hit in recall.search_messages("pnpm", MessageFilter())] == [a, b, c]
    embedder = OpenAIEmbedder(scripted_server.url + "/v1", "test-embed", "sk-test")
    semantic = Recall(world.home, agent.id, embedder)
    # query, then the candidates in BM25 order: b is the closest, a the farthest
    scripted_server.queue(embeddings([1, 0], [0, 1], [1, 0.1], [1, 0.5]))
    hits = semantic.search_messages("pnpm", MessageFilter())
    assert [hit.message_id for hit in hits] == [b, a, c]
    assert hits[0].score == pytest.approx(1 / 61 + 1 / 62)
    request = scripted_server.requests[0]
    assert request.path == "/v1/embeddings"
    assert request.body["model"] == "test-embed"
    assert request.body["input"][0] == "pnpm"
    assert len(request.body["input"]) == 4
    again = semantic.search_messages("pnpm", MessageFilter())  # every vector is cached now
    assert [hit.message_id for hit in again] == [b, a, c]
    assert len(scripted_server.requests) == 1


def test_a_failing_endpoint_falls_back_to_bm25(world, agent, three, scripted_server, caplog):
    embedder = OpenAIEmbedder(scripted_server.url + "/v1", "test-embed", "sk-test")
    scripted_server.queue(Reply(status=500, body={"error": {"message": "boom"}}))
    hits = Recall(world.home, agent.id, embedder).search_messages("pnpm", MessageFilter())
    assert [hit.message_id for hit in hits] == three
    assert "embeddings unavailable" in caplog.text


def test_memory_search_is_fused_too(world, agent, scripted_server):
    from support.memory import commit_all, write_file

    root = world.home.memory_dir(agent.id)
    body = "vim vim vim\nvim and emacs both\nvim is one editor among many other ones here\n"
    write_file(root, "n.md", "---\ndescription: n\n---\n\n" + body)
    commit_all(root)
    embedder = OpenAIEmbedder(scripted_server.url + "/v1", "test-embed", "sk-test")
    scripted_server.queue(embeddings([1, 0], [0, 1], [1, 0], [1, 0.5]))
    hits = Recall(world.home, agent.id, embedder).search_memory("vim")
    assert [hit.line for hit in hits] == [6, 5, 7]


def test_settings_configure_the_embedder(world):
    world.home.root.mkdir(parents=True, exist_ok=True)
    assert load_embedder(world.home, {}) is None
    config = {"baseUrl": "http://127.0.0.1:9/v1/", "model": "bge-m3", "apiKeyEnv": "EMB_KEY"}
    world.home.settings_file.write_text(json.dumps({"embeddings": config}))
    embedder = load_embedder(world.home, {"EMB_KEY": "k"})
    assert embedder == OpenAIEmbedder("http://127.0.0.1:9/v1", "bge-m3", "k")
    with pytest.raises(ConfigError, match="EMB_KEY is not set"):
        load_embedder(world.home, {})
    world.home.settings_file.write_text(json.dumps({"embeddings": {"model": "m"}}))
    with pytest.raises(ConfigError, match="needs baseUrl and model"):
        load_embedder(world.home, {})


class _Drip:
    """An HTTP server that sends its headers, then one byte of a JSON body every 0.05 s."""

    def __init__(self) -> None:
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
            conn.sendall(b"Content-Length: 100000\r\n\r\n")
            while not self.stop.wait(0.05):
                try:
                    conn.sendall(b" ")
                except OSError:
                    return

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.mark.timeout(20)
def test_a_server_that_drips_bytes_is_given_up_on_at_the_deadline(world, agent, three, caplog):
    drip = _Drip()
    try:
        embedder = OpenAIEmbedder(drip.url, "test-embed", "sk-test", deadline=0.5)
        hits = Recall(world.home, agent.id, embedder).search_messages("pnpm", MessageFilter())
    finally:
        drip.close()
    assert [hit.message_id for hit in hits] == three  # BM25 order, the search still answers
    assert "deadline" in caplog.text


BAD_VECTORS = {
    "dimension": ([1, 0], [0, 1], [1, 0, 0], [1, 0.5]),  # one of another dimension
    "nan": ([1, 0], [float("nan"), 1], [1, 0.1], [1, 0.5]),
    "inf": ([1, 0], [float("inf"), 1], [1, 0.1], [1, 0.5]),
    "oversized": ([0.5] * 20_000, [0.5] * 20_000, [0.5] * 20_000, [0.5] * 20_000),
    "string": ([1, 0], ["1", 0], [1, 0.1], [1, 0.5]),
}


def test_bad_vectors_are_refused_and_never_cached(world, agent, three, scripted_server):
    """Each bad answer on one agent, under its own model name (the cache's key): the search
    falls back to BM25, and the next search asks for all four vectors again."""
    for case, vectors in BAD_VECTORS.items():
        embedder = OpenAIEmbedder(scripted_server.url + "/v1", f"embed-{case}", "sk-test")
        asked = len(scripted_server.requests)
        scripted_server.queue(embeddings(*vectors))
        recall = Recall(world.home, agent.id, embedder)
        hits = recall.search_messages("pnpm", MessageFilter())
        assert [hit.message_id for hit in hits] == three, case
        scripted_server.queue(embeddings([1, 0], [0, 1], [1, 0.1], [1, 0.5]))
        recall.search_messages("pnpm", MessageFilter())
        assert len(scripted_server.requests) == asked + 2, case  # nothing cached from the bad
        assert len(scripted_server.requests[-1].body["input"]) == 4, case
