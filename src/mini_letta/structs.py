"""Record types: typed fields, compared by value, frozen unless asked otherwise.

`class Usage(Struct, frozen=True)` with annotated fields behaves like a slotted dataclass:
positional or keyword construction, defaults and `field(default_factory=...)`, `__post_init__`,
equality and (when frozen) hashing by field values, a readable repr, `__match_args__`, and
`replace(record, **changes)`. mypy reads it as a dataclass (`dataclass_transform`).

Why not `dataclasses`: a dataclass compiles its generated methods when its module is imported,
about 1 ms a class on Python 3.11, and a turn's modules define over fifty: a third of a mock
turn. msgspec builds its Structs in C but importing it costs about 20 ms (typing_extensions,
inspect, uuid, decimal), as much again. Here a class costs microseconds: the methods are shared
ones that read the field names the class statement declared, nothing is compiled, and nothing
is imported but `typing` (whose names the annotations use anyway).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T", bound="Struct")

_MISSING: Any = object()


class _Field:
    __slots__ = ("default", "default_factory")

    def __init__(self, default: Any, default_factory: Any) -> None:
        self.default = default
        self.default_factory = default_factory


def field(*, default: Any = _MISSING, default_factory: Any = _MISSING) -> Any:
    """A field's default: a value, or a function called for each new record."""
    if (default is _MISSING) == (default_factory is _MISSING):
        raise TypeError("field() takes exactly one of default and default_factory")
    return _Field(default, default_factory)


class _StructMeta(type):
    """Turns the class statement's annotations into slots and a table of defaults."""

    __struct_fields__: tuple[str, ...]
    __struct_plan__: tuple[tuple[str, Any, Any], ...]  # (name, default, factory) per field
    __struct_frozen__: bool

    def __new__(
        mcs, name: str, bases: tuple[type, ...], ns: dict[str, Any], *, frozen: bool | None = None
    ) -> _StructMeta:
        if not bases:  # Struct itself
            return super().__new__(mcs, name, bases, ns)
        parents = [base for base in bases if isinstance(base, _StructMeta)]
        if len(parents) != 1:
            raise TypeError(f"{name}: a Struct has one Struct base")
        parent = parents[0]
        frozen = parent.__struct_frozen__ if frozen is None else frozen
        if parent.__struct_fields__ and frozen != parent.__struct_frozen__:
            raise TypeError(f"{name}: frozen={frozen} differs from its base's")
        annotations: dict[str, Any] = ns.get("__annotations__", {})
        own = tuple(n for n, kind in annotations.items() if not _is_class_var(kind))
        names = parent.__struct_fields__ + own
        plan = list(parent.__struct_plan__)
        for field_name in own:
            if field_name in parent.__struct_fields__:
                raise TypeError(f"{name}: field {field_name!r} is its base's already")
            default, factory = _MISSING, None
            if field_name in ns:
                value = ns.pop(field_name)
                if isinstance(value, list | dict | set):  # one object shared by every record
                    raise TypeError(f"{name}.{field_name}: use field(default_factory=...)")
                if not isinstance(value, _Field):
                    default = value
                elif value.default_factory is _MISSING:
                    default = value.default
                else:
                    factory = value.default_factory
            elif any(d is not _MISSING or f is not None for _, d, f in plan):
                raise TypeError(f"{name}: field {field_name!r} without a default follows one with")
            plan.append((field_name, default, factory))
        ns["__slots__"] = own
        ns["__match_args__"] = names
        if frozen:
            ns.setdefault("__setattr__", _refuse_change)
            ns.setdefault("__delattr__", _refuse_change)
            ns.setdefault("__hash__", _hash)
        else:
            ns.setdefault("__hash__", None)  # equal by value and changeable: unhashable
        ns["__struct_fields__"] = names  # in the namespace: an attribute set on a finished
        ns["__struct_plan__"] = tuple(plan)  # class costs as much as a small class statement
        ns["__struct_frozen__"] = frozen
        return super().__new__(mcs, name, bases, ns)


