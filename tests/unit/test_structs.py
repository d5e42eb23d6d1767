"""The record base (mini_letta/structs.py): what a dataclass would do, built without compiling."""

from __future__ import annotations

import pytest

from mini_letta.structs import Struct, field, replace


class Point(Struct, frozen=True):
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()


class Bag(Struct):
    items: list[str] = field(default_factory=list)
    count: int = 0


class Clean(Struct, frozen=True):
    text: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", self.text.strip())


def test_fields_by_position_or_name_with_defaults():
    assert Point(1) == Point(x=1) == Point(1, 0, ())
    assert Point(1, tags=("a",)).tags == ("a",)
    assert Point.__match_args__ == ("x", "y", "tags")
    assert repr(Point(1, 2)) == "Point(x=1, y=2, tags=())"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Point(), "needs a value for 'x'"),
        (lambda: Point(1, x=2), "unexpected or repeated fields ['x']"),
        (lambda: Point(1, z=2), "unexpected or repeated fields ['z']"),
        (lambda: Point(1, 2, (), 4), "takes 3 fields, 4 given"),
        (lambda: Point(x=1, y=2, z=3), "unexpected or repeated fields ['z']"),
        (lambda: Point(y=2, tags=(), z=3), "needs a value for 'x'"),
    ],
)
def test_a_wrong_construction_is_a_type_error(make, message):
    with pytest.raises(TypeError, match=message.replace("[", r"\[").replace("(", r"\(")):
        make()


def test_frozen_records_refuse_changes_and_hash_by_value():
    point = Point(1, 2)
    with pytest.raises(AttributeError, match="frozen Point"):
        point.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del point.y  # type: ignore[misc]
    assert hash(point) == hash(Point(1, 2))
    assert {point, Point(1, 2), Point(2, 1)} == {Point(1, 2), Point(2, 1)}
    assert point != (1, 2, ())  # another type is never equal


def test_changeable_records_get_fresh_defaults_and_no_hash():
    first, second = Bag(), Bag()
    first.items.append("a")
    first.count += 1
    assert (first.items, second.items, first.count) == (["a"], [], 1)
    with pytest.raises(TypeError):
        hash(first)


def test_records_have_no_instance_dict():
    with pytest.raises(AttributeError):
        Bag().other = 1  # type: ignore[attr-defined]


def test_replace_runs_post_init_again():
    record = Clean("  hi ")
    assert record.text == "hi"
    assert replace(record, text=" there ").text == "there"
    with pytest.raises(TypeError, match="no fields"):
        replace(record, missing=1)


def test_a_subclass_without_fields_keeps_its_base_fields():
    class Labelled(Point):
        def label(self) -> str:
            return f"{self.x},{self.y}"

    assert Labelled(3, 4).label() == "3,4"
    assert Labelled(3, 4) != Point(3, 4)
    with pytest.raises(AttributeError):
        Labelled(3).x = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("class Bad(Struct):\n    a: list[int] = []\n", "default_factory"),
        ("class Bad(Struct):\n    a: int = 0\n    b: int\n", "without a default"),
        ("class Bad(Point):\n    x: int = 3\n", "base's already"),
        ("class Bad(Point, frozen=False):\n    z: int = 3\n", "differs"),
    ],
)
def test_a_wrong_class_is_refused_where_it_is_defined(body, message):
    with pytest.raises(TypeError, match=message):
        exec(body, {"Struct": Struct, "Point": Point})


class Tagged(Point):
    label: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", self.label.upper())


class One(Struct, frozen=True):
    only: int


class Nothing(Struct, frozen=True):
    pass


def test_a_subclass_with_fields_sets_its_own_and_its_bases():
    """Every field, inherited or its own, is set by position, by name, or all by name."""
    for record in (
        Tagged(1, 2, ("t",), "a"),
        Tagged(x=1, y=2, tags=("t",), label="a"),
        Tagged(1, label="a", tags=("t",), y=2),
    ):
        assert (record.x, record.y, record.tags, record.label) == (1, 2, ("t",), "A")
    assert replace(Tagged(1, label="a"), y=5) == Tagged(1, 5, (), "A")
    assert Tagged(1) != Point(1)


def test_records_of_one_field_and_of_none_compare_and_hash_by_value():
    assert One(1) == One(only=1) != One(2)
    assert hash(One(1)) == hash(One(1))
    assert Nothing() == Nothing()
    assert hash(Nothing()) == hash(Nothing())
    assert replace(One(1), only=3) == One(3)
    assert repr(One(1)) == "One(only=1)"
