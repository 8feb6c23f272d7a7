"""What the tool runner tells the keeper of file snapshots (the runtime's `FileHistory`).

Each tool call that runs may change the files of the workspace, bash included. Before it runs,
the files are recorded as they are, so that a change made outside the agent meanwhile is a
snapshot of its own; after its result is recorded, the files are recorded as it left them, at
that result's entry. The conversation can then go back to any entry with its files.

A tool that never changes a file (`Tool.changes_files`: read, the skill tools) needs neither
record: a change made outside the agent meanwhile is recorded before the next tool that may change
files runs. The record after a tool takes its place among the session's writes at once and is
made while the model is asked again (`checkpoint_soon`); the run waits for it before it ends
(`settle`).
"""

from __future__ import annotations

from typing import Protocol


class FileCheckpoints(Protocol):
    """Called by `workbench.agent.tool_execution` before and after each tool call that runs."""

    async def checkpoint(self) -> None:
        """The files as they are now, at the latest entry (before a tool: the reply or result
        before it; after: its result)."""
        ...

    def checkpoint_soon(self) -> None:
        """`checkpoint` at the latest entry, made while the caller goes on."""
        ...

    async def settle(self) -> None:
        """Wait until every record asked for is made."""
        ...
