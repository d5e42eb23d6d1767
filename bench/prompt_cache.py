"""How cacheable are a conversation's requests? 20 turns against the scripted server.

Usage: python bench/prompt_cache.py [--provider openai|anthropic|both] [--src PATH] [--explain]
Runs `mini-letta chat -p` in this process (the CLI's own entry point) for 20 turns of one
conversation on a real-model path, against the test suite's scripted server: the agent edits
memory itself in turns 5 and 15 (a `memory` tool call), and a reflection run (`mini-letta
reflect`, one edit, merged) lands between turns 10 and 11. It prints the number of distinct
system prompts among the chat requests and, per request, the share of its bytes that is an
identical prefix of the previous chat request. Bytes are counted in the order the model reads a
request (tools, system prompt, messages; each part as the SDK sent it, re-serialised with sorted
keys), which is the prefix providers cache; the JSON body's own key order does not matter to
them. For Anthropic the share is computed without the `cache_control` markers, which say where
to write cache entries and are not part of what is matched (Anthropic's prompt-caching guide:
its automatic mode "moves [the breakpoint] forward as conversations grow", and a breakpoint
looks up cache hits at earlier block boundaries too); the share with the markers left in is
printed beside it. It also checks every request's cache breakpoints (at most 4: the system
prompt and the last two user turns). The goal's number of system prompts is the number of
recompile points the scenario meets: only the new conversation (the agent's own edits never
recompile, and the reflection merge reaches the agent as a memory update in its next message).
Each provider runs twice: a fresh agent (a ~1 KB system prompt, so each turn's new messages are
a large share of a request) and a lived-in one (about 2 KB of memory seeded first). `--src`
runs another checkout (say /work/main/src) to compare; the scripted server always comes from
this one. `--explain` prints, for every request that does not start with the whole previous
request (less its closing bracket), where the shared prefix ends and 80 bytes either side.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.scripted_server import (  # noqa: E402
    Recorded,
    Reply,
    anthropic_message,
    anthropic_stream,
    breakpoint_problem,
    cache_breakpoints,
    openai_completion,
    openai_stream,
    openai_tool_call,
    role_problem,
)

TURNS = 20
AGENT_EDITS = (5, 15)
REFLECTION_AFTER = 10
RECOMPILE_POINTS = 1  # the new conversation; see the module docstring
MODELS = {"openai": "openai/gpt-4o-mini", "anthropic": "anthropic/claude-sonnet-4-5"}
ANSWER = "好的，我明白了。这是第 {n} 轮的回答，我们继续讨论接口的设计和错误处理。"


class Script:
    """Builds the provider's replies: a text answer, a tool call, a non-streamed reply."""

    def __init__(self, provider: str) -> None:
        self.provider = provider

    def answer(self, text: str) -> Reply:
        return openai_stream(text) if self.provider == "openai" else anthropic_stream(text)

    def call(self, call_id: str, name: str, args: dict[str, Any]) -> Reply:
        if self.provider == "openai":
            return openai_stream("", [openai_tool_call(call_id, name, json.dumps(args))])
        return anthropic_stream("", [{"id": call_id, "name": name, "input": args}])

    def side(self, text: str, call: tuple[str, str, dict[str, Any]] | None = None) -> Reply:
        """A reply to a non-streamed request (the reflection agent's)."""
        if self.provider == "openai":
            calls = [openai_tool_call(call[0], call[1], json.dumps(call[2]))] if call else None
            return openai_completion(text, calls)
        uses = [{"id": call[0], "name": call[1], "input": call[2]}] if call else None
        return anthropic_message(text, uses)


def _cli(args: list[str]) -> None:
    from mini_letta.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    if code:
        raise SystemExit(f"mini-letta {' '.join(args)} failed ({code}): {err.getvalue()}")


def _remember(fact: str) -> dict[str, Any]:
    return {"command": "insert", "path": "system/human.md", "content": f"- {fact}", "reason": fact}


