"""JSON as UTF-8 bytes that never fails on odd text.

Readable UTF-8 when possible; when the text holds lone surrogates (undecodable bytes smuggled
through `surrogateescape`), everything non-ASCII is escaped instead, which JSON round-trips.
"""

from __future__ import annotations

import json
from typing import Any


def json_bytes(value: Any, indent: int | None = None) -> bytes:
    separators = (",", ":") if indent is None else None
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent, separators=separators).encode()
    except UnicodeEncodeError:
        return json.dumps(value, indent=indent, separators=separators).encode()
