"""Test providers and a test tool for the compaction tests, injected through TurnSetup.

RecordingProvider wraps any provider and keeps every request it was given. ToolCallingProvider
answers chat requests with tool calls (a fixed number per turn) and delegates summaries to the
mock. OverflowingProvider raises ContextOverflowError for requests larger than a limit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from mini_letta.agents.records import AgentRecord
from mini_letta.conversations.messages import ToolCall
from mini_letta.conversations.records import ConversationRecord
from mini_letta.conversations.registry import create_conversation
from mini_letta.conversations.store import ConversationStore
from mini_letta.errors import ContextOverflowError
from mini_letta.llm.base import (
    ModelEvent,
    ModelRequest,
    ModelToolCall,
    Provider,
    StopEvent,
    TextDelta,
    ToolSpec,
    UsageEvent,
)
from mini_letta.llm.mock import MockProvider
from mini_letta.llm.tokens import estimate_request_tokens
from mini_letta.loop.setup import TurnOptions, TurnSetup, build_turn_setup
from mini_letta.structs import Struct, field, replace
from mini_letta.tools.base import ToolContext, ToolResult, Toolset
from mini_letta.workspace import World
from support.agents import fresh_agent


def request_tokens(request: ModelRequest) -> int:
    return estimate_request_tokens(request.system, request.messages, request.tools)


class RecordingProvider:
    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.handle = inner.handle
        self.context_window = inner.context_window
        self.requests: list[ModelRequest] = []

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        self.requests.append(request)
        yield from self.inner.stream(request)

    def chat_requests(self) -> list[ModelRequest]:
        return [r for r in self.requests if r.purpose == "chat"]


class ToolCallingProvider:
    """Each turn: `calls_per_turn` echo calls (one per step), then a text answer."""

    def __init__(self, context_window: int, calls_per_turn: int = 2) -> None:
        self.handle = "test/tool-calling"
        self.context_window = context_window
        self.calls_per_turn = calls_per_turn
        self.summariser = MockProvider(context_window=context_window)
        self.counter = 0

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        if request.purpose == "summary":
            yield from self.summariser.stream(request)
            return
        done = 0
        for message in reversed(request.messages):
            if message.role == "user":
                break
            if message.role == "tool":
                done += 1
        if done < self.calls_per_turn:
            self.counter += 1
            args = json.dumps({"text": f"lookup {self.counter} " + "数据" * 10}, ensure_ascii=False)
            yield ModelToolCall(ToolCall(f"call-{self.counter}", "echo", args))
            yield StopEvent("tool_use")
            return
        yield TextDelta("好的，已经查完了。")
        yield StopEvent("end_turn")


class OverflowingProvider(Struct):
    """Overflows above `limit` tokens (our estimate) for the purposes listed; else the mock."""

    context_window: int
    limit: int
    purposes: tuple[str, ...] = ("chat",)
    handle: str = "test/overflowing"
    overflows: list[int] = field(default_factory=list)

    def stream(self, request: ModelRequest) -> Iterator[ModelEvent]:
        size = request_tokens(request)
        if request.purpose in self.purposes and size > self.limit:
            self.overflows.append(size)
            raise ContextOverflowError(f"prompt is too long: {size} tokens > {self.limit}")
        inner = MockProvider(context_window=self.context_window)
        for event in inner.stream(request):
            # Report no usage, as some servers do, so our estimate is all there is.
            if not isinstance(event, UsageEvent):
                yield event


class Crash(BaseException):
    """Stands for a SIGKILL between compaction's first and second write."""


class CrashingStore(ConversationStore):
    """A store that dies when compaction moves the pointer, after the summary was appended."""

    def save_record(self, record: ConversationRecord) -> None:
        if record.context.summary_message_id is not None:
            raise Crash
        super().save_record(record)


class EchoTool:
    spec = ToolSpec(
        name="echo",
        description="Echo the text back.",
        parameters={"type": "object", "properties": {"text": {"type": "string"}}},
    )
    kind = "read"

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("echo: " + str(args.get("text", "")) + " 结果" * 15)


def make_setup(
    world: World,
    provider: Provider,
    *,
    agent: AgentRecord | None = None,
    store: ConversationStore | None = None,
    tools: tuple[Any, ...] = (),
    system: str | None = None,
) -> TurnSetup:
    agent = agent or fresh_agent(world, name="tester")
    store = store or create_conversation(world.home, agent.id, world.clock)
    setup = build_turn_setup(world, agent, store, TurnOptions())
    changes: dict[str, Any] = {"provider": provider, "toolset": Toolset(tools)}
    if system is not None:
        changes["system_prompt"] = lambda: system
    return replace(setup, **changes)


# Twelve ordinary Chinese sentences, as a user might type them over a working day.
CHINESE_TURNS = (
    "我更喜欢用 tabs 缩进，因为团队里每个人的编辑器设置都不一样，统一用 tabs 最省事。",
    "今天我们决定以后一律用 pnpm 来管理依赖，不再用 npm 了，锁文件也要一起提交。",
    "帮我看下这个报错，构建的时候一直提示找不到模块 lodash，可是我明明已经安装过了。",
    "我们的测试服务器放在上海机房，部署窗口固定在每周四晚上八点到十点之间。",
    "数据库迁移脚本都放在 db/migrations 目录下面，文件名按照日期加序号来命名。",
    "以后代码评审至少需要两个人批准才能合并到主分支，紧急修复也不能例外。",
    "前端项目用的是 React 18 和 Vite，后端是 FastAPI 加 PostgreSQL 十五。",
    "我女儿下个月五号过生日，提醒我那一周不要安排太多会议，我想早点下班。",
    "日志统一输出到标准输出，由容器平台负责收集和归档，保留三十天就够了。",
    "下周一开始我们改成每天早上十点开站会，每次控制在十五分钟以内结束。",
    "配置文件里不要提交任何密钥，所有密钥都放在环境变量或者密钥管理服务里。",
    "请记住我叫小林，是这个项目的技术负责人，有架构上的问题可以直接找我。",
)
