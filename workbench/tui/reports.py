"""Readable views the user asks for (a branch's status, the help): tables and colour, not text
dumps. A command's result is not one of them: it is a notice in the chat (`Controller.tell`).

Each function takes a result of the `Workbench` (the sessions library's type) and returns a Rich
renderable for `ReportView`. `show_path` decides how a path is written (the app shortens them for
stable screenshots).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from workbench.text import count_of
from workbench.tui import palette, slash

if TYPE_CHECKING:
    from workbench.sessions.workspaces.status import BranchStatus

PathStyle = Callable[[str], str]
SHORT = 10


def _facts(rows: Iterable[tuple[str, RenderableType]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for key, value in rows:
        table.add_row(key, value)
    return table


def _notes(notes: list[str]) -> list[RenderableType]:
    return [Text(f"note: {note}", palette.WARNING) for note in notes]


def status_report(status: BranchStatus, show_path: PathStyle = str) -> RenderableType:
    """A branch's status: where it forked, its conversation since, its worktree and files."""
    head = Text.assemble(("⎇ ", palette.PRIMARY), (status.branch, "bold"))
    if status.parent_branch:
        at = (status.fork_entry or "the start")[:SHORT]
        head.append(f"   forked from {status.parent_branch} at {at}", palette.DIM)
    since = " since the fork" if status.parent_branch else ""
    rows: list[tuple[str, RenderableType]] = [
        ("conversation", f"{count_of(status.entries_since_fork, 'entry', 'entries')}{since}"),
        ("tokens", status.usage.tokens_text().replace(" / ", " · ")),
        ("cost", f"{status.usage.amount_text()}{since}  ({status.usage.hit_rate_text()})"),
        ("skills loaded", ", ".join(status.skills_loaded) or Text("none", palette.DIM)),
    ]
    if status.sandbox:
        rows.append(("sandbox", status.sandbox))
    if status.worktree:
        state = Text("uncommitted changes", palette.WARNING) if status.dirty else Text("clean")
        rows.append(("worktree", Text.assemble(show_path(status.worktree), "  (", state, ")")))
    if status.base:
        rows.append((f"ahead of {status.parent_branch}", count_of(status.commits_ahead, "commit")))
    parts: list[RenderableType] = [head, Text(), _facts(rows), Text()]
    if status.files:
        parts.append(Text(f"{count_of(len(status.files), 'file')} changed", "bold"))
    elif status.worktree:
        parts.append(Text("no file changes", palette.DIM))
    return Group(*parts, *_notes(status.notes))


def status_files(status: BranchStatus) -> list[tuple[str, Text]]:
    """The changed files of a status, each as its path and a row to choose it by:
    change, path, and whether it is committed yet."""
    width = max((len(f.path) for f in status.files), default=0)
    return [
        (
            f.path,
            Text.assemble(
                (f"{f.change:<10}", palette.CHANGE_STYLES.get(f.change, "")),
                f.path.ljust(width),
                ("  uncommitted", palette.WARNING) if f.uncommitted else "",
            ),
        )
        for f in status.files
    ]


MIN_DESCRIPTION = 30
"""Below this many cells left for the descriptions, help rows are stacked, not in columns."""


class _Rows:
    """Named rows laid out for the width they get: two columns where the names leave the
    descriptions `MIN_DESCRIPTION` cells, else each name on a line of its own (cut with "…"
    if even that is too narrow) and its description under it, indented."""

    def __init__(self, title: str, rows: list[tuple[str, Text]]) -> None:
        self.title, self.rows = title, rows

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text(self.title, "bold underline")
        width = max((cell_len(name) for name, _ in self.rows), default=0)
        if width + 2 + MIN_DESCRIPTION <= options.max_width:
            table = Table.grid(padding=(0, 2))
            table.add_column(style="bold", no_wrap=True)
            table.add_column()
            for name, what in self.rows:
                table.add_row(Text(name), what)
            yield table
            return
        for name, what in self.rows:
            yield Text(name, "bold", no_wrap=True, overflow="ellipsis")
            yield Padding(what, (0, 0, 0, 4))


def help_report(
    keys: list[tuple[str, str]], extra: dict[str, str], legend: list[tuple[str, str]]
) -> RenderableType:
    """The keys, every slash command (the app's and the session's own) and the legend of the
    panels' marks."""
    commands = [(c.usage, c.help) for c in slash.commands()]
    commands.append(("/skill:NAME [request]", "use a skill now, with your request"))
    # the session's own /compact is the app's too: each command is listed once
    commands += [
        (f"/{n}", f"{h} (extension)") for n, h in sorted(extra.items()) if slash.command(n) is None
    ]
    sections = [("Keys", keys), ("Commands", commands), ("Legend", legend)]
    parts: list[RenderableType] = []
    for title, rows in sections:
        parts += [_Rows(title, [(n, Text(w)) for n, w in rows]), Text()]  # Text: no markup
    return Group(*parts[:-1])
