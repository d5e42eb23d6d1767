"""A small check of a tool call's arguments against the tool's top-level JSON schema.

Models send wrong types and forget required fields; catching that before `run` gives one
uniform, readable result ("'limit' must be an integer") for every tool. Only what our lean
hand-written schemas use is checked: required keys and the primitive `type` of each property.
Extra keys are ignored, as most servers and models treat them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_TYPES: Mapping[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
}
_NAMES = {"string": "a string", "integer": "an integer", "number": "a number"}


def argument_problem(schema: Mapping[str, Any], args: Mapping[str, Any]) -> str | None:
    """The first problem found, as a sentence for the model, or None."""
    properties = schema.get("properties", {})
    for key in schema.get("required", []):
        if key not in args or args[key] is None:
            return f"{key!r} is required"
    for key, value in args.items():
        spec = properties.get(key)
        if not isinstance(spec, Mapping) or value is None:
            continue
        wanted = spec.get("type")
        if not isinstance(wanted, str) or wanted not in _TYPES:
            continue
        ok = isinstance(value, _TYPES[wanted])
        if wanted in ("integer", "number") and isinstance(value, bool):
            ok = False
        if not ok:
            return f"{key!r} must be {_NAMES.get(wanted, wanted)}, got {type(value).__name__}"
    return None
