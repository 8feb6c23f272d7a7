"""Which stored session a workbench opens: a new one, or the one its options name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.config import Settings
from workbench.errors import UsageError
from workbench.sessions.session import Session

if TYPE_CHECKING:
    from workbench.runtime.options import WorkbenchOptions


def open_session(options: WorkbenchOptions, settings: Settings) -> Session | None:
    """The stored session the options ask for (a new one, or one to resume); None when they
    bring a store of their own. A session open in another process raises its lock error."""
    if options.store is not None:
        if resumes(options):
            raise UsageError(
                "--no-session cannot resume a stored session",
                "drop --no-session, or drop --continue, --session and --branch",
            )
        return None
    root = settings.project_root
    if resumes(options):
        return Session.open(root, options.session_id, options.branch, settings=settings)
    return Session.create(root, settings)


def resumes(options: WorkbenchOptions) -> bool:
    return bool(options.session_id or options.continue_session or options.branch)
