"""Optional semantic ranking: an OpenAI-compatible `/embeddings` endpoint, vectors cached.

Configured in settings.json as `"embeddings": {"baseUrl": ..., "model": ..., "apiKeyEnv": ...}`
(any model name; the key variable may be left out for a local server). Only BM25's candidates
are embedded, at search time, one request per search at most, and every vector is cached in
the index by (model, content hash), so a text is embedded once. The openai SDK is imported
only when a search actually needs a vector. If the endpoint fails, the search falls back to
BM25 order with a warning rather than failing: recall must keep working offline.
"""

from __future__ import annotations

import hashlib
import math
import sqlite3
import time
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Protocol, TypeVar

from mini_letta import log
from mini_letta.errors import ConfigError, ProviderError
from mini_letta.home import Home
from mini_letta.settings import load_global_settings
from mini_letta.structs import Struct

RRF_K = 60  # the usual reciprocal-rank-fusion constant: damps the weight of the very top ranks
DEADLINE = 30.0  # seconds for one whole embeddings request, however the server drips
MAX_DIMENSIONS = 16_384  # the largest embedding models give 3,072 to 8,192
_BYTES_PER_NUMBER = 32  # "-0.0123456789012345678e-05, " with room to spare
_BODY_SLACK = 64 * 1024

H = TypeVar("H")