def _is_class_var(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    return text.startswith(("ClassVar", "typing.ClassVar"))


def _refuse_change(self: Struct, name: str, *_value: Any) -> None:
    raise AttributeError(f"cannot change field {name!r} of a frozen {type(self).__name__}")


def _hash(self: Struct) -> int:
    cls = type(self)
    return hash((_TABLES.get(cls) or _table(cls))[2](self))


# What every construction reads, made at a class's first record rather than with the class
# (most classes a process defines make no record): (each field's slot writer, which goes past
# a frozen class's __setattr__; the field names as a set; the values as a tuple; __post_init__).
_Table = tuple[
    tuple[Callable[[Any, Any], None], ...],
    frozenset[str],
    Callable[[Any], tuple[Any, ...]],
    Callable[[Any], None] | None,
]
_TABLES: dict[type, _Table] = {}


def _table(cls: _StructMeta) -> _Table:
    parents = [base for base in cls.__bases__ if isinstance(base, _StructMeta)]
    inherited = _TABLES.get(parents[0]) or _table(parents[0]) if parents else None
    setters = inherited[0] if inherited is not None else ()
    names = cls.__struct_fields__
    own = tuple(cls.__dict__[name].__set__ for name in names[len(setters) :])
    table = _TABLES[cls] = (
        setters + own,
        frozenset(names),
        _getter(names),
        getattr(cls, "__post_init__", None),
    )
    return table


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The record's field values as a tuple (attrgetter of one name returns the bare value)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda record: (one(record),)
    return lambda _record: ()


@dataclass_transform(field_specifiers=(field,))
class Struct(metaclass=_StructMeta):
    """The base of every record type; see the module's docstring."""

    __slots__ = ()
    __struct_fields__: tuple[str, ...] = ()
    __struct_plan__: tuple[tuple[str, Any, Any], ...] = ()
    __struct_frozen__ = False

    def __init_subclass__(cls, *, frozen: bool | None = None) -> None:
        super().__init_subclass__()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        setters, names, _, post_init = _TABLES.get(cls) or _table(cls)
        # zip without strict=: a keyword argument costs zip its fast call, and the lengths are
        # equal here by construction.
        if not kwargs:
            if len(args) != len(setters):
                args = _bind(cls, args, kwargs)
            for put, value in zip(setters, args):  # noqa: B905
                put(self, value)
        elif not args and len(kwargs) == len(setters) and kwargs.keys() == names:
            for put, name in zip(setters, cls.__struct_fields__):  # noqa: B905  (all by name)
                put(self, kwargs[name])
        else:
            for put, value in zip(setters, _bind(cls, args, kwargs)):  # noqa: B905
                put(self, value)
        if post_init is not None:
            post_init(self)

    def __eq__(self, other: object) -> bool:
        cls = type(self)
        if type(other) is not cls:
            return NotImplemented
        values = (_TABLES.get(cls) or _table(cls))[2]
        return values(self) == values(other)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__struct_fields__)
        return f"{type(self).__name__}({shown})"


def _bind(cls: type[Struct], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """Every field's value, in order, from a construction's arguments and the defaults."""
    plan = cls.__struct_plan__
    if len(args) > len(plan):
        raise TypeError(f"{cls.__name__}() takes {len(plan)} fields, {len(args)} given")
    values = list(args)
    for name, default, factory in plan[len(args) :]:
        value = kwargs.pop(name, _MISSING)
        if value is _MISSING:
            if factory is not None:
                value = factory()
            elif default is _MISSING:
                raise TypeError(f"{cls.__name__}() needs a value for {name!r}")
            else:
                value = default
        values.append(value)
    if kwargs:
        raise TypeError(f"{cls.__name__}() got unexpected or repeated fields {sorted(kwargs)}")
    return tuple(values)


def replace(record: T, **changes: Any) -> T:
    """A copy of `record` with some fields changed (its `__post_init__` runs again)."""
    cls = type(record)
    names = cls.__struct_fields__
    unknown = changes.keys() - set(names)
    if unknown:
        raise TypeError(f"{cls.__name__} has no fields {sorted(unknown)}")
    values = (_TABLES.get(cls) or _table(cls))[2](record)
    return cls(*[changes.get(name, value) for name, value in zip(names, values)])  # noqa: B905
