"""A fixture that writes skill folders into a temporary directory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

WriteSkill = Callable[..., Path]


@pytest.fixture
def write_skill(tmp_path: Path) -> WriteSkill:
    """write_skill(folder, content, root=tmp_path/"skills") -> the SKILL.md written."""

    def write(folder: str, content: str | bytes, root: Path | None = None) -> Path:
        path = (root or tmp_path / "skills") / folder / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path

    return write
