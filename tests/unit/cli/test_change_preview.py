"""The approval prompt's diff: what a Write or Edit would change in the file as it is now."""

from __future__ import annotations

import json

from mini_letta.cli.change_preview import preview_change
from mini_letta.conversations.messages import ToolCall


def _call(name: str, **args: object) -> ToolCall:
    return ToolCall(id="c1", name=name, arguments=json.dumps(args))


def test_an_edit_shows_the_lines_it_replaces(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\ny = 2\nz = 3\n")
    diff = preview_change(
        _call("Edit", path="a.py", old_string="y = 2", new_string="y = 20"), tmp_path
    )
    assert diff[:2] == ["--- a.py", "+++ a.py"]
    assert "-y = 2" in diff and "+y = 20" in diff and " x = 1" in diff


def test_replace_all_changes_every_occurrence(tmp_path):
    (tmp_path / "a.txt").write_text("a\na\n")
    call = _call("Edit", path="a.txt", old_string="a", new_string="b", replace_all=True)
    assert [line for line in preview_change(call, tmp_path) if line.startswith("+b")] == [
        "+b",
        "+b",
    ]


def test_a_new_file_is_all_additions_and_long_diffs_are_capped(tmp_path):
    content = "".join(f"line {n}\n" for n in range(100))
    diff = preview_change(
        _call("Write", path="sub/new.txt", content=content), tmp_path, max_lines=10
    )
    assert diff[0] == "--- /dev/null" and diff[1] == "+++ sub/new.txt"
    assert len(diff) == 11 and diff[-1].startswith("… ") and diff[-1].endswith("more lines")


def test_no_diff_for_other_tools_or_calls_that_will_not_apply(tmp_path):
    (tmp_path / "a.py").write_text("x\n")
    assert preview_change(_call("Bash", command="ls"), tmp_path) == []
    assert (
        preview_change(_call("Edit", path="a.py", old_string="nope", new_string="y"), tmp_path)
        == []
    )
    assert (
        preview_change(_call("Edit", path="gone.py", old_string="x", new_string="y"), tmp_path)
        == []
    )
    assert preview_change(ToolCall(id="c", name="Write", arguments="{bad"), tmp_path) == []
    (tmp_path / "bin").write_bytes(b"\xff\xfe\x00")
    assert preview_change(_call("Write", path="bin", content="t"), tmp_path) == []
