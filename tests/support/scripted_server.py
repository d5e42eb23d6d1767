"""A scripted HTTP server for provider tests: queue responses, get every request recorded.

One stdlib `ThreadingHTTPServer` on 127.0.0.1:0 serves a whole test session; each test queues
`Reply` objects in order (status, headers, a JSON body or SSE events, an optional delay, or a
dropped connection) and `check()` at teardown fails on an unexpected request or an unused
reply. Builders below produce the OpenAI Chat Completions and Anthropic Messages wire formats,
so the real SDKs parse exactly what a real server sends.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mini_letta.structs import Struct, field

SseEvent = tuple[str | None, Any]  # (event name, data: a JSON value or a raw string)


class Reply(Struct):
    status: int = 200
    body: Any = None
    sse: list[SseEvent] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False  # close the connection before sending anything
    drop_after: int | None = None  # SSE: close mid-body after this many events
    pause_after: int | None = None  # SSE: wait `pause` seconds after this many events
    pause: float = 0.0


class Recorded(Struct):
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # a client closing its keep-alive connection is normal here
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class ScriptedServer:
    def __init__(self) -> None:
        self._replies: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self.unexpected: list[Recorded] = []
        self.cancel = threading.Event()
        self._lock = threading.Lock()
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.cancel.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self._replies.clear()
            self.requests.clear()
            self.unexpected.clear()
        self.cancel.clear()

    def check(self, shapes: bool = True) -> None:
        """Teardown: every queued reply was used, no request came unannounced and (`shapes`)
        every request has one message per role turn and breakpoints the API accepts."""
        with self._lock:
            unused = len(self._replies)
            unexpected = [f"{r.method} {r.path}" for r in self.unexpected]
        self.cancel.set()  # release any handler still waiting out a delay
        assert not unexpected, f"unexpected requests: {unexpected}"
        assert not unused, f"{unused} queued replies were never requested"
        for recorded in self.requests if shapes else ():
            problem = role_problem(recorded.body) or breakpoint_problem(recorded.body)
            assert problem is None, f"{recorded.method} {recorded.path}: {problem}"

    def _next(self, recorded: Recorded) -> Reply | None:
        with self._lock:
            self.requests.append(recorded)
            if self._replies:
                return self._replies.popleft()
            self.unexpected.append(recorded)
            return None


def role_problem(body: Any) -> str | None:
    """Why a chat request would fail a strict chat template (None when it would not).

    One message per role turn: never two `user` or two `assistant` messages in a row (several
    `tool` results in a row answer one assistant message, which every template accepts), and
    a system message only first.
    """
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return None
    roles = [m.get("role") for m in messages if isinstance(m, dict)]
    for index, (before, after) in enumerate(zip(roles, roles[1:], strict=False), start=1):
        if before == after and before != "tool":
            return f"messages {index - 1} and {index} are both {before!r}: {roles}"
    if "system" in roles[1:]:
        return f"a system message after the first: {roles}"
    return None


MAX_BREAKPOINTS = 4  # the Messages API refuses a request with more cache_control markers


def cache_breakpoints(body: Any) -> list[tuple[str, int, int, str]]:
    """Where an Anthropic request asks for prompt caching: (part, index, block, ttl), in order.

    `part` is tools, system or messages; `block` is the content block of a message (0 else).
    """
    found: list[tuple[str, int, int, str]] = []
    if not isinstance(body, dict):
        return found
    for index, tool in enumerate(body.get("tools") or []):
        if "cache_control" in tool:
            found.append(("tools", index, 0, _ttl(tool["cache_control"])))
    system = body.get("system")
    for index, block in enumerate(system if isinstance(system, list) else []):
        if "cache_control" in block:
            found.append(("system", index, 0, _ttl(block["cache_control"])))
    for index, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        for number, block in enumerate(content if isinstance(content, list) else []):
            if isinstance(block, dict) and "cache_control" in block:
                found.append(("messages", index, number, _ttl(block["cache_control"])))
    return found


def breakpoint_problem(body: Any) -> str | None:
    """What the Messages API would refuse about a request's cache breakpoints (None: nothing)."""
    found = cache_breakpoints(body)
    if len(found) > MAX_BREAKPOINTS:
        return f"{len(found)} cache breakpoints, the API allows {MAX_BREAKPOINTS}: {found}"
    ttls = [ttl for *_, ttl in found]
    if "5m" in ttls and "1h" in ttls[ttls.index("5m") :]:
        return f"a 1h breakpoint after a 5m one: {found}"
    return None


