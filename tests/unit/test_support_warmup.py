"""The warm-up before xdist's workers (tests/support/warmup.py): what it writes is what pytest
reads."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from support.warmup import _rewrite, _stale, _test_modules


def test_a_rewritten_module_is_fresh_until_its_source_changes(
    tmp_path: Path, pytestconfig: pytest.Config
):
    if pytestconfig.getoption("assertmode") != "rewrite":
        pytest.skip("asserts are not rewritten in this run")
    (tmp_path / "sub").mkdir()
    module = tmp_path / "sub" / "test_x.py"
    module.write_text("def test_x():\n    assert 1 + 1 == 2\n")
    (tmp_path / "sub" / "helper.py").write_text("X = 1\n")
    (tmp_path / "conftest.py").write_text("")
    assert _test_modules(tmp_path) == [tmp_path / "conftest.py", module]
    assert _stale(rewrite, module)
    _rewrite(rewrite, pytestconfig, [module])
    assert not _stale(rewrite, module)
    pyc = next((tmp_path / "sub" / "__pycache__").iterdir())
    assert rewrite._read_pyc(module, pyc) is not None  # pytest takes it as its own
    assert pyc.read_bytes()[:4] == importlib.util.MAGIC_NUMBER
    module.write_text("def test_x():\n    assert 2 + 2 == 4\n")
    assert _stale(rewrite, module)
