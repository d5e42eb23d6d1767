"""Where do planted credentials end up? A sweep of everything the home keeps.

Usage: python bench/secret_sweep.py [--count 100] [--keep DIR] [--src PATH]
Plants `count` credentials of varied shapes (each one the secret scanner recognises; a shape it
does not know is not planted, so the sweep follows the scanner's table as it grows) across user
turns, imported transcripts, MCP writes, tool outputs and a sync remote; runs chats and
reflections (the mock, and a scripted reflection agent behind a real OpenAI-compatible HTTP
server); then searches every file under the home (git objects through `git cat-file`), the
search results a model is shown and every request the reflection provider received. Prints the
number of planted credentials found outside the conversation logs and the search index (the two
places that keep what the user said verbatim), and where; 0 is the goal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import random
import string
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_SRC = sys.argv[sys.argv.index("--src") + 1] if "--src" in sys.argv[:-1] else str(ROOT / "src")
sys.path.insert(0, _SRC)
sys.path.insert(0, str(ROOT / "tests"))

from mini_letta.memory.secrets import scan_secrets  # noqa: E402

_ALNUM = string.ascii_letters + string.digits


def _r(rng: random.Random, n: int, alphabet: str = _ALNUM) -> str:
    return "".join(rng.choices(alphabet, k=n))


SHAPES: list[Callable[[random.Random], str]] = [
    lambda r: f"sk-proj-{_r(r, 40)}",
    lambda r: f"sk-ant-api03-{_r(r, 40)}",
    lambda r: f"AKIA{_r(r, 16, string.ascii_uppercase + string.digits)}",
    lambda r: f"aws_secret_access_key = {_r(r, 40, _ALNUM + '/')}",
    lambda r: f"ghp_{_r(r, 36)}",
    lambda r: f"gho_{_r(r, 36)}",
    lambda r: f"github_pat_11{_r(r, 20)}_{_r(r, 40)}",
    lambda r: f"glpat-{_r(r, 20)}",
    lambda r: f"xoxb-{_r(r, 12, string.digits)}-{_r(r, 13, string.digits)}-{_r(r, 24)}",
    lambda r: f"https://hooks.slack.com/services/T{_r(r, 8)}/B{_r(r, 8)}/{_r(r, 24)}",
    lambda r: f"sk_live_{_r(r, 24)}",
    lambda r: f"AIza{_r(r, 35)}",
    lambda r: f"hf_{_r(r, 34)}",
    lambda r: f"npm_{_r(r, 36)}",
    lambda r: f"SG.{_r(r, 22)}.{_r(r, 43)}",
    lambda r: f"eyJhbGciOiJIUzI1NiJ9.eyJzdWIi{_r(r, 24)}.{_r(r, 43)}",
    lambda r: f"-----BEGIN RSA PRIVATE KEY-----\n{_r(r, 64)}\n-----END RSA PRIVATE KEY-----",
    lambda r: f"postgres://admin:{_r(r, 12)}@db.example.com:5432/app",
    lambda r: f"MY_SERVICE_TOKEN={_r(r, 20)}",
    lambda r: f"db_password: {_r(r, 16)}",
    lambda r: f'{{"api_key": "{_r(r, 20)}"}}',
    lambda r: f"Authorization: Bearer {_r(r, 32)}",
    lambda r: f"my password is {_r(r, 14)}",
    lambda r: f"我的密码是 {_r(r, 14)}",
]


def plant(count: int, seed: int = 21) -> list[tuple[str, list[str]]]:
    """`count` (text, values the scanner finds in it): only shapes the scanner knows."""
    rng = random.Random(seed)
    planted: list[tuple[str, list[str]]] = []
    attempts = 0
    while len(planted) < count and attempts < count * 20:
        attempts += 1
        text = SHAPES[attempts % len(SHAPES)](rng)
        values = [text[m.start : m.end] for m in scan_secrets(text)]
        if values:
            planted.append((text, values))
    return planted


class Sweep:
    def __init__(self, root: Path) -> None:
        from mini_letta.cli.terminal import Terminal  # noqa: F401  (fail early if missing)

        self.root = root
        self.home = root / "home"
        self.project = root / "project"
        self.project.mkdir(parents=True)
        self.shown: list[str] = []  # search results shown to a model
        self.env = {
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "HOME": str(root),
            "MINI_LETTA_HOME": str(self.home),
            "LANG": "C.UTF-8",
            "OPENAI_API_KEY": "test-key-not-a-secret",
        }

    def cli(self, *args: str) -> tuple[int, str]:
        from mini_letta.cli.main import main
        from mini_letta.cli.terminal import Terminal

        out, err = io.StringIO(), io.StringIO()
        code = main(list(args), Terminal(io.StringIO(""), out, err, self.env, self.project))
        return code, out.getvalue() + err.getvalue()

    def agent(self) -> tuple[str, Path]:
        from mini_letta.home import Home
        from mini_letta.settings import load_global_settings

        home = Home(self.home)
        agent_id = str(load_global_settings(home).get("lastAgentId"))
        return agent_id, home.memory_dir(agent_id)


def run_sweep(root: Path, count: int) -> dict[str, object]:
    """Plant, run, search; returns the figures (found == 0 is the goal)."""
    from support.scripted_server import ScriptedServer, openai_completion, openai_tool_call

    planted = plant(count)
    groups = [planted[i::5] for i in range(5)]
    sweep = Sweep(root)
    sweep.cli("chat", "-p", "hello")
    agent_id, memory = sweep.agent()
    _user_turns(sweep, groups[0])
    _imported(sweep, groups[1])
    _mcp_writes(sweep, agent_id, groups[2])
    _tool_outputs(sweep, groups[3])
    _sync_remote(sweep, memory, groups[4])
    server = ScriptedServer().start()
    try:
        steps = []
        for n, (text, _) in enumerate(planted[:3]):
            edit = {"command": "create", "path": f"notes/n{n}.md", "description": "n"}
            edit["content"] = f"- {text}"
            call = openai_tool_call(f"c{n}", "memory", json.dumps(edit))
            steps.append(openai_completion(f"noting {text}", [call]))
        plain = {"command": "create", "path": "notes/plain.md", "description": "deploys"}
        plain["content"] = "- deploys happen on Fridays"
        steps.append(openai_completion("", [openai_tool_call("c8", "memory", json.dumps(plain))]))
        commit = {"message": "reflection: notes"}
        steps.append(
            openai_completion("", [openai_tool_call("c9", "memory_commit", json.dumps(commit))])
        )
        server.queue(*steps, *[openai_completion("done") for _ in range(40)])
        code, said = sweep.cli(
            "reflect", "--recent", "20", "--model", "openai/gpt-test", "--base-url",
            server.url + "/v1",
        )  # fmt: skip
        if code != 0:
            print(f"the scripted reflection: {said.strip()[-300:]}", file=sys.stderr)
        requests = [r.raw.decode("utf-8", "replace") for r in server.requests]
    finally:
        server.stop()
    _user_turns(sweep, groups[0][: max(1, len(groups[0]) // 2)])  # new turns for the mock
    sweep.cli("reflect", "--recent", "20")  # the mock reflection
    _searches(sweep, agent_id, planted)
    return _figures(sweep, planted, requests)


def _user_turns(sweep: Sweep, group: list[tuple[str, list[str]]]) -> None:
    for text, _ in group:
        sweep.cli("chat", "-p", f"请记住我的部署凭据是 {text}")
        sweep.cli("chat", "-p", f"remember that the deploy credential is {text}")


def _imported(sweep: Sweep, group: list[tuple[str, list[str]]]) -> None:
    lines = []
    for text, _ in group:
        lines.append({"role": "user", "content": f"use {text} for prod", "createdAt": "2025-05-01"})
        lines.append({"role": "assistant", "content": f"ok, {text}", "createdAt": "2025-05-01"})
    (sweep.project / "t.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    sweep.cli("import", "t.jsonl")


def _mcp_writes(sweep: Sweep, agent_id: str, group: list[tuple[str, list[str]]]) -> None:
    from mini_letta.home import Home
    from mini_letta.interop.mcp_server import build_server

    server = build_server(Home(sweep.home), agent_id, "sweep")
    for n, (text, _) in enumerate(group):
        for name, args in (
            ("memory_create", {"path": f"mcp/n{n}.md", "description": "d", "content": text}),
            ("memory_create", {"path": f"mcp/r{n}.md", "description": "d", "content": "x"}),
            ("memory_edit", {"command": "insert", "path": "system/human.md", "content": text}),
        ):
            reason = text if name == "memory_create" and "/r" in args["path"] else "why"
            with contextlib.suppress(Exception):  # a refusal is a tool error: what we want
                asyncio.run(server.call_tool(name, {**args, "reason": reason}))


def _tool_outputs(sweep: Sweep, group: list[tuple[str, list[str]]]) -> None:
    (sweep.project / "notes.txt").write_text("\n".join(text for text, _ in group) + "\n")
    script = [
        {"toolCalls": [{"name": "Read", "arguments": {"file_path": "notes.txt"}, "id": "r1"}]},
        {"toolCalls": [{"name": "Bash", "arguments": {"command": "cat notes.txt"}, "id": "b1"}]},
        "read them",
    ]
    (sweep.root / "script.json").write_text(json.dumps(script))
    sweep.cli("chat", "--model", f"script:{sweep.root / 'script.json'}", "--permission-mode",
              "bypassPermissions", "-p", "read my notes")  # fmt: skip


def _git(where: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(where), *args], capture_output=True, check=False)


def _sync_remote(sweep: Sweep, memory: Path, group: list[tuple[str, list[str]]]) -> None:
    remote = sweep.root / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    sweep.cli("memory", "remote", "set", str(remote))
    sweep.cli("memory", "sync")
    other = sweep.root / "other"
    subprocess.run(["git", "clone", "-q", "-b", "main", str(remote), str(other)], check=False)
    for n, (text, _) in enumerate(group):
        (other / "notes").mkdir(exist_ok=True)
        (other / "notes" / f"s{n}.md").write_text(f"---\ndescription: s\n---\n- {text}\n")
    _git(other, "add", "-A")
    first = group[0][0] if group else "notes"
    _git(other, "-c", "user.name=o", "-c", "user.email=o@o", "commit", "-qm", f"notes {first}")
    _git(other, "push", "-q", "origin", "HEAD:main")
    sweep.cli("memory", "sync")


def _searches(sweep: Sweep, agent_id: str, planted: list[tuple[str, list[str]]]) -> None:
    from mini_letta.clock import SystemClock
    from mini_letta.conversations.messages import ToolCall
    from mini_letta.home import Home
    from mini_letta.tools.base import ToolContext, Toolset, execute_tool_call
    from mini_letta.tools.recall import ConversationSearchTool, MemorySearchTool

    ctx = ToolContext(
        cwd=sweep.project, clock=SystemClock(), agent_id=agent_id, home=Home(sweep.home)
    )
    tools = Toolset((ConversationSearchTool(), MemorySearchTool()))
    words = ["key", "password", "token", "secret", "密码", "deploy", "prod", "api", "Bearer"]
    words += [text.split()[0][:12] for text, _ in planted[:10]]
    for n, word in enumerate(words):
        for name in ("conversation_search", "memory_search"):
            call = ToolCall(f"s{n}", name, json.dumps({"query": word, "limit": 50}))
            sweep.shown.append(execute_tool_call(call, tools, ctx).content)
        sweep.shown.append(sweep.cli("search", word)[1])


def _allowed(path: Path) -> bool:
    """The conversation logs and the search index keep what was said verbatim, by design."""
    name = path.name
    in_conversation = "conversations" in path.parts
    log = in_conversation and (name.startswith("messages.jsonl"))
    return log or name.startswith("search-index.sqlite")


def _figures(
    sweep: Sweep, planted: list[tuple[str, list[str]]], requests: list[str]
) -> dict[str, object]:
    texts: dict[str, str] = {}
    for path in sorted(sweep.home.rglob("*")):
        if not path.is_file() or path.is_symlink() or _allowed(path) or ".git" in path.parts:
            continue
        texts[str(path.relative_to(sweep.home))] = path.read_bytes().decode("utf-8", "replace")
    for git_dir in sorted(sweep.home.rglob(".git")):
        listing = subprocess.run(
            ["git", "-C", str(git_dir.parent), "cat-file", "--batch-all-objects", "--batch"],
            capture_output=True,
            check=False,
        )
        texts[f"{git_dir.parent.relative_to(sweep.home)} (git objects)"] = listing.stdout.decode(
            "utf-8", "replace"
        )
    texts["search results shown to the model"] = "\n".join(sweep.shown)
    texts["requests to the reflection provider"] = "\n".join(requests)
    flattened = {where: (text, " ".join(text.split())) for where, text in texts.items()}
    found: dict[str, list[str]] = {}
    for index, (_, values) in enumerate(planted):
        for where, (text, flat) in flattened.items():
            if any(_holds(text, flat, value) for value in values):
                found.setdefault(where, []).append(f"#{index}")
    leaked = {index for hits in found.values() for index in hits}
    return {
        "planted": len(planted),
        "found": len(leaked),
        "where": found,
        "requests": len(requests),
        "places": len(texts),
    }


def _holds(text: str, flat: str, value: str) -> bool:
    """`value` in `text` as written, with its whitespace flattened (`flat`), or as JSON."""
    return (
        value in text
        or " ".join(value.split()) in flat
        or json.dumps(value, ensure_ascii=False)[1:-1] in text
        or json.dumps(value)[1:-1] in text
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--keep", type=Path, default=None, help="run in DIR and keep it")
    parser.add_argument("--src", default=None, help="another checkout's src (an older build)")
    args = parser.parse_args()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        result = run_sweep(args.keep, args.count)
    else:
        with tempfile.TemporaryDirectory() as folder:
            result = run_sweep(Path(folder), args.count)
    print(f"planted {result['planted']} credentials (shapes the scanner knows)")
    print(f"searched {result['places']} places, {result['requests']} reflection requests")
    print(f"found outside the conversation logs and the search index: {result['found']}")
    for where, hits in dict(result["where"]).items():  # type: ignore[call-overload]
        print(f"  {where}: {', '.join(hits[:10])}{' …' if len(hits) > 10 else ''}")


if __name__ == "__main__":
    main()
