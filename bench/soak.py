"""Months of use in miniature: many varied mock turns on a small window, then the checks.

Usage: python bench/soak.py [--turns 1000] [--window 4096] [--seed 7]
Two conversations of one agent take turns (step-count 25, foreground reflection, an 8k window):
preferences that change (tabs/spaces, pnpm/npm/yarn, vim/emacs, employers), "remember …"
(often the same fact again), project facts, small talk and pastes, in English and Chinese.
Each turn is a real `chat -p` run in this process (`cli.main.main` with its own terminal).
At the end it checks what the issue asks: reflection still merges, every watermark is within
one slice of its log's end, no system/ file is over its budget, no memory file has an exact
duplicate line. tests/unit/reflection/test_soak.py runs a small version.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from mini_letta.agents.registry import load_agent  # noqa: E402
from mini_letta.cli.main import main as cli_main  # noqa: E402
from mini_letta.cli.terminal import Terminal  # noqa: E402
from mini_letta.conversations.registry import list_conversations  # noqa: E402
from mini_letta.conversations.store import ConversationStore  # noqa: E402
from mini_letta.home import Home  # noqa: E402
from mini_letta.llm.tokens import estimate_tokens  # noqa: E402
from mini_letta.reflection.gate.check import GateLimits  # noqa: E402
from mini_letta.reflection.run.backlog import plan_backlog  # noqa: E402
from mini_letta.reflection.run.launch import launch_reflection
from mini_letta.reflection.run.setup import LaunchOptions
from mini_letta.reflection.state.records import list_run_records  # noqa: E402
from mini_letta.reflection.state.settings import load_reflection_settings  # noqa: E402
from mini_letta.structs import Struct  # noqa: E402
from mini_letta.workspace import World  # noqa: E402

CHOICES = {
    "indent": [("I prefer tabs for indentation.", "我更喜欢用 tabs 缩进"),
               ("I prefer spaces for indentation.", "我更喜欢用空格缩进")],
    "pm": [("From now on we use pnpm everywhere.", "今天我们决定以后一律用 pnpm"),
           ("From now on we use yarn everywhere.", "从现在起我们一律用 yarn"),
           ("From now on we use npm everywhere.", "以后都用 npm")],
    "editor": [("I prefer vim as my editor.", "我喜欢用 vim"),
               ("I prefer emacs as my editor.", "我喜欢用 emacs")],
    "job": [("I work at Acme now.", "我在Acme工作"), ("I work at Globex now.", "我在Globex工作"),
            ("I work at Initech now.", "我在Initech工作")],
}  # fmt: skip
REMEMBER = [
    "remember that my standup is at 9:30",
    "记住：周五不发布",
    "remember that the staging database is read-only on Mondays",
    "请记住我对花生过敏",
]
PROJECT = ["In this repo we deploy on Wednesdays only.", "这个仓库的测试用 pytest 跑"]
FINAL = "From now on we use bun everywhere."
SMALL_TALK = ["hi", "thanks!", "嗯", "好的", "what's up?", "今天天气不错", "ok", "cool"]


def _paste(rng: random.Random) -> str:
    body = "\n".join(
        f"    def step_{n}(self, value):\n        return value * {n}  # 计算 {n}"
        for n in range(rng.randint(20, 80))
    )
    return f"Can you look at this?\n```python\nclass Pipeline:\n{body}\n```"


def soak_texts(turns: int, seed: int) -> list[str]:
    """`turns` user messages: a seeded mix of every kind, both languages."""
    rng = random.Random(seed)
    texts: list[str] = []
    for _ in range(turns):
        roll = rng.random()
        zh = rng.random() < 0.5
        if roll < 0.25:
            pair = rng.choice(rng.choice(list(CHOICES.values())))
            texts.append(pair[1] if zh else pair[0])
        elif roll < 0.40:
            texts.append(rng.choice(REMEMBER))
        elif roll < 0.47:
            texts.append(rng.choice(PROJECT))
        elif roll < 0.55:
            texts.append(_paste(rng))
        else:
            texts.append(rng.choice(SMALL_TALK))
    return texts


class SoakReport(Struct, frozen=True):
    turns: int
    seconds: float
    runs: int
    statuses: dict[str, int]
    final_status: str | None
    final_remembered: bool  # the last statement reached memory: reflection still merges
    slices_behind: dict[str, int]
    over_budget: list[str]
    duplicate_lines: list[str]


def run_soak(root: Path, turns: int, window: int = 8_192, seed: int = 7) -> SoakReport:
    """Run the soak under `root` (a fresh folder) and check the end state."""
    home, cwd = root / "home", root / "project"
    cwd.mkdir(parents=True)
    env = {"MINI_LETTA_HOME": str(home), "PATH": "/usr/bin:/bin"}

    def cli(*args: str) -> str:
        out, err = io.StringIO(), io.StringIO()
        code = cli_main(list(args), Terminal(io.StringIO(""), out, err, env, cwd))
        if code != 0:
            raise RuntimeError(f"{args[:3]} exited {code}: {err.getvalue().strip()[:300]}")
        return out.getvalue()

    cli("agents", "create", "--name", "soak", "--context-window", str(window))
    cli("sleeptime", "--trigger", "step-count", "--steps", "25")
    cli("chat", "-p", "hello")
    cli("chat", "--new", "-p", "hello again")
    world = World(Home(home), cwd, env, _clock())
    agent = _agent(world)
    conversations = [c.id for c in list_conversations(world.home, agent.id)]
    started = time.perf_counter()
    for n, text in enumerate(soak_texts(turns, seed)):
        cli("chat", "-p", text, "--conversation", conversations[n % 2])
    seconds = time.perf_counter() - started
    cli("chat", "-p", FINAL, "--conversation", conversations[0])
    return _check(world, conversations, turns, seconds)


def _check(world: World, conversations: list[str], turns: int, seconds: float) -> SoakReport:
    agent = _agent(world)
    store = ConversationStore(agent.id, conversations[0], world.home)
    final = launch_reflection(world, agent, store, LaunchOptions())
    human = (world.home.memory_dir(agent.id) / "system" / "human.md").read_text("utf-8")
    runs = list_run_records(world.home, agent.id)
    statuses: dict[str, int] = {}
    for record in runs:
        statuses[record.status] = statuses.get(record.status, 0) + 1
    behind = {
        cid: plan_backlog(world, agent, ConversationStore(agent.id, cid, world.home)).slices
        for cid in conversations
    }
    settings = load_reflection_settings(world.home, world.cwd, agent)
    cap = GateLimits.for_window(
        agent.context_window or 4_096, settings.system_budget_percent, settings.file_budget_percent
    ).file_tokens
    memory = world.home.memory_dir(agent.id)
    over, duplicates = [], []
    for path in sorted(memory.rglob("*.md")):
        if ".git" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(memory).as_posix()
        if rel.startswith("system/") and estimate_tokens(text) > cap:
            over.append(f"{rel} (~{estimate_tokens(text)} > {cap})")
        lines = [line.strip() for line in text.split("---\n", 2)[-1].splitlines() if line.strip()]
        duplicates += [f"{rel}: {line}" for line in sorted(set(lines)) if lines.count(line) > 1]
    return SoakReport(
        turns=turns,
        seconds=seconds,
        runs=len(runs),
        statuses=statuses,
        final_status=final.status or final.skip_reason,
        final_remembered="bun" in human,
        slices_behind=behind,
        over_budget=over,
        duplicate_lines=duplicates,
    )


def _agent(world: World):  # type: ignore[no-untyped-def]
    from mini_letta.agents.registry import list_agents

    (record,) = list_agents(world.home)
    return load_agent(world.home, record.id)


def _clock():  # type: ignore[no-untyped-def]
    from mini_letta.clock import SystemClock

    return SystemClock()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=1_000)
    parser.add_argument("--window", type=int, default=8_192)
    parser.add_argument("--seed", type=int, default=7)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        report = run_soak(Path(tmp), opts.turns, opts.window, opts.seed)
    each = report.seconds / report.turns * 1000
    print(f"{report.turns} turns in {report.seconds:.0f} s ({each:.0f} ms a turn with reflections)")
    print(f"reflection runs: {report.runs} {report.statuses}; final run: {report.final_status}")
    print(f"the last statement reached memory: {report.final_remembered}")
    print(f"slices left per conversation: {report.slices_behind}")
    print(f"files over budget: {report.over_budget or 'none'}")
    print(f"exact duplicate lines: {report.duplicate_lines or 'none'}")


if __name__ == "__main__":
    main()
