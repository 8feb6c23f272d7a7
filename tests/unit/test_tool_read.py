"""The read tool: windows, truncation with a way to continue, and clear refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.agent.tools.read import execute
from workbench.errors import WorkbenchError
from workbench.tool import ToolContext


async def read(folder: Path, **args: object) -> str:
    result = await execute(dict(args), ToolContext(cwd=folder))
    assert not result.is_error
    return result.text


async def test_reads_relative_to_the_working_folder(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.txt").write_text("one\ntwo\n")
    assert await read(tmp_path, path="sub/a.txt") == "one\ntwo"


async def test_line_numbers_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\ny\nz\n")
    assert await read(tmp_path, path="a.txt", offset=2, line_numbers=True) == "2\ty\n3\tz"


async def test_long_file_is_cut_at_2000_lines_with_how_to_continue(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 2501)))
    text = await read(tmp_path, path="big.txt")
    assert text.splitlines()[1999] == "line 2000"
    assert "line 2001" not in text
    assert text.endswith("[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")
    rest = await read(tmp_path, path="big.txt", offset=2001)
    assert rest.splitlines()[0] == "line 2001"
    assert rest.splitlines()[-1] == "line 2500"


async def test_wide_file_is_cut_at_50_kb(tmp_path: Path) -> None:
    line = "x" * 999
    (tmp_path / "wide.txt").write_text((line + "\n") * 100)
    text = await read(tmp_path, path="wide.txt")
    shown = [row for row in text.splitlines() if row == line]
    assert len(shown) == 51  # 51 lines of 1,000 bytes fit in 51,200
    assert "Use offset=52 to continue." in text


async def test_limit_says_how_much_is_left(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\nb\nc\nd\n")
    text = await read(tmp_path, path="a.txt", offset=2, limit=1)
    assert text == "b\n\n[2 more lines in a.txt. Use offset=3 to continue.]"


async def test_a_line_longer_than_the_limit_points_to_bash(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("x" * 60_000)
    text = await read(tmp_path, path="min.js")
    assert "longer than 50 KB" in text
    assert "sed -n '1p' min.js" in text


async def test_the_bash_hint_quotes_a_path_with_spaces(tmp_path: Path) -> None:
    (tmp_path / "my min.js").write_text("ok\n" + "x" * 60_000)
    text = await read(tmp_path, path="my min.js", offset=2)
    assert "sed -n '2p' 'my min.js' | cut -c1-51200" in text


async def test_byte_order_mark_is_not_shown(tmp_path: Path) -> None:
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbfhello\n")
    assert await read(tmp_path, path="bom.txt") == "hello"


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (lambda p: (p / "img.png").write_bytes(b"\x89PNG\x00\x01"), {"path": "img.png"}, "binary"),
        (lambda p: (p / "l1.txt").write_bytes(b"caf\xe9\n"), {"path": "l1.txt"}, "not UTF-8"),
        (lambda p: None, {"path": "missing.txt"}, "does not exist"),
        (lambda p: (p / "dir").mkdir(), {"path": "dir"}, "is a folder"),
        (lambda p: (p / "a.txt").write_text("a\n"), {"path": "a.txt", "offset": 5}, "beyond"),
        (lambda p: (p / "a.txt").write_text("a\n"), {"path": "a.txt", "limit": 0}, "at least"),
    ],
)
async def test_errors_say_what_is_wrong(tmp_path: Path, setup, args, message) -> None:
    setup(tmp_path)
    with pytest.raises(WorkbenchError, match=message):
        await execute(args, ToolContext(cwd=tmp_path))


async def test_empty_file_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    assert await read(tmp_path, path="empty.txt") == "[empty.txt is empty]"
