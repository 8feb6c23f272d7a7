"""The read, edit and write tools follow the box's rule when the sandbox is on: writes only in
the project, the hidden secrets unread; `off` as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.sandbox_dirs import SECRET

from workbench.agent.tools.edit import execute as edit
from workbench.agent.tools.read import execute as read
from workbench.agent.tools.write import execute as write
from workbench.errors import WorkbenchError
from workbench.sandbox import SandboxPolicy
from workbench.tool import ToolContext


def context(project: Path, mode: str) -> ToolContext:
    return ToolContext(project, sandbox=SandboxPolicy(mode=mode))  # type: ignore[arg-type]


async def test_write_and_edit_outside_the_project_are_refused(work: Path, outside: Path):
    (outside / "theirs.txt").write_text("old\n")
    boxed = context(work, "workspace")
    with pytest.raises(WorkbenchError, match="outside the project"):
        await write({"path": str(outside / "new.txt"), "content": "x"}, boxed)
    with pytest.raises(WorkbenchError, match="outside the project"):
        await edit(
            {"path": str(outside / "theirs.txt"), "old_text": "old", "new_text": "new"}, boxed
        )
    assert not (outside / "new.txt").exists()
    assert (outside / "theirs.txt").read_text() == "old\n"
    await write({"path": "mine.txt", "content": "ok"}, boxed)
    assert (work / "mine.txt").read_text() == "ok"


async def test_what_stays_read_only_inside_the_project_is_refused(work: Path):
    with pytest.raises(WorkbenchError, match="read-only inside the sandbox"):
        await write({"path": ".git/hooks/pre-commit", "content": "x"}, context(work, "strict"))
    assert not (work / ".git" / "hooks" / "pre-commit").exists()


async def test_reading_a_hidden_secret_is_refused(work: Path, home: Path):
    with pytest.raises(WorkbenchError, match="holds secrets"):
        await read({"path": "~/.ssh/id_rsa"}, context(work, "workspace"))
    shown = await read({"path": "~/.ssh/id_rsa"}, context(work, "off"))
    assert SECRET in shown.text


async def test_off_writes_anywhere_as_before(work: Path, outside: Path):
    await write({"path": str(outside / "new.txt"), "content": "x"}, context(work, "off"))
    assert (outside / "new.txt").read_text() == "x"