def _ttl(marker: Any) -> str:
    assert isinstance(marker, dict) and marker.get("type") == "ephemeral", marker
    ttl = marker.get("ttl", "5m")
    assert ttl in ("5m", "1h"), marker
    return str(ttl)


def _handler_for(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = None
            recorded = Recorded(
                self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body, raw
            )
            reply = server._next(recorded)
            # The client may have gone away (an interrupted test); nothing to do then.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._send(reply)

        def _send(self, reply: Reply | None) -> None:
            if reply is None:
                self._send_json(500, {"error": {"message": "no reply queued"}}, {})
                return
            if reply.delay and server.cancel.wait(reply.delay):
                self.close_connection = True
                return
            if reply.drop:
                self.close_connection = True
                return
            if reply.sse is None:
                self._send_json(reply.status, reply.body, reply.headers)
            else:
                self._send_sse(reply)

        def _send_json(self, status: int, body: Any, headers: dict[str, str]) -> None:
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _send_sse(self, reply: Reply) -> None:
            self.send_response(reply.status)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            for key, value in reply.headers.items():
                self.send_header(key, value)
            self.end_headers()
            for index, (name, data) in enumerate(reply.sse or []):
                if reply.drop_after is not None and index >= reply.drop_after:
                    self.wfile.flush()
                    self.close_connection = True
                    return  # no terminating chunk: the client sees a broken body
                if index == reply.pause_after and server.cancel.wait(reply.pause):
                    return
                text = data if isinstance(data, str) else json.dumps(data)
                frame = (f"event: {name}\n" if name else "") + f"data: {text}\n\n"
                self._chunk(frame.encode())
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    return Handler


# -- OpenAI Chat Completions ---------------------------------------------------------------


def openai_tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def openai_stream(
    text: str = "",
    tool_calls: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] | None = (12, 5),
    finish_reason: str | None = None,
    chunk_size: int = 4,
    cached: int | None = None,
    reasoning: str = "",
    reasoning_field: str = "reasoning_content",
) -> Reply:
    """An SSE reply: role chunk, reasoning in pieces (under `reasoning_field`, as DeepSeek, vLLM,
    Ollama and OpenRouter send it), text in pieces, tool calls in argument fragments, usage."""
    calls = tool_calls or []
    finish = finish_reason or ("tool_calls" if calls else "stop")
    chunks: list[dict[str, Any]] = [_oa_chunk({"role": "assistant", "content": ""})]
    for start in range(0, len(reasoning), chunk_size):
        piece = reasoning[start : start + chunk_size]
        chunks.append(_oa_chunk({"content": None, reasoning_field: piece}))
    for start in range(0, len(text), chunk_size):
        chunks.append(_oa_chunk({"content": text[start : start + chunk_size]}))
    for index, call in enumerate(calls):
        head = {"index": index, "id": call["id"], "type": "function"}
        head["function"] = {"name": call["name"], "arguments": ""}
        chunks.append(_oa_chunk({"tool_calls": [head]}))
        args = call["arguments"]
        for start in range(0, len(args), 7):
            piece = {"index": index, "function": {"arguments": args[start : start + 7]}}
            chunks.append(_oa_chunk({"tool_calls": [piece]}))
    chunks.append(_oa_chunk({}, finish))
    if usage is not None:
        chunks.append(
            {
                **_oa_chunk({}),
                "choices": [],
                "usage": _oa_usage(usage, cached),
            }
        )
    events: list[SseEvent] = [(None, chunk) for chunk in chunks]
    events.append((None, "[DONE]"))
    return Reply(sse=events)


def _oa_usage(usage: tuple[int, int], cached: int | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "prompt_tokens": usage[0],
        "completion_tokens": usage[1],
        "total_tokens": sum(usage),
    }
    if cached is not None:  # OpenAI sends it; many compatible servers do not
        data["prompt_tokens_details"] = {"cached_tokens": cached}
    return data


