"""`workbench --mode acp`: workbench as an Agent Client Protocol agent (JSON-RPC over stdio) that
editors such as Zed, JetBrains and Toad drive. Built on the protocol's Python SDK (`acp`).

One process serves every session its client opens. `session/new` opens a `Workbench` in the
client's folder, `session/load` resumes a stored one (replaying its branch), `session/list` lists
the project's sessions, `session/fork` makes a real branch with its own worktree (the SDK serves
fork only with its unstable protocol, switched on here), `session/prompt` runs a turn or a slash
command and streams it (`acp_updates`), a prompt during a turn steers it, `session/cancel`
aborts. Session modes are the enforcer's modes; the model is a config option. Where workbench
asks the user (project sub-agents, an edit or a command waiting for approval: `/approval`), the
client is asked with `session/request_permission`, an edit with the file's text before and after.
The first session may have been opened and answered before the SDK was imported (`acp_early`):
the agent takes it over as if it had opened it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import acp
from acp import RequestError
from acp.schema import (
    ForkSessionResponse,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    SessionInfo,
    SetSessionConfigOptionResponse,
)

from workbench.config import find_project_root
from workbench.errors import WorkbenchError
from workbench.mcp.config import client_servers
from workbench.modes import acp_open
from workbench.modes.acp_handshake import initialize_result
from workbench.modes.acp_session import AcpSession, Bench, Outbox
from workbench.modes.acp_stream import GuardedStdioStream
from workbench.modes.acp_updates import replay
from workbench.runtime import WorkbenchOptions
from workbench.sessions.store.catalog import list_sessions

log = logging.getLogger(__name__)


def _client_servers(servers: list[Any] | None) -> dict[str, Any] | None:
    """An editor's `mcpServers` (the SDK's models) in the `.mcp.json` shape; a fork or a
    session already open keeps the servers it started with."""
    if not servers:
        return None
    return client_servers([server.model_dump(by_alias=True) for server in servers])


def _failure(exc: WorkbenchError) -> RequestError:
    return RequestError.invalid_request({"message": exc.message, "hint": exc.hint})


@contextmanager
def _params() -> Iterator[None]:
    """`acp_open.BadParams` as the protocol's invalid-params error; one that a failed write
    caused (a read-only mount) is logged with its traceback, here and not where it was raised,
    so that the early attempt (`acp_early`), which the SDK repeats, is not logged twice."""
    try:
        yield
    except acp_open.BadParams as exc:
        if isinstance(exc.__cause__, OSError):
            log.error("%s", exc, exc_info=exc.__cause__)
        raise RequestError.invalid_params({"message": str(exc)}) from exc


def prompt_text(blocks: list[Any]) -> str:
    """The prompt as one text: text blocks as they are, a link as `@uri`, an embedded text
    resource as a fenced block named by its uri."""
    parts: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource_link":
            parts.append(f"@{block.uri}")
        elif kind == "resource" and hasattr(block.resource, "text"):
            parts.append(f"{block.resource.uri}:\n```\n{block.resource.text}\n```")
        else:
            raise RequestError.invalid_params({"message": f"{kind} content is not accepted"})
    return "\n".join(parts)


class WorkbenchAgent:
    """The ACP agent (duck-typed: an `acp.Agent` subclass would answer unimplemented methods
    with null instead of "method not found")."""

    def __init__(
        self,
        options: WorkbenchOptions,
        preload: Callable[[], object] | None = None,
        first: acp_open.Opened | None = None,
    ) -> None:
        self.options = options
        self._preload = preload
        """Started once the first session is open and answered: litellm's import would hold the
        interpreter through `session/new` (seconds), and a prompt comes only after it."""
        self._first = first
        """The session `acp_early` opened and answered, taken over once connected."""
        self.conn: Any = None
        self.outbox: Outbox
        self.sessions: dict[str, AcpSession] = {}
        self.benches: dict[str, Bench] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Any) -> None:
        self.conn = conn
        self.outbox = Outbox(conn)
        first, self._first = self._first, None
        if first is not None:
            self._new(self._bench(first))

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        """Asked again after the hand-written answer (`acp_handshake`), answered the same."""
        return InitializeResponse.model_validate(initialize_result())

    # -- opening sessions ---------------------------------------------------------------------

    async def _open(
        self, cwd: str, session_id: str | None, branch: str | None, mcp_servers: list[Any] | None
    ) -> Bench:
        servers = _client_servers(mcp_servers)
        try:
            with _params():
                opened = await acp_open.open_session(self.options, cwd, servers, session_id, branch)
        except WorkbenchError as exc:
            raise _failure(exc) from exc
        return self._bench(opened)

    def _bench(self, opened: acp_open.Opened) -> Bench:
        """The bench that sends an opened session's events and questions to the client."""
        bench = Bench(opened.workbench, self.outbox)
        opened.relay.attach(bench.on_event, bench.ask)
        opened.workbench.answer_permissions(bench.request_permission)
        self.benches[opened.workbench.state().session_id] = bench
        return bench

    def _new(self, bench: Bench) -> None:
        """The ACP session of a session just opened, its first updates sent after its answer."""
        session = AcpSession(acp_open.session_id(bench.wb), bench, bench.wb.state().branch)
        self.sessions[session.id] = session
        self._later(bench, session, [])

    def _later(self, bench: Bench, session: AcpSession, notes: list[str]) -> None:
        """Send the session's first updates once its response is out."""

        async def send() -> None:
            await asyncio.sleep(0)
            bench.release(session, notes)
            preload, self._preload = self._preload, None
            if preload is not None:
                preload()

        task = asyncio.get_running_loop().create_task(send())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        bench = await self._open(cwd, None, None, mcp_servers)
        self._new(bench)
        return NewSessionResponse.model_validate(acp_open.new_session_result(bench.wb))

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        stored, _, branch = session_id.partition("@")
        if not stored.strip():
            raise RequestError.invalid_params(
                {"message": f"no session id in {session_id!r}: load ID or ID@BRANCH"}
            )
        bench = self.benches.get(stored)
        if bench is None:
            bench = await self._open(cwd, stored, branch or None, mcp_servers)
        session = self.sessions.get(session_id)
        if session is None:
            session = AcpSession(session_id, bench, branch or bench.wb.state().branch)
            self.sessions[session_id] = session
        if bench.wb.state().busy and bench.active is not session:
            raise RequestError.invalid_request({"message": "the session is working; try later"})
        try:
            await bench.activate(session)
        except WorkbenchError as exc:
            raise _failure(exc) from exc
        for update in replay(bench.wb.messages(), bench.wb.current.cwd):
            self.outbox.send(session.id, update)
        await self.outbox.flush()
        self._later(bench, session, [])
        return LoadSessionResponse.model_validate(acp_open.session_fields(bench.wb))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        """Each branch of each stored session of the project as `ID@BRANCH` (the current branch
        first), most recently active sessions first."""
        with _params():
            root = find_project_root(acp_open.absolute(cwd) if cwd else Path.cwd()).resolve()
        bench = next((b for b in self.benches.values() if b.wb.project_root == root), None)
        infos = bench.wb.list_sessions() if bench is not None else list_sessions(root)
        found: list[SessionInfo] = []
        for info in infos:
            title = info.name or f"session {info.id[:8]}"
            others = [b for b in info.branches if b != info.current_branch]
            found += [
                SessionInfo(
                    session_id=f"{info.id}@{branch}",
                    cwd=str(root),
                    title=title if branch == "main" else f"{title} ({branch})",
                    updated_at=_iso(info.last_activity),
                )
                for branch in [info.current_branch, *others]
            ]
        return ListSessionsResponse(sessions=found)

    async def fork_session(
        self, session_id: str, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> ForkSessionResponse:
        parent = self._session(session_id)
        bench = parent.bench
        try:
            await bench.activate(parent)
            branch = parent.branch
            result = await bench.wb.fork()
            await bench.wb.workspace_ready()
        except WorkbenchError as exc:
            raise _failure(exc) from exc
        parent.branch = branch
        stored = session_id.partition("@")[0]
        session = AcpSession(f"{stored}@{result.branch}", bench, result.branch)
        self.sessions[session.id] = session
        bench.active = session
        self._later(bench, session, [result.render_text()])
        fields = acp_open.session_fields(bench.wb)
        fields["_meta"]["workbench.fork"] = result.to_json()
        return ForkSessionResponse.model_validate({"sessionId": session.id, **fields})

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.resource_not_found(session_id)
        return session

    # -- in a session ---------------------------------------------------------------------------

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> None:
        await self._session(session_id).bench.set_mode(mode_id)

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        bench = self._session(session_id).bench
        if config_id != "model" or not isinstance(value, str):
            raise RequestError.invalid_params({"message": f"no config option {config_id!r}"})
        try:
            await bench.wb.set_model(value)
        except WorkbenchError as exc:
            raise _failure(exc) from exc
        return SetSessionConfigOptionResponse(config_options=bench.config_options())

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        reason = await session.bench.prompt(session, prompt_text(prompt))
        return PromptResponse(stop_reason=reason)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self.sessions.get(session_id)
        if session is not None and session.bench.running is session:
            await session.bench.cancel()

    async def close(self) -> None:
        workbenches = [bench.wb for bench in self.benches.values()]
        if self._first is not None:  # not taken over yet: the connection never started
            workbenches.append(self._first.workbench)
        for workbench in workbenches:
            try:
                await workbench.close()
            except Exception:
                log.exception("closing a session failed")


def _iso(when: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(when, UTC).isoformat().replace("+00:00", "Z")


async def serve(
    agent: WorkbenchAgent,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    pending: list[bytes],
) -> None:
    """Serve ACP on the protocol's streams (`acp_early.protocol_streams`) until the client
    closes them; `pending` are lines read from `reader` and left unanswered, read first."""
    stream = GuardedStdioStream(reader, writer, pending)
    # the SDK answers "method not found" for what an agent lacks; its Protocol lists them all
    await acp.run_agent(agent, stream, use_unstable_protocol=True)  # type: ignore[arg-type]
