"""storage/fields.py: the one set of field checks, for records off disk and tool arguments."""

from __future__ import annotations

import pytest

from mini_letta.agents.records import AgentRecord
from mini_letta.errors import CorruptFileError
from mini_letta.storage.fields import (
    FieldError,
    optional_dict,
    optional_int,
    optional_number,
    optional_str,
    optional_str_list,
    require_int,
    require_str,
)
from support.tools import call_tool, make_context

# (check, data, the value it reads)
READ = [
    (require_str, {"k": "x"}, "x"),
    (require_str, {"k": ""}, ""),
    (optional_str, {}, None),
    (optional_int, {"k": 3}, 3),
    (optional_int, {"k": None}, None),
    (require_int, {"k": 0}, 0),
    (optional_number, {"k": 2}, 2.0),
    (optional_dict, {"k": {}}, {}),
    (optional_str_list, {"k": ["a"]}, ["a"]),
]


def test_a_field_of_its_type_is_read():
    for check, data, value in READ:
        assert check(data, "k") == value, (check.__name__, data)


# (a read of a wrong field, its one-line error)
REFUSED = [
    (lambda: require_str({}, "k"), "k is required"),
    (lambda: require_str({"k": None}, "k"), "k is required"),
    (lambda: require_str({"k": 3}, "k"), "k must be a string"),
    (lambda: require_str({"k": ""}, "k", non_empty=True), "k must not be empty"),
    (lambda: optional_str({"k": 3}, "k"), "k must be a string"),
    (lambda: optional_int({"k": True}, "k"), "k must be an integer"),  # a bool is no count
    (lambda: optional_int({"k": 1.5}, "k"), "k must be an integer"),
    (lambda: optional_int({"k": 0}, "k", minimum=1), "k must be at least 1"),
    (lambda: require_int({}, "k"), "k must be an integer"),
    (lambda: require_int({"k": -1}, "k", minimum=0), "k must be at least 0"),
    (lambda: optional_number({"k": False}, "k"), "k must be a number"),
    (lambda: optional_dict({"k": []}, "k"), "k must be an object"),
    (lambda: optional_str_list({"k": ["a", 1]}, "k"), "k must be a list of strings"),
]


def test_a_wrong_field_is_one_error_naming_the_key():
    wrong = []  # (the error expected, what came)
    for read, message in REFUSED:
        try:
            read()
        except FieldError as error:
            # a ValueError: what a record's from_json turns into its error
            got = str(error) if isinstance(error, ValueError) else f"{error!r} (no ValueError)"
        else:
            got = "no error"
        if got != message:
            wrong.append((message, got))
    assert wrong == []


def test_a_record_off_disk_names_the_file_and_the_field(tmp_path):
    data = {"id": "agent-1", "name": "", "model": "mock", "createdAt": "2026-01-01T00:00:00Z"}
    with pytest.raises(CorruptFileError, match="name must not be empty"):
        AgentRecord.from_json(data, tmp_path / "agent.json")


@pytest.mark.parametrize(
    ("tool", "args", "message"),
    [
        ("Read", {"path": ""}, "ToolInputError: path must not be empty"),
        (
            "Edit",
            {"path": "a.txt", "old_string": "", "new_string": "b"},
            "ToolInputError: old_string must not be empty",
        ),
        ("Bash", {"command": ""}, "ToolInputError: command must not be empty"),
    ],
)
def test_a_tool_refuses_an_argument_by_the_same_checks(project, clock, tool, args, message):
    (project / "a.txt").write_text("a\n")
    result = call_tool(tool, args, make_context(project, clock))
    assert result.is_error and result.content == message
