"""`workbench --mode rpc`: JSON commands on stdin (one per line), the event stream on stdout.

Editors and other front ends drive the whole workbench through this. Every command may carry an
`id`; each understood command is answered by a `response` line (`command`, `id`, `success`, and
`data` or `error`/`hint`) while its effects arrive as ordinary events. A line that cannot be
understood (not JSON, no known `type`, a missing field) gets an `error` event; the process goes on.
stdin closing ends the process once the current run has finished; stdout closing (the reader went
away) aborts the run and ends the process with 141.

Commands: prompt {text}, steer {text}, follow_up {text}, abort, get_state, compact {focus?},
set_model {model}, get_queue, edit_queue {queue, index, text}, remove_queued {queue, index},
clear_queue {queue?}; the conversation tree: tree, sessions, status {branch?}, diff {branch?,
path?}, fork {name?, at?}, navigate {target, summarize?}, edit_and_resend {target,
restore_files?} (answers the question's text and the files restored), switch_branch {branch},
commit {message?}, merge {branch, into?, remove_worktree?}, label {label, target?},
skills_status; sweep {prompt, variants?, repeat?, jobs?, check?, check_timeout?, timeout?,
max_cost?, max_tokens?, at?} or {resume} (answers the comparison once every run ended;
`sweep_progress` events meanwhile), sweeps, stop_sweep; eval {skill?, repeat?, jobs?, grader?,
against?, enforcer?, catalog?, ablate?, yes?, no_triggers?, max_cost?, max_tokens?, timeout?,
check_timeout?, sandbox?} (a skill's eval as a sweep: its events, then the eval's comparison; no
skill: {"text": the last evals}); and each command of the session's own (an extension's) by its
name, {args?}. Each tree command answers with the JSON of its result (`diff`: {"diff": unified
diff text}, empty when nothing changed; `fork` once the worktree is checked out); a merge
conflict's failed response also lists the conflicting `files`.
The table is the command registry's (`workbench.runtime.commands`, the commands offered to `rpc`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from typing import Any

from workbench.agent.events import ErrorEvent
from workbench.errors import WorkbenchError
from workbench.modes.event_lines import EventLines
from workbench.modes.headless import EXIT_OK, Interrupts
from workbench.runtime import Workbench, WorkbenchOptions
from workbench.runtime.commands import AnyCommand, offered
from workbench.sessions.workspaces.merge import MergeConflict

log = logging.getLogger(__name__)


class Malformed(WorkbenchError):
    """The command line cannot be understood."""


def table(workbench: Workbench) -> dict[str, AnyCommand]:
    """The commands by their `type`: the registry's offered over RPC, then the session's own
    (extensions', `{"type": NAME, "args": "..."}`)."""
    return {spec.rpc_type: spec for spec in offered(workbench, "rpc")}


def field(cmd: dict[str, Any], key: str, kind: type = str) -> Any:
    value = cmd.get(key)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)  # JSON's 600 is a number too
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise Malformed(
            f"command {cmd.get('type')!r} needs {key!r} as {kind.__name__}",
            f'for example {{"type": "{cmd.get("type")}", "{key}": ...}}',
        )
    return value


def arguments(spec: AnyCommand, cmd: dict[str, Any]) -> dict[str, Any]:
    """The command's fields by its arguments: a required one must be there with its type, an
    optional one may be absent or null."""
    found: dict[str, Any] = {}
    for argument in spec.arguments:
        if argument.required_in("rpc") or cmd.get(argument.name) is not None:
            found[argument.name] = field(cmd, argument.name, argument.kind)
        else:
            found[argument.name] = None
    return found


def parse(line: str, commands: dict[str, AnyCommand]) -> dict[str, Any]:
    """A command object from one line, or Malformed saying what is wrong."""
    try:
        cmd = json.loads(line)
    except json.JSONDecodeError as exc:
        raise Malformed(f"not JSON: {exc.msg} at column {exc.colno}", 'send {"type": ...}') from exc
    if not isinstance(cmd, dict):
        raise Malformed("a command must be a JSON object", 'send {"type": ...}')
    if cmd.get("type") not in commands:
        raise Malformed(
            f"unknown command type {cmd.get('type')!r}", f"commands: {', '.join(commands)}"
        )
    return cmd


class Session:
    """Reads commands, dispatches them, writes responses next to the events."""

    def __init__(self, workbench: Workbench, lines: EventLines) -> None:
        self.workbench = workbench
        self.lines = lines
        self.background: set[asyncio.Task[None]] = set()

    async def handle(self, line: str) -> None:
        try:
            commands = table(self.workbench)
            cmd = parse(line, commands)
            spec = commands[cmd["type"]]
            if spec.background:
                task = asyncio.create_task(self._run(spec, cmd))
                self.background.add(task)
                task.add_done_callback(self.background.discard)
            else:
                await self._run(spec, cmd)
        except Malformed as exc:
            self.lines.event(ErrorEvent(exc.message, exc.hint))

    async def _run(self, spec: AnyCommand, cmd: dict[str, Any]) -> None:
        reply: dict[str, Any] = {"type": "response", "command": cmd["type"], "id": cmd.get("id")}
        try:
            data = spec.to_json(await spec.call(self.workbench, arguments(spec, cmd)))
        except Malformed as exc:
            self.lines.event(ErrorEvent(exc.message, exc.hint))
            return
        except WorkbenchError as exc:
            failure = {**reply, "success": False, "error": exc.message, "hint": exc.hint}
            if isinstance(exc, MergeConflict):
                failure["files"] = exc.files
            self.lines.write(failure)
            return
        except Exception as exc:  # a bug must not end the session the client is driving
            log.exception("rpc command %s failed", cmd["type"])
            self.lines.write({**reply, "success": False, "error": repr(exc), "hint": None})
            return
        self.lines.write({**reply, "success": True, "data": data})


def _read_stdin(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]) -> None:
    """A daemon thread: works for pipes, files and terminals alike, and never blocks exit."""
    for line in sys.stdin:
        loop.call_soon_threadsafe(queue.put_nowait, line)
    loop.call_soon_threadsafe(queue.put_nowait, None)


async def run(options: WorkbenchOptions) -> int:
    workbench = await Workbench.open(options)
    incoming: asyncio.Queue[str | None] = asyncio.Queue()
    interrupts = Interrupts(workbench, on_signal=lambda: incoming.put_nowait(None))
    lines = EventLines(on_closed=interrupts.output_closed)
    lines.header(workbench)
    workbench.subscribe(lines.event)
    session = Session(workbench, lines)
    interrupts.install()
    reader = threading.Thread(
        target=_read_stdin, args=(asyncio.get_running_loop(), incoming), daemon=True
    )
    reader.start()
    try:
        while (line := await incoming.get()) is not None:
            if line.strip():
                await session.handle(line)
        await asyncio.gather(*session.background)
        if interrupts.signal is not None:  # a run may have started while the abort went out
            await workbench.abort()
        await workbench.wait_idle()
    finally:
        await workbench.close()
    return interrupts.exit_code(EXIT_OK)
