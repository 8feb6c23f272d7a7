"""Where the project, and the folder workbench was started in, lie inside a workspace.

A fork's worktree holds the whole git repository, not only the project: the project's folder in
it (its skills and settings) and the tools' folder (where the user started workbench) are found
at the same paths relative to the repository as in the checkout.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from workbench.sessions.store.gitcmd import GitRunner


class ProjectFolders:
    """The project's folder and the tools' folder in any workspace of this project."""

    def __init__(self, project_root: Path, start: Path) -> None:
        self.project_root = project_root
        self._subfolder = (
            start.relative_to(project_root) if start.is_relative_to(project_root) else Path()
        )
        self._prefix = Path()
        """Where the project lies in its git repository (`find_prefix`)."""

    async def find_prefix(self) -> None:
        """Ask git where the project lies in its repository (the project is a git one)."""
        git = GitRunner(self.project_root)
        self._prefix = Path(await asyncio.to_thread(git.run, "rev-parse", "--show-prefix"))

    def project_folder(self, workspace: Path) -> Path:
        """The project's folder in `workspace` (its skills and settings are there)."""
        folder = workspace if workspace == self.project_root else workspace / self._prefix
        return folder if folder.is_dir() else workspace

    def tools_folder(self, workspace: Path) -> Path:
        """The folder workbench was started in, as found in `workspace` (else the project's)."""
        project = self.project_folder(workspace)
        folder = project / self._subfolder
        return folder if folder.is_dir() else project