HUMAN_FACTS = [
    "名字叫小林，是这个项目的技术负责人，时区是上海（UTC+8）",
    "更喜欢用 tabs 缩进；评审时希望先看测试再看实现",
    "依赖一律用 pnpm 管理，锁文件要一起提交",
    "部署窗口固定在每周四晚上八点到十点",
    "回答尽量简短，先给结论，再给理由",
    "不喜欢在代码里写 TODO，宁可开一个 issue",
    "常用编辑器是 vim，终端是 tmux",
    "周五下午不安排会议",
]
PROJECT_NOTES = """# 支付服务（payments）
- 仓库：git@example.com:acme/payments.git，主分支 main，合并需要两人批准
- 后端 FastAPI + PostgreSQL 15，迁移脚本在 db/migrations，文件名按日期加序号
- 前端 React 18 + Vite；端到端测试用 Playwright，跑在 CI 的第二阶段
- 日志输出到标准输出，由平台收集，保留三十天
- 密钥只放在环境变量或密钥管理服务里，绝不提交
- 已知问题：重试逻辑在 429 时没有遵守 retry-after，见 issue 142
- 决定：错误码统一用 RFC 7807 problem+json
"""


def seed_memory(agent_name: str) -> None:
    """A lived-in agent: a few facts about the person and one project's notes, committed."""
    from mini_letta.agents.registry import find_agent
    from mini_letta.home import Home
    from mini_letta.memory.edits import apply_memory_edit
    from mini_letta.memory.repo import GitRepo

    home = Home.from_env(os.environ)
    memory = home.memory_dir(find_agent(home, agent_name).id)
    facts = "\n".join(f"- {fact}" for fact in HUMAN_FACTS)
    apply_memory_edit(memory, "insert", {"path": "system/human.md", "content": facts})
    project = {"description": "The payments project: stack, rules, decisions."}
    apply_memory_edit(
        memory,
        "create",
        {"path": "system/projects/payments.md", **project, "content": PROJECT_NOTES},
    )
    paths = ["system/human.md", "system/projects/payments.md"]
    GitRepo(memory).commit_paths(paths, "What I have learnt so far")


def run_conversation(server: Any, provider: str, lived_in: bool) -> list[Recorded]:
    """The 20-turn scenario; returns the chat requests (streamed ones) in order."""
    script = Script(provider)
    model = MODELS[provider]
    name = f"bench-{provider}"
    _cli(["agents", "create", "--model", model, "--name", name])
    if lived_in:
        seed_memory(name)
    for n in range(1, TURNS + 1):
        if n in AGENT_EDITS:
            fact = f"第 {n} 轮：我更喜欢用 tabs 缩进"
            server.queue(script.call(f"call_{n}", "memory", _remember(fact)))
        server.queue(script.answer(ANSWER.format(n=n)))
        _cli(["chat", "-p", f"第 {n} 轮：帮我看下这个报错，模块找不到。"])
        if n == REFLECTION_AFTER:
            edit = {"command": "insert", "path": "system/human.md", "content": "- 用 pnpm 管理依赖"}
            server.queue(
                script.side("", ("r1", "memory", edit)),
                script.side("", ("r2", "memory_commit", {"message": "Remember pnpm"})),
                script.side("Done."),
            )
            _cli(["reflect"])
    return [r for r in server.requests if isinstance(r.body, dict) and r.body.get("stream")]


def readable_bytes(body: dict[str, Any], markers: bool = False) -> bytes:
    """The request in the order the model reads it: tools, system prompt, messages.

    Anthropic's `cache_control` markers are left out unless `markers`: they say where to
    cache, they are not prompt content, and the API matches cached prefixes on content alone.
    """
    body = body if markers else _without_markers(body)
    messages = list(body.get("messages") or [])
    system: Any = body.get("system")
    if system is None and messages and messages[0].get("role") == "system":
        system = messages.pop(0)
    parts = [body.get("tools") or [], system or "", messages]
    return b"".join(json.dumps(part, sort_keys=True, ensure_ascii=False).encode() for part in parts)


