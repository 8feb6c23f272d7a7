"""The edit and write tools: one exact match, files untouched on error, endings and BOM kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.agent.tools.edit import execute as edit
from workbench.agent.tools.write import execute as write
from workbench.errors import WorkbenchError
from workbench.tool import ToolContext


async def test_edit_replaces_the_one_match_and_shows_a_diff(tmp_path: Path) -> None:
    target = tmp_path / "a.py"
    target.write_text("def f():\n    return 1\n")
    result = await edit(
        {"path": "a.py", "old_text": "return 1", "new_text": "return 2"}, ToolContext(tmp_path)
    )
    assert target.read_text() == "def f():\n    return 2\n"
    assert "-    return 1\n+    return 2\n" in result.text
    assert result.details["first_changed_line"] == 2
    assert result.details["diff"].startswith("--- a/a.py\n+++ b/a.py\n")


@pytest.mark.parametrize(("old", "message"), [("absent", "not found"), ("x = 1", "occurs 2 times")])
async def test_edit_without_exactly_one_match_leaves_the_file_alone(
    tmp_path: Path, old: str, message: str
) -> None:
    target = tmp_path / "a.py"
    original = b"x = 1\ny = 2\nx = 1\n"
    target.write_bytes(original)
    with pytest.raises(WorkbenchError, match=message) as raised:
        await edit({"path": "a.py", "old_text": old, "new_text": "z"}, ToolContext(tmp_path))
    assert "unchanged" in raised.value.message
    assert target.read_bytes() == original


async def test_overlapping_matches_count_as_several(tmp_path: Path) -> None:
    """`}\n}` matches twice in `}\n}\n}`: which one the model meant is unknown."""
    target = tmp_path / "a.js"
    target.write_bytes(b"}\n}\n}\n")
    with pytest.raises(WorkbenchError, match="occurs 2 times"):
        await edit({"path": "a.js", "old_text": "}\n}", "new_text": "}"}, ToolContext(tmp_path))
    assert target.read_bytes() == b"}\n}\n}\n"


async def test_edit_keeps_crlf_line_endings_and_the_bom(tmp_path: Path) -> None:
    target = tmp_path / "win.txt"
    target.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    await edit(
        {"path": "win.txt", "old_text": "two\nthree", "new_text": "2\n3\n3.5"},
        ToolContext(tmp_path),
    )
    assert target.read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n3\r\n3.5\r\n"


async def test_edit_in_a_mixed_file_changes_only_the_edited_region(tmp_path: Path) -> None:
    target = tmp_path / "mixed.txt"
    target.write_bytes(b"a\r\nb\nc\r\nd\n")
    await edit({"path": "mixed.txt", "old_text": "c", "new_text": "C"}, ToolContext(tmp_path))
    assert target.read_bytes() == b"a\r\nb\nC\r\nd\n"


async def test_edit_refuses_empty_and_identical_text(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("same\n")
    with pytest.raises(WorkbenchError, match="empty"):
        await edit({"path": "a.txt", "old_text": "", "new_text": "x"}, ToolContext(tmp_path))
    with pytest.raises(WorkbenchError, match="identical"):
        await edit({"path": "a.txt", "old_text": "same", "new_text": "same"}, ToolContext(tmp_path))


async def test_edit_of_a_missing_or_binary_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(WorkbenchError, match="does not exist"):
        await edit({"path": "no.txt", "old_text": "a", "new_text": "b"}, ToolContext(tmp_path))
    (tmp_path / "b.bin").write_bytes(b"a\x00b")
    with pytest.raises(WorkbenchError, match="binary"):
        await edit({"path": "b.bin", "old_text": "a", "new_text": "b"}, ToolContext(tmp_path))
    assert (tmp_path / "b.bin").read_bytes() == b"a\x00b"


async def test_write_creates_parent_folders_and_reports_bytes(tmp_path: Path) -> None:
    result = await write({"path": "deep/er/new.txt", "content": "héllo"}, ToolContext(tmp_path))
    assert (tmp_path / "deep/er/new.txt").read_text(encoding="utf-8") == "héllo"
    assert result.text == "Created deep/er/new.txt (6 bytes written)"
    again = await write({"path": "deep/er/new.txt", "content": ""}, ToolContext(tmp_path))
    assert again.text.startswith("Overwrote")


async def test_write_onto_a_folder_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(WorkbenchError, match="is a folder"):
        await write({"path": "dir", "content": "x"}, ToolContext(tmp_path))
