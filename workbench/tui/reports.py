"""Readable views of the session commands' results: tables and colour, not text dumps.

Each function takes a result of the `Workbench` (the sessions library's type) and returns a Rich
renderable for `ReportView`. `show_path` decides how a path is written (the app shortens them for
stable screenshots).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from workbench.text import count_of
from workbench.tui import palette, slash

if TYPE_CHECKING:
    from workbench.sessions.workspaces.commit import CommitResult
    from workbench.sessions.workspaces.merge import MergeResult
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


def merge_report(result: MergeResult) -> RenderableType:
    """What a merge did: the commit, the files, the merge entry, a removed worktree."""
    if result.commit:
        head = Text.assemble(
            ("✓ merged ", palette.SUCCESS), (result.branch, "bold"), " into ", (result.into, "bold")
        )
        rows: list[tuple[str, RenderableType]] = [
            ("commit", result.commit[:SHORT]),
            ("files", f"{len(result.files)} changed"),
        ]
    else:
        head = Text.assemble(
            ("✓ merged the conversation of ", palette.SUCCESS),
            (result.branch, "bold"),
            " into ",
            (result.into, "bold"),
        )
        rows = [("files", Text("no file commits to merge", palette.DIM))]
    rows.append(("merge entry", f"{result.entry.id[:SHORT]} on {result.into}"))
    rows.append(("the experiment cost", result.usage.amount_text()))
    if result.removed_worktree:
        rows.append(("worktree", f"removed the worktree of {result.branch}"))
    files = [Text(f"  {path}") for path in result.files]
    return Group(head, Text(), _facts(rows), *files, *_notes(result.notes))


def conflict_report(message: str, hint: str | None, files: list[str]) -> RenderableType:
    """A merge that would conflict: nothing changed, these files, what to do."""
    parts: list[RenderableType] = [Text(f"✗ {message}", palette.ERROR), Text()]
    parts += [Text(f"  conflict  {path}", palette.WARNING) for path in files]
    if hint:
        parts += [Text(), Text(f"what to do: {hint}")]
    return Group(*parts)


def commit_report(result: CommitResult) -> RenderableType:
    if result.commit is None:
        return Text(f"Nothing to commit on {result.branch}: its worktree has no changes.")
    subject, _, body = result.message.partition("\n")
    rows: list[tuple[str, RenderableType]] = [
        ("commit", f"{result.commit[:SHORT]} on {result.branch}"),
        ("subject", Text(subject, "bold")),
        ("files", f"{len(result.files)}: " + ", ".join(result.files[:8])),
    ]
    parts: list[RenderableType] = [Text("✓ committed", palette.SUCCESS), Text(), _facts(rows)]
    if body.strip():
        parts += [Text(), Text(body.strip())]
    return Group(*parts)


def help_report(keys: list[tuple[str, str]], extra: dict[str, str]) -> RenderableType:
    """The keys and every slash command (the app's and the session's own)."""
    key_table = Table(box=None, padding=(0, 2), show_edge=False, title="Keys", title_justify="left")
    key_table.add_column(style="bold", no_wrap=True)
    key_table.add_column()
    for key, what in keys:
        key_table.add_row(key, what)
    commands = Table(
        box=None, padding=(0, 2), show_edge=False, title="Commands", title_justify="left"
    )
    commands.add_column(style="bold", no_wrap=True)
    commands.add_column()
    rows = [(c.usage, c.help) for c in slash.commands()]
    rows.append(("/skill:NAME [request]", "use a skill now, with your request"))
    # the session's own /compact is the app's too: each command is listed once
    rows += [
        (f"/{n}", f"{h} (extension)") for n, h in sorted(extra.items()) if slash.command(n) is None
    ]
    for usage, help_text in rows:
        commands.add_row(Text(usage), Text(help_text))  # Text: `[branch]` is no markup
    return Group(key_table, Text(), commands)