def _without_markers(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_markers(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_without_markers(item) for item in value]
    return value


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if system is None:
        first = (body.get("messages") or [{}])[0]
        return str(first.get("content")) if first.get("role") == "system" else ""
    if isinstance(system, list):
        return "".join(block.get("text", "") for block in system)
    return str(system)


def prefix_shares(
    requests: list[Recorded], markers: bool = False
) -> tuple[list[float], list[float]]:
    """Per request: the share of its bytes that starts the previous request too, and the most
    that share could be (the whole previous request reused; a turn adds what it adds)."""
    shares, ideal = [], []
    for before, after in zip(requests, requests[1:], strict=False):
        a, b = readable_bytes(before.body, markers), readable_bytes(after.body, markers)
        common = len(os.path.commonprefix([a, b]))
        shares.append(100.0 * common / len(b))
        ideal.append(100.0 * min(len(a), len(b)) / len(b))
    return shares, ideal


def explain_breaks(requests: list[Recorded]) -> list[str]:
    """Where each request stops matching the previous one, when that is before its end."""
    lines = []
    for number, (before, after) in enumerate(zip(requests, requests[1:], strict=False), 2):
        a, b = readable_bytes(before.body), readable_bytes(after.body)
        common = len(os.path.commonprefix([a, b]))
        if common >= min(len(a), len(b)) - 1:  # all but the previous request's closing `]`
            continue
        lines.append(f"  request {number}: prefix ends at byte {common:,} of {len(b):,}")
        for name, data in (("before", a), ("after", b)):
            window = data[max(0, common - 80) : common + 80].decode("utf-8", "replace")
            lines.append(f"    {name}: {window!r}")
    return lines or ["  every request starts with the whole previous one"]


def report(
    label: str,
    provider: str,
    requests: list[Recorded],
    server_requests_all: list[Recorded],
    explain: bool = False,
) -> bool:
    systems = {system_text(r.body) for r in requests}
    shares, ideal = prefix_shares(requests)
    mean = statistics.mean(shares)
    sizes = [len(readable_bytes(r.body)) for r in requests]
    print(
        f"{provider}, {label}: {len(requests)} chat requests ({sizes[0]:,} to {sizes[-1]:,} "
        f"bytes), {len(systems)} distinct system prompts"
    )
    print("  prefix share per request (% of bytes identical to the previous request's start):")
    print("  " + " ".join(f"{share:.0f}" for share in shares))
    print(
        f"  mean {mean:.1f}%  median {statistics.median(shares):.1f}%  min {min(shares):.1f}%"
        f"  (the most possible, every previous byte reused: mean {statistics.mean(ideal):.1f}%)"
    )
    if explain:
        print("\n".join(explain_breaks(requests)))
    doubled = sum(1 for r in server_requests_all if role_problem(r.body))
    total = len(server_requests_all)
    print(f"  requests with two messages of one role in a row: {doubled} of {total}")
    ok = len(systems) == RECOMPILE_POINTS
    met = "met" if mean >= 95 and ok else "NOT met"
    print(f"  goal (mean >= 95%, {RECOMPILE_POINTS} system prompts): {met}")
    if provider == "anthropic":
        marked = statistics.mean(prefix_shares(requests, markers=True)[0])
        print(f"  with the cache_control markers counted as bytes: mean {marked:.1f}%")
        problems = [p for r in requests if (p := breakpoint_problem(r.body))]
        counts = sorted({len(cache_breakpoints(r.body)) for r in requests})
        places = {tuple(part for part, *_ in cache_breakpoints(r.body)) for r in requests}
        print(f"  breakpoints per request: {counts}; placements: {sorted(places)}")
        print(f"  breakpoint problems: {problems or 'none'}")
        ok = ok and not problems and counts != [0]
    return ok


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--provider", choices=["openai", "anthropic", "both"], default="both")
    parser.add_argument("--src", type=Path, default=ROOT / "src")
    parser.add_argument("--explain", action="store_true", help="show where each prefix ends")
    opts = parser.parse_args()
    sys.path.insert(0, str(opts.src.resolve()))
    from support.scripted_server import ScriptedServer

    server = ScriptedServer().start()
    ok = True
    try:
        providers = ["openai", "anthropic"] if opts.provider == "both" else [opts.provider]
        runs = [(p, lived) for p in providers for lived in (False, True)]
        for provider, lived_in in runs:
            server.reset()
            with tempfile.TemporaryDirectory() as tmp:
                project = Path(tmp) / "project"
                project.mkdir()
                os.environ.update(
                    {
                        "MINI_LETTA_HOME": str(Path(tmp) / "home"),
                        "OPENAI_API_KEY": "sk-bench",
                        "OPENAI_BASE_URL": server.url + "/v1",
                        "ANTHROPIC_API_KEY": "sk-bench",
                        "ANTHROPIC_BASE_URL": server.url,
                    }
                )
                previous = Path.cwd()
                os.chdir(project)
                try:
                    requests = run_conversation(server, provider, lived_in)
                finally:
                    os.chdir(previous)
                server.check(shapes=False)  # reported below, so an older checkout can run
            label = "lived-in agent (about 2 KB of memory)" if lived_in else "fresh agent"
            ok = report(label, provider, requests, list(server.requests), opts.explain) and ok
    finally:
        server.stop()
    if not ok:
        raise SystemExit(
            "the prefix is not stable: more system prompts than recompile points, "
            "or bad breakpoints"
        )


if __name__ == "__main__":
    main()
