"""Fills the bytecode caches and hypothesis's Unicode tables once before xdist starts its
workers.

A clean checkout has no compiled bytecode. Under `-n 2` both workers collect every test module
at the same moment, so both rewrite its asserts (pytest's rewriting is slow: about 9 s of CPU
for this suite's test modules) and compile the package, each for itself, before either has
written the cache the other could read. The controller does that work once instead, split over
two processes, before the workers start; with the caches already fresh it only checks them
(a hash of each test file, a stat of each package module). Hypothesis builds its tables of
Unicode categories and of what UTF-8 encodes the first time a text strategy runs (about 3.5 s of
CPU) and keeps them in `.hypothesis/`: on a clean checkout each worker built them; the
controller builds them once when the files are missing.

Everything here is a cache pytest and Python would fill anyway: a file written here is the
file they would write, and if pytest's internals differ from what this expects, nothing is
warmed and the workers do the work as before.
"""

from __future__ import annotations

import compileall
import importlib.util
import os
import sys
import warnings
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
    _in_two(stale, lambda part: _rewrite(rewrite, config, part), then=_hypothesis_tables)
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


def _hypothesis_tables() -> None:
    """Hypothesis's cached Unicode tables, built when their files are missing (the same files
    hypothesis writes on first use; with other internals, nothing is built here)."""
    try:
        from hypothesis.internal import charmap
    except ImportError:
        return
    if not all(hasattr(charmap, n) for n in ("charmap", "charmap_file", "intervals_from_codec")):
        return
    from hypothesis.errors import HypothesisSideeffectWarning

    with warnings.catch_warnings():  # its warning against slow work at start-up: wanted here
        warnings.simplefilter("ignore", HypothesisSideeffectWarning)
        if not charmap.charmap_file().exists():
            charmap.charmap()
        if not charmap.charmap_file("codec-v2-utf-8").exists():
            charmap.intervals_from_codec("utf-8")


def _in_two(
    paths: Sequence[Path],
    work: Callable[[Sequence[Path]], None],
    then: Callable[[], None] = lambda: None,
) -> None:
    """Run `work` over `paths`, half in a forked child and half here, then `then` here (the
    machine has 2 cores and the workers have not started). A failed child only leaves its
    half to the workers."""
    if len(paths) < 8:
        work(paths)
        then()
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
        then()
    finally:
        os.waitpid(pid, 0)
