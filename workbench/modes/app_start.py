"""How the app starts, before Textual is imported and before any thread runs: when its model
needs litellm, a fork of this process imports litellm and makes the model calls (`call_process`,
forked as a cold headless run's is), and a warm interpreter starts for the runs to come
(sub-agents, the next `-p`).

The app itself never imports litellm then. Imported in the app's process, litellm's import took
the interpreter for seconds at the first question, and every piece of every reply was parsed
there too (about 1.5 ms a piece), taking the interpreter lock from the app's thread while keys
were typed. In the fork both run on the machine's other core; only the request and the reply's
pieces cross. A model that needs no litellm (the demo, `scripted:`) forks nothing; one chosen
later with `/model` is imported in the app, in a background thread.
"""

from __future__ import annotations

import os
import threading

from workbench.agent.models.choice import needs_litellm
from workbench.modes.headless_start import calls_elsewhere
from workbench.processes import forkserver


def start(cli_model: str | None, trust: bool) -> None:
    """The app's model calls in a fork, and a warm interpreter started, when its model needs
    litellm (`cli_model`, `trust`: its `--model` and `--trust`)."""
    if not needs_litellm(cli_model, trust):
        return
    calls_elsewhere(quiet=True)
    warm = threading.Thread(
        target=forkserver.start_soon, args=(forkserver.WARM_UP, os.environ), daemon=True
    )
    warm.start()
