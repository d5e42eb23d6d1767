"""Fills the bytecode caches once before xdist starts its workers.

A clean checkout has no compiled bytecode. Under `-n 2` both workers collect every test module
at the same moment, so both rewrite its asserts (pytest's rewriting is slow: about 9 s of CPU
for this suite's test modules) and compile the package, each for itself, before either has
written the cache the other could read. The controller does that work once instead, split over
two processes, before the workers start; with the caches already fresh it only checks them
(a hash of each test file, a stat of each package module).

Everything here is a cache pytest and Python would fill anyway: a file written here is the
file they would write, and if pytest's internals differ from what this expects, nothing is
warmed and the workers do the work as before.
"""

from __future__ import annotations

import compileall
import importlib.util
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def warm_before_workers(config: pytest.Config) -> None:
    """Rewrite stale test modules and compile stale package modules, once, in the controller
    of a run with two or more workers (a worker, or a run without workers, fills its own)."""
    workers = getattr(config.option, "numprocesses", None)
    if sys.dont_write_bytecode or hasattr(config, "workerinput"):
        return
    if not isinstance(workers, int) or workers < 2:
        return
    if config.getoption("assertmode") != "rewrite":
        return
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    needed = (
        "_read_pyc",
        "_rewrite_test",
        "_write_pyc",
        "get_cache_dir",
        "PYC_TAIL",
        "assertstate_key",
    )
    if not all(hasattr(rewrite, name) for name in needed):
        return
    stale = [path for path in _test_modules(ROOT / "tests") if _stale(rewrite, path)]
    _in_two(stale, lambda part: _rewrite(rewrite, config, part))
    compileall.compile_dir(ROOT / "src", quiet=1, workers=1)
    compileall.compile_dir(ROOT / "tests" / "support", quiet=1, workers=1)


def _test_modules(folder: Path) -> list[Path]:
    """The files pytest rewrites when it collects the suite: test modules and conftests."""
    found = []
    for parent, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
        for name in files:
            if name == "conftest.py" or (name.startswith("test_") and name.endswith(".py")):
                found.append(Path(parent, name))
    return sorted(found)


def _pyc(rewrite: ModuleType, path: Path) -> Path:
    cache_dir: Path = rewrite.get_cache_dir(path)
    return cache_dir / (path.name[:-3] + rewrite.PYC_TAIL)


def _stale(rewrite: ModuleType, path: Path) -> bool:
    """Whether pytest would rewrite `path` again. Its own check unmarshals the whole cached
    code (0.3 s for the suite); the header's source hash (PEP 552) says it first, and pytest
    is asked only when the header disagrees, so a format this does not know costs no more."""
    pyc = _pyc(rewrite, path)
    try:
        with open(pyc, "rb") as cached:
            header = cached.read(16)
        source_hash = importlib.util.source_hash(path.read_bytes())
    except OSError:
        return True
    if header == importlib.util.MAGIC_NUMBER + b"\x03\x00\x00\x00" + source_hash[:8]:
        return False
    return rewrite._read_pyc(path, pyc) is None


def _rewrite(rewrite: ModuleType, config: pytest.Config, paths: Sequence[Path]) -> None:
    state = config.stash[rewrite.assertstate_key]
    for path in paths:
        pyc = _pyc(rewrite, path)
        pyc.parent.mkdir(exist_ok=True)
        source_hash, code = rewrite._rewrite_test(path, config)
        rewrite._write_pyc(state, code, source_hash, pyc)


def _in_two(paths: Sequence[Path], work: Callable[[Sequence[Path]], None]) -> None:
    """Run `work` over `paths`: half in a forked child, half here (the machine has 2 cores
    and the workers have not started). A failed child only leaves its half to the workers."""
    if len(paths) < 8:
        work(paths)
        return
    half = len(paths) // 2
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            work(paths[:half])
        except BaseException:
            code = 1
        os._exit(code)
    try:
        work(paths[half:])
    finally:
        os.waitpid(pid, 0)
