"""reflection/api.py, reflection's face: every name is the owner's object, loaded on first use."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from mini_letta.reflection import api

SOURCE = Path(api.__file__).read_text(encoding="utf-8")


def _typing_imports() -> dict[str, tuple[str, str]]:
    """face name -> (module, name) as the face's TYPE_CHECKING block imports it."""
    found = {}
    for node in ast.walk(ast.parse(SOURCE)):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            for alias in node.names:
                module = str(node.module).removeprefix("mini_letta.reflection.")
                found[alias.asname or alias.name] = (module, alias.name)
    return found


def test_every_face_name_is_its_owners_object():
    for name, (module, attribute) in api.FACE.items():
        owner = importlib.import_module(f"mini_letta.reflection.{module}")
        assert getattr(api, name) is getattr(owner, attribute), name


def test_the_types_mypy_sees_are_the_names_the_face_hands_out():
    typing = _typing_imports()
    assert {name: typing[name] for name in api.FACE} == api.FACE
    assert set(typing) - set(api.FACE) == {"PostTurnOutcome"}  # a type alias for annotations
    assert sorted(api.__all__) == sorted(set(typing) - {"PostTurnOutcome"})


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'launch_reflection'"):
        _ = api.launch_reflection  # type: ignore[attr-defined]


def test_the_verbs_the_cli_needs_are_there():
    verbs = {"launch", "preview", "undo", "accept", "discard", "list_runs", "gather_health"}
    assert verbs | {"load_settings", "save_settings", "evaluate"} <= set(api.FACE)