def _oa_chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def openai_completion(
    text: str = "",
    tool_calls: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] = (12, 5),
    finish_reason: str | None = None,
    cached: int | None = None,
) -> Reply:
    calls = tool_calls or []
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": call["arguments"]},
            }
            for call in calls
        ]
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish_reason or ("tool_calls" if calls else "stop"),
            }
        ],
        "usage": _oa_usage(usage, cached),
    }
    return Reply(body=body)


def openai_error(
    status: int,
    message: str,
    *,
    type: str = "invalid_request_error",
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    error = {"message": message, "type": type, "param": None, "code": code}
    return Reply(status=status, body={"error": error}, headers=headers or {})


# -- Anthropic Messages ----------------------------------------------------------------------


def anthropic_stream(
    text: str = "",
    tool_uses: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] = (20, 7),
    stop_reason: str | None = None,
    chunk_size: int = 4,
    cache: tuple[int, int] | None = None,
    thinking: str = "",
) -> Reply:
    """An SSE reply: message_start, one block per thinking/text/tool_use with deltas,
    message_delta/stop.

    `cache` is (cache_read_input_tokens, cache_creation_input_tokens), sent in message_start.
    """
    uses = tool_uses or []
    events: list[SseEvent] = [
        (
            "message_start",
            {"type": "message_start", "message": _an_message([], None, (usage[0], 1), cache)},
        ),
        ("ping", {"type": "ping"}),
    ]
    index = 0
    if thinking:
        events.append(_an_block_start(index, {"type": "thinking", "thinking": "", "signature": ""}))
        for start in range(0, len(thinking), chunk_size):
            delta = {"type": "thinking_delta", "thinking": thinking[start : start + chunk_size]}
            events.append(_an_delta(index, delta))
        events.append(_an_delta(index, {"type": "signature_delta", "signature": "c2lnbmVk"}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    if text:
        events.append(_an_block_start(index, {"type": "text", "text": ""}))
        for start in range(0, len(text), chunk_size):
            delta = {"type": "text_delta", "text": text[start : start + chunk_size]}
            events.append(_an_delta(index, delta))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    for use in uses:
        block = {"type": "tool_use", "id": use["id"], "name": use["name"], "input": {}}
        events.append(_an_block_start(index, block))
        raw = use["input"] if isinstance(use["input"], str) else json.dumps(use["input"])
        for start in range(0, len(raw), 9):
            delta = {"type": "input_json_delta", "partial_json": raw[start : start + 9]}
            events.append(_an_delta(index, delta))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    stop = stop_reason or ("tool_use" if uses else "end_turn")
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": usage[1]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return Reply(sse=events)


def _an_block_start(index: int, block: dict[str, Any]) -> SseEvent:
    return (
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": block},
    )


def _an_delta(index: int, delta: dict[str, Any]) -> SseEvent:
    return ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})


def _an_message(
    content: list[dict[str, Any]],
    stop_reason: str | None,
    usage: tuple[int, int],
    cache: tuple[int, int] | None = None,
) -> dict[str, Any]:
    counts: dict[str, int] = {"input_tokens": usage[0], "output_tokens": usage[1]}
    if cache is not None:
        counts["cache_read_input_tokens"], counts["cache_creation_input_tokens"] = cache
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": counts,
    }


def anthropic_message(
    text: str = "",
    tool_uses: list[dict[str, Any]] | None = None,
    usage: tuple[int, int] = (20, 7),
    stop_reason: str | None = None,
    cache: tuple[int, int] | None = None,
) -> Reply:
    uses = tool_uses or []
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [
        {"type": "tool_use", "id": use["id"], "name": use["name"], "input": use["input"]}
        for use in uses
    ]
    stop = stop_reason or ("tool_use" if uses else "end_turn")
    return Reply(body=_an_message(content, stop, usage, cache))


def anthropic_error(
    status: int, message: str, *, type: str, headers: dict[str, str] | None = None
) -> Reply:
    body = {"type": "error", "error": {"type": type, "message": message}}
    return Reply(status=status, body=body, headers=headers or {})
