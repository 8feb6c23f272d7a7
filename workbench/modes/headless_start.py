"""How a headless run (`-p`, `--mode json`, `--mode rpc`) starts: in a child of the warm
interpreter (`processes.forkserver`) when one serves, else here. When the model needs litellm, a
`-p` or JSON run here forks the process that imports it and makes the calls (`call_process`), an
RPC session imports it in a background thread.

A `-p` or JSON run asks a warm interpreter first, before anything else is read: its child reads
the settings and picks the model as this process would, so the client imports no settings code
(`config` and its `dataclasses` were most of its start-up). When none serves, the run does not
wait for a new one (its import, then this run's session, one after the other, took longer than
both side by side here): it starts one for the runs to come, if its model needs litellm, which
warms up once this run has exited (its imports beside the run's own took the run's CPU: the
first run after an idle spell took 30-60 % longer than one without a warm interpreter). An RPC
client, there for many prompts, starts one and waits for it.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from workbench.processes import forkserver


def start(argv: Sequence[str], rpc: bool, model: str | None, trust: bool) -> int | None:
    """The exit code of a run a warm child made; None: carry on in this process (`argv`: the
    whole command line, `model` and `trust`: its `--model` and `--trust`)."""
    socket = _socket(rpc)
    if not rpc and (code := _run_warm(argv, socket, start=False)) is not None:
        return code
    from workbench.agent.models.choice import model_name, uses_litellm
    from workbench.config import find_project_root
    from workbench.trust import granted, project_settings
    from workbench.visible import guard_terminal_output

    guard_terminal_output()
    cwd = Path.cwd()
    settings = project_settings(find_project_root(cwd), granted(trust, cwd))
    if not uses_litellm(model_name(model, settings, os.environ)):
        return None
    if rpc and (code := _run_warm(argv, socket, start=True)) is not None:
        return code
    if rpc or not calls_elsewhere():
        from workbench.agent.models.litellm_client import preload

        preload()
    if socket is not None:
        forkserver.start_soon(forkserver.WARM_UP, os.environ, path=socket, after_exit=not rpc)
    return None


def calls_elsewhere(quiet: bool = False) -> bool:
    """Whether this run's litellm calls are made by a fork of it (`call_process`): its import
    there, on the other core, while this process starts the session. Forked before anything
    more is imported here (no thread runs yet); not where there is no `fork`, nor where litellm
    is imported already (a warm child). `quiet`: the fork's standard error goes nowhere too (the
    app's terminal is its screen)."""
    if not hasattr(os, "fork") or "litellm" in sys.modules:
        return False
    ours, theirs = socket.socketpair()
    fork = os.fork()
    if fork == 0:
        try:
            ours.close()
            from workbench.agent.models import call_server

            call_server.serve(theirs, quiet)
        finally:
            os._exit(0)
    theirs.close()
    from workbench.agent.models import call_process

    call_process.use(ours, fork)
    return True


def _socket(rpc: bool) -> Path | None:
    """Where this run's warm interpreter listens (found once: that scans our code); None when
    warm start is off (also in a warm child) or for an RPC session typed in a terminal."""
    if not forkserver.enabled(os.environ) or (rpc and sys.stdin.isatty()):
        return None
    try:
        return forkserver.socket_path(forkserver.WARM_UP, os.environ)
    except OSError:
        return None


def _run_warm(argv: Sequence[str], socket: Path | None, start: bool) -> int | None:
    """The exit code of this run in the warm interpreter at `socket` (started and waited for
    when none serves and `start`); None when none could be reached."""
    if socket is None:
        return None
    return forkserver.run_warm(
        forkserver.CLI_ENTRY, argv, forkserver.WARM_UP, start=start, path=socket
    )
