"""The Textual front end: `workbench` with no arguments opens it (see `workbench.tui.app`).

Only this package imports Textual; it never imports litellm or GitPython. The app (`app`) wires
its helpers (`composer`, `controller`, `session_view`), which see it only through `host.Host` and
never import it; `components/` holds the widgets, which know nothing of the app.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.agent.subagents.settings import Confirm
    from workbench.runtime import Workbench


def run(
    open_workbench: Callable[[Confirm], Awaitable[Workbench]], prompt: str | None = None
) -> int:
    """Run the app until the user quits; the exit code."""
    from workbench.logfile import start_logging
    from workbench.tui.alt_enter import alt_enter_note
    from workbench.tui.app import WorkbenchApp
    from workbench.visible import visible

    start_logging()
    app = WorkbenchApp(open_workbench, prompt=prompt, keyboard_note=alt_enter_note(os.environ))
    code = app.run()
    if app.resume_hint:
        print(visible(app.resume_hint))
    return int(code or 0)
