"""The session's commands: new, resume and the list of sessions; push, pull and export; which
project folders are trusted; and the session's MCP servers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.errors import WorkbenchError
from workbench.runtime.commands.registry import AnyCommand, Args, Argument, CommandSpec

if TYPE_CHECKING:
    from workbench.runtime.mcp_controls import McpReport
    from workbench.runtime.workbench import Workbench
    from workbench.sessions.store.catalog import SessionInfo


async def _sessions(wb: Workbench, args: Args) -> list[SessionInfo]:
    return wb.list_sessions()


def _sessions_text(infos: list[SessionInfo]) -> str:
    if not infos:
        return "This project has no stored sessions yet."
    return "\n".join(info.render_text() for info in infos)


async def _new(wb: Workbench, args: Args) -> None:
    await wb.new_session()


async def _resume(wb: Workbench, args: Args) -> None:
    await wb.resume(args["session"])


def _push_arguments(text: str) -> dict[str, Any]:
    """`/push [remote] [--redact]`."""
    words = text.split()
    remotes = [w for w in words if w != "--redact"]
    if len(remotes) > 1:
        raise WorkbenchError("/push takes one remote", "for example: /push origin --redact")
    return {"remote": remotes[0] if remotes else None, "redact": "--redact" in words}


async def _push(wb: Workbench, args: Args) -> Any:
    return await wb.push(args.get("remote"), redact=bool(args.get("redact")))


def export_format(text: str | None) -> str:
    """`/export [format]`: html (the default) or md."""
    fmt = (text or "").strip() or "html"
    if fmt not in ("html", "md"):
        raise WorkbenchError(f"/export writes html or md, not {fmt!r}", "for example: /export md")
    return fmt


def _export_arguments(text: str) -> dict[str, Any]:
    """`/export [format] [--redact]`."""
    words = text.split()
    formats = [w for w in words if w != "--redact"]
    if len(formats) > 1:
        raise WorkbenchError(
            f"/export writes html or md, not {' '.join(formats)!r}",
            "for example: /export md --redact",
        )
    return {"format": formats[0] if formats else None, "redact": "--redact" in words}


async def _export(wb: Workbench, args: Args) -> Any:
    return await wb.export(fmt=export_format(args.get("format")), redact=bool(args.get("redact")))


async def _mcp(wb: Workbench, args: Args) -> McpReport:
    return wb.mcp_report()


COMMANDS: tuple[AnyCommand, ...] = (
    CommandSpec(
        "sessions",
        "list the project's sessions, most recently active first",
        frozenset({"cli", "acp", "rpc"}),
        run=_sessions,
        render=_sessions_text,
        to_json=lambda infos: [info.to_json() for info in infos],
        fence="",
    ),
    CommandSpec(
        "push",
        "send this session to a git remote",
        frozenset({"cli", "app"}),
        (Argument("remote"), Argument("redact", kind=bool, in_text=False)),
        _push,
        args_usage="[remote] [--redact]",
        parse=_push_arguments,
    ),
    CommandSpec(
        "pull",
        "fetch the sessions others pushed; a diverged branch keeps both lines",
        frozenset({"cli"}),
    ),
    CommandSpec(
        "export",
        "write this branch as one file: html (default) or md",
        frozenset({"cli", "app"}),
        (Argument("format"), Argument("redact", kind=bool, in_text=False)),
        _export,
        args_usage="[format] [--redact]",
        parse=_export_arguments,
    ),
    CommandSpec(
        "trust",
        "trust a project folder's extensions, settings and agents; --list, --revoke",
        frozenset({"cli"}),
    ),
    CommandSpec(
        "mcp",
        "the MCP servers: each one's state, tools and last error",
        frozenset({"cli", "app", "acp", "rpc"}),
        run=_mcp,
        fence="",
    ),
    CommandSpec("new", "start a new session", frozenset({"app"}), run=_new),
    CommandSpec(
        "resume",
        "open another session of this project",
        frozenset({"app"}),
        (Argument("session", "a session", complete="sessions"),),
        _resume,
        picks=True,
    ),
)
