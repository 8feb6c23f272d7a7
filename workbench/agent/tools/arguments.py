"""A small check of tool-call arguments against the tool's JSON schema.

Models sometimes omit a required argument or send a number as a string; telling them exactly what
is wrong lets them correct the call on the next step. Only the top level is checked: required keys
and the basic JSON types.
"""

from __future__ import annotations

from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def _matches(value: Any, expected: str) -> bool:
    if expected in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES.get(expected, (object,)))


def check_arguments(schema: dict[str, Any], args: dict[str, Any]) -> str | None:
    """What is wrong with `args` for `schema`, or None."""
    missing = [key for key in schema.get("required", []) if key not in args]
    if missing:
        return f"missing required argument(s): {', '.join(missing)}"
    properties = schema.get("properties", {})
    for key, value in args.items():
        expected = properties.get(key, {}).get("type")
        if value is None or not isinstance(expected, str):
            continue
        if not _matches(value, expected):
            return f"argument {key!r} must be of type {expected}, not {type(value).__name__}"
    return None
