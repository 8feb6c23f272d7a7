"""Objects written by hand land where git finds them, also on a file system without hard links."""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

import pytest

from workbench.sessions.store.objects import LooseObjects


def test_a_blob_is_renamed_into_place_where_hard_links_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)

    def refused(source: object, target: object) -> None:
        raise OSError(errno.EPERM, "hard links not supported")

    monkeypatch.setattr(os, "link", refused)
    oid = LooseObjects(tmp_path / ".git" / "objects", "A <a@example.com>").blob(b"kept\n")

    shown = subprocess.run(
        ["git", "cat-file", "-p", oid], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert shown.stdout == "kept\n"
    left = [p.name for p in (tmp_path / ".git" / "objects" / oid[:2]).iterdir()]
    assert left == [oid[2:]]  # no temporary file left beside it
