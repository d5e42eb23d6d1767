from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from mini_letta.home import Home  # noqa: E402
from mini_letta.workspace import World  # noqa: E402
from support.cli import CliResult, run_cli, run_cli_in_process  # noqa: E402
from support.clock import FakeClock  # noqa: E402
from support.scripted_server import ScriptedServer  # noqa: E402

if TYPE_CHECKING:
    from mini_letta.agents.records import AgentRecord

# Hypothesis: a bounded number of examples per property and no per-example deadline (a shared
# 2-core machine is slow at random moments). CI is derandomized, so a failure reproduces;
# HYPOTHESIS_PROFILE=thorough explores far more when a parser changes.
settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile("ci", max_examples=50, deadline=None, derandomize=True, database=None)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)


def pytest_configure(config: pytest.Config) -> None:
    """On a clean checkout, the controller of a `-n` run fills the bytecode caches (and
    hypothesis's Unicode tables) once before its workers start, instead of each worker filling
    them itself."""
    from support.warmup import warm_before_workers

    warm_before_workers(config)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keeps `--dist loadgroup` grouping on pytest 9.2: xdist 3.8 names a test's group by
    appending `@group` to `item._nodeid`, which pytest 9.2 no longer reads (its node ids are
    structured), so every `xdist_group` was ignored and each worker imported every SDK
    (pytest-dev/pytest-xdist#1386). Where xdist's suffix did not take, add it the new way."""
    if not getattr(config.option, "loadgroup", False):  # set on xdist workers only
        return
    for item in items:
        names = sorted(
            {
                str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                for m in item.iter_markers("xdist_group")
            }
        )
        suffix = "@" + "_".join(names)
        node_id = getattr(item, "_id", None)
        if names and node_id is not None and not item.nodeid.endswith(suffix):
            item._id = type(node_id).parse(item.nodeid + suffix)  # type: ignore[attr-defined]


@pytest.hookimpl(optionalhook=True)  # a plain `pytest` without xdist has no such hook
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """`--dist loadgroup` without its per-event walk over every finished test
    (tests/support/scheduling.py); other `--dist` modes are xdist's own."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from support.scheduling import FinishedUnitsForgotten

    return FinishedUnitsForgotten(config, log)  # type: ignore[arg-type]


_TMP_NUMBERS: dict[str, int] = {}


@pytest.fixture
def tmp_path(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new empty folder for the test under the session's temporary folder, named as pytest
    names it (the test's name, cut to 30, and a number) and kept as pytest keeps it. pytest's own
    finds the next number by listing every folder the process made so far, once per test: for
    1,500 tests that is quadratic (about 0.3 s of CPU per worker); here each name's next number
    is remembered, and a number already taken is skipped."""
    name = re.sub(r"\W", "_", request.node.name)[:30]
    root = tmp_path_factory.getbasetemp()
    while True:
        number = _TMP_NUMBERS.get(name, 0)
        _TMP_NUMBERS[name] = number + 1
        try:
            (root / f"{name}{number}").mkdir(mode=0o700)
        except FileExistsError:
            continue
        return root / f"{name}{number}"


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path / "home")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def world(home: Home, project: Path, clock: FakeClock) -> World:
    return World(home=home, cwd=project, environ={}, clock=clock)


class Cli:
    """Runs the CLI in the test's project folder against the test's home: in-process through
    `main()` by default, as a real `python -m mini_letta` process for `cli_process`."""

    def __init__(self, home: Path, cwd: Path, *, process: bool = False) -> None:
        self.home = home
        self.cwd = cwd
        self.process = process

    def __call__(self, *args: str, **kwargs: object) -> CliResult:
        kwargs.setdefault("cwd", self.cwd)
        if self.process:
            return run_cli(*args, home=self.home, **kwargs)  # type: ignore[arg-type]
        return run_cli_in_process(*args, home=self.home, **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def agent(world: World) -> AgentRecord:
    """A fresh agent in `world`, as `new_agent(world)` makes it there: a copy of one made once
    per worker (support/agents.py). Tests about creation itself call `new_agent`."""
    from support.agents import fresh_agent

    return fresh_agent(world)


@pytest.fixture
def project_agent(world: World) -> AgentRecord:
    """The agent a project's first `chat` makes (the offline mock, the project's current one),
    already there: for CLI tests whose first command only sets an agent up."""
    from support.agents import fresh_agent

    return fresh_agent(world, current=True)


@pytest.fixture
def cli(home: Home, project: Path) -> Cli:
    return Cli(home.root, project)


@pytest.fixture
def cli_process(home: Home, project: Path) -> Cli:
    """The CLI as a subprocess: for exit codes of the real entry point, signals, closed
    pipes and imports; everything else uses the in-process `cli`."""
    return Cli(home.root, project, process=True)


@pytest.fixture(scope="session")
def _scripted_server_process() -> Iterator[ScriptedServer]:
    server = ScriptedServer().start()
    yield server
    server.stop()


@pytest.fixture
def scripted_server(_scripted_server_process: ScriptedServer) -> Iterator[ScriptedServer]:
    """The session's scripted HTTP server, emptied for this test and checked after it."""
    server = _scripted_server_process
    server.reset()
    yield server
    server.check()


@pytest.fixture(scope="session")
def _memory_repo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from mini_letta.memory.repo import init_memory_repo

    return init_memory_repo(tmp_path_factory.mktemp("template") / "memory").path


@pytest.fixture
def memory_repo(tmp_path: Path, _memory_repo_template: Path):
    """A fresh agent memory repository (real git) with the default persona and human files:
    a copy of the one `init_memory_repo` made once per session (a plain repository's `.git`
    holds no path of its own), instead of three git processes per test."""
    import shutil

    from mini_letta.memory.repo import GitRepo

    shutil.copytree(_memory_repo_template, tmp_path / "memory", symlinks=True)
    return GitRepo(tmp_path / "memory")