class Embedder(Protocol):
    @property
    def model(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class OpenAIEmbedder(Struct, frozen=True):
    """Embeddings from any OpenAI-compatible server through the official SDK.

    The SDK's timeout is per read, so a server sending a byte every few seconds could hold a
    search for minutes: the body is read in chunks against one total `deadline`, at most
    `MAX_DIMENSIONS` numbers' worth of bytes per text, and every vector is checked (finite
    numbers, one dimension, not too long) before anything is cached.
    """

    base_url: str
    model: str
    api_key: str
    deadline: float = DEADLINE

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        import openai

        from mini_letta.llm.http_client import sdk_http_client

        client = openai.OpenAI(
            base_url=self.base_url,
            api_key=self.api_key,
            max_retries=0,
            timeout=self.deadline,
            http_client=sdk_http_client(openai),
        )
        stop_at = time.monotonic() + self.deadline
        limit = _BODY_SLACK + len(texts) * MAX_DIMENSIONS * _BYTES_PER_NUMBER
        try:
            with client.embeddings.with_streaming_response.create(
                model=self.model, input=list(texts), encoding_format="float"
            ) as response:
                body = _read_within(response.iter_bytes(), stop_at, limit, self.base_url)
        except openai.OpenAIError as exc:
            raise ProviderError(f"embeddings at {self.base_url}: {_one_line(exc)}") from exc
        finally:
            client.close()
        return parse_vectors(body, len(texts))


def _read_within(chunks: Iterator[bytes], stop_at: float, limit: int, where: str) -> bytes:
    parts: list[bytes] = []
    size = 0
    for chunk in chunks:
        parts.append(chunk)
        size += len(chunk)
        if size > limit:
            raise ProviderError(f"embeddings at {where}: the answer is larger than {limit} bytes")
        if time.monotonic() > stop_at:
            raise ProviderError(f"embeddings at {where}: no full answer within the deadline")
    return b"".join(parts)


def parse_vectors(body: bytes, count: int) -> list[list[float]]:
    """The `count` vectors of an embeddings answer, in input order; ValueError unless each is
    a list of finite numbers, all of one dimension of at most `MAX_DIMENSIONS`."""
    import json

    try:
        answer = json.loads(body) if body.strip().startswith(b"{") else None
    except RecursionError:
        raise ValueError("the embeddings answer is nested too deeply") from None
    data = answer.get("data") if isinstance(answer, dict) else None
    if not isinstance(data, list) or len(data) != count:
        raise ValueError(f"asked for {count} embeddings, got an answer without them")
    vectors: list[list[float]] = []
    for item in sorted(data, key=lambda entry: _index(entry)):
        vector = item.get("embedding")
        if not isinstance(vector, list) or not 0 < len(vector) <= MAX_DIMENSIONS:
            raise ValueError(f"an embedding must be 1 to {MAX_DIMENSIONS} numbers")
        if not all(type(x) in (int, float) and math.isfinite(x) for x in vector):
            raise ValueError("an embedding holds something other than finite numbers")
        vectors.append([float(x) for x in vector])
    if len({len(vector) for vector in vectors}) > 1:
        raise ValueError("the embeddings differ in dimension")
    return vectors


def _index(entry: object) -> int:
    index = entry.get("index") if isinstance(entry, dict) else None
    if not isinstance(index, int):
        raise ValueError("an embedding without its index")
    return index


def load_embedder(home: Home, environ: Mapping[str, str]) -> OpenAIEmbedder | None:
    """The configured embedder, or None when settings.json has no `embeddings`."""
    config = load_global_settings(home).get("embeddings")
    if config is None:
        return None
    where = f"{home.settings_file} embeddings"
    if not isinstance(config, dict):
        raise ConfigError(f"{where} must be an object with baseUrl and model")
    base_url, model, key_env = config.get("baseUrl"), config.get("model"), config.get("apiKeyEnv")
    if not isinstance(base_url, str) or not base_url or not isinstance(model, str) or not model:
        raise ConfigError(f"{where} needs baseUrl and model (strings)")
    if key_env is not None and not isinstance(key_env, str):
        raise ConfigError(f"{where}.apiKeyEnv must be the name of an environment variable")
    api_key = environ.get(key_env, "") if key_env else ""
    if key_env and not api_key:
        raise ConfigError(f"{key_env} is not set (embeddings need it; or remove apiKeyEnv)")
    return OpenAIEmbedder(base_url.rstrip("/"), model, api_key or "not-needed")


def fuse_by_similarity(
    conn: sqlite3.Connection,
    embedder: Embedder,
    query: str,
    hits: Sequence[H],
    text_of: Callable[[H], str],
) -> list[tuple[H, float]]:
    """`hits` (in BM25 order) re-ordered by reciprocal rank fusion of BM25 and cosine
    similarity to the query; the score is the fused one."""
    if not hits:
        return []
    try:
        vectors = _vectors(conn, embedder, [query, *(text_of(hit) for hit in hits)])
    except (ProviderError, ValueError, TypeError) as exc:  # keep the BM25 answer
        log.warning("embeddings unavailable (%s); ranking by BM25 alone", _one_line(exc))
        return [(hit, 1.0 / (RRF_K + rank)) for rank, hit in enumerate(hits, start=1)]
    query_vector, hit_vectors = vectors[0], vectors[1:]
    by_similarity = sorted(
        range(len(hits)), key=lambda i: _cosine(query_vector, hit_vectors[i]), reverse=True
    )
    fused = [1.0 / (RRF_K + rank) for rank in range(1, len(hits) + 1)]
    for rank, index in enumerate(by_similarity, start=1):
        fused[index] += 1.0 / (RRF_K + rank)
    order = sorted(range(len(hits)), key=lambda i: fused[i], reverse=True)
    return [(hits[i], fused[i]) for i in order]


def _vectors(conn: sqlite3.Connection, embedder: Embedder, texts: list[str]) -> list[list[float]]:
    """Vectors for `texts` from the cache, asking the endpoint once for the missing ones."""
    keys = [hashlib.sha256(text.encode("utf-8")).hexdigest() for text in texts]
    cached: dict[str, list[float]] = {}
    for key in dict.fromkeys(keys):
        row = conn.execute(
            "SELECT vector FROM vectors WHERE model = ? AND hash = ?", (embedder.model, key)
        ).fetchone()
        if row is not None:
            stored = array("f")
            stored.frombytes(row[0])
            cached[key] = stored.tolist()
    missing = [i for i, key in enumerate(keys) if key not in cached]
    wanted = list(dict.fromkeys(keys[i] for i in missing))
    if wanted:
        first = {key: texts[keys.index(key)] for key in wanted}
        fresh = embedder.embed(list(first.values()))
        if len(fresh) != len(wanted):
            raise ValueError(f"asked for {len(wanted)} embeddings, got {len(fresh)}")
        dimensions = {len(v) for v in fresh} | {len(v) for v in cached.values()}
        if len(dimensions) > 1:  # another model under the same name, or a confused server
            raise ValueError("the embeddings differ in dimension from the cached ones")
        for key, vector in zip(wanted, fresh, strict=True):
            cached[key] = vector
            conn.execute(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                (embedder.model, key, array("f", vector).tobytes()),
            )
    return [cached[key] for key in keys]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"
