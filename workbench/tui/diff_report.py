"""A unified diff (`Workbench.diff`) as a readable view: one header per file with its change and
counts, hunk headers, added and removed lines in colour, git's bookkeeping lines left out.

Very long diffs are cut (drawing tens of thousands of lines at once would stall the app); the view
then says how much is left and how to see one file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Group, RenderableType
from rich.text import Text

from workbench.text import count_of
from workbench.tui import palette

MAX_LINES = 2000
HUNK = "#56B6C2"
LINE_STYLES = {"+": palette.SUCCESS_COLOUR, "-": palette.ERROR_COLOUR, "\\": palette.DIM}
HEADER_SKIPPED = ("index ", "--- ", "+++ ")
"""Header lines the file header already says (the blob ids, the a/ and b/ names)."""


@dataclass
class FileDiff:
    """One file's part of a unified diff."""

    path: str
    change: str = "modified"
    lines: list[str] = field(default_factory=list)
    """The hunks, and notes such as `Binary files differ` or a mode change."""

    @property
    def added(self) -> int:
        return sum(1 for line in self.lines if line.startswith("+"))

    @property
    def removed(self) -> int:
        return sum(1 for line in self.lines if line.startswith("-"))


def _path(header: str) -> str:
    """`diff --git a/P b/P` -> P (renames are off, so both halves are the same path)."""
    names = header.removeprefix("diff --git ")
    first = names[: (len(names) - 1) // 2]
    return first.strip('"').removeprefix("a/")


def split_files(diff: str) -> list[FileDiff]:
    """The files of a `git diff` text, in order."""
    files: list[FileDiff] = []
    in_header = False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            files.append(FileDiff(_path(line)))
            in_header = True
        elif not files:
            continue
        elif in_header and not line.startswith("@@"):
            if line.startswith("new file mode"):
                files[-1].change = "added"
            elif line.startswith("deleted file mode"):
                files[-1].change = "deleted"
            elif not line.startswith(HEADER_SKIPPED):
                files[-1].lines.append("\\ " + line)  # a note: binary, mode change
        else:
            in_header = False
            files[-1].lines.append(line)
    return files


def _counts(added: int, removed: int) -> Text:
    """`+A -R`, a count of none dimmed."""
    return Text.assemble(
        (f"+{added}", palette.SUCCESS_COLOUR if added else palette.DIM),
        " ",
        (f"-{removed}", palette.ERROR_COLOUR if removed else palette.DIM),
    )


def _line(line: str) -> Text:
    if line.startswith("@@"):
        ranges, _, context = line.partition(" @@")
        return Text.assemble((ranges + " @@", HUNK), (context, palette.DIM))
    if line.startswith("\\ "):
        return Text(line[2:], palette.DIM)
    return Text(line, LINE_STYLES.get(line[:1], ""))


def diff_report(diff: str, path: str | None = None, since: str = "the fork") -> RenderableType:
    """The view of `diff` (of the whole branch, or of `path` when given); `since` names what it
    compares with (the project checkout's own branch: the last commit)."""
    files = split_files(diff)
    if not files:
        what = f"to {path}" if path else "to its files"
        return Text(f"No changes {what} since {since}.", palette.DIM)
    added, removed = sum(f.added for f in files), sum(f.removed for f in files)
    parts: list[RenderableType] = [
        Text.assemble(
            (f"{count_of(len(files), 'file')} changed", "bold"), "  ", _counts(added, removed)
        )
    ]
    budget = MAX_LINES
    for file in files:
        parts += [
            Text(),
            Text.assemble(
                ("▍", palette.PRIMARY),
                (file.path, "bold"),
                "  ",
                (file.change, palette.CHANGE_STYLES.get(file.change, "")),
                "  ",
                _counts(file.added, file.removed),
            ),
        ]
        shown = file.lines[: max(budget, 0)]
        parts += [_line(line) for line in shown]
        budget -= len(shown)
    left = sum(len(f.lines) for f in files) - MAX_LINES
    if left > 0:
        parts += [
            Text(),
            Text(f"… {left:,} more lines not shown: /diff PATH shows one file", palette.WARNING),
        ]
    return Group(*parts)
