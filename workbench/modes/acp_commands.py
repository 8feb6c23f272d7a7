"""The slash commands an ACP client is offered (`available_commands_update`) and runs by sending
them as a prompt; each calls the `Workbench` API and its answer comes back as agent text.

The same commands as the app's, less those that only make sense on its screen (`/skills`,
`/help`'s keys, `/quit`, `/new`, `/resume`: an editor opens and loads sessions itself). The
session's own commands (`/compact`, `/skill-graph-status`, extensions') and `/skill:NAME` for
each skill the user may invoke are added from the open session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from workbench.errors import WorkbenchError
from workbench.runtime import Workbench
from workbench.sessions.workspaces.merge import MergeConflict
from workbench.skills.projection import first_sentence

Run = Callable[[Workbench, str], Awaitable[str]]


@dataclass(frozen=True)
class AcpCommand:
    name: str
    hint: str
    help: str
    run: Run


def _block(text: str, language: str = "") -> str:
    return f"```{language}\n{text.rstrip()}\n```"


async def _tree(wb: Workbench, args: str) -> str:
    return _block((await wb.tree()).render_text())


async def _fork(wb: Workbench, args: str) -> str:
    result = await wb.fork(args or None)
    await wb.workspace_ready()
    text = result.render_text()
    if result.worktree:
        text += f"\nworktree: {result.worktree}"
    return text


async def _status(wb: Workbench, args: str) -> str:
    return _block((await wb.status(args or None)).render_text())


async def _diff(wb: Workbench, args: str) -> str:
    diff = await wb.diff(None, args or None)
    return _block(diff, "diff") if diff.strip() else "No changes since the fork."


async def _commit(wb: Workbench, args: str) -> str:
    return (await wb.commit(args or None)).render_text()


async def _merge(wb: Workbench, args: str) -> str:
    if not args:
        raise WorkbenchError("/merge needs a branch", "for example: /merge try-b")
    try:
        return (await wb.merge(args)).render_text()
    except MergeConflict as exc:
        files = "\n".join(f"- {name}" for name in exc.files)
        hint = f"\n{exc.hint}" if exc.hint else ""
        return f"Merge conflict: {exc.message}{hint}\n{files}"


async def _label(wb: Workbench, args: str) -> str:
    if not args:
        raise WorkbenchError("/label needs the label text", "for example: /label before-refactor")
    entry = await wb.label(args)
    return f"labelled {entry.payload['target'][:10]} {entry.payload['label']!r}"


async def _model(wb: Workbench, args: str) -> str:
    if args:
        await wb.set_model(args)
    return f"model: {wb.state().model}"


async def _activate(wb: Workbench, args: str) -> str:
    if not args:
        raise WorkbenchError("/activate needs a skill name")
    await wb.activate(args)
    return ""  # the notice says what happened


async def _deactivate(wb: Workbench, args: str) -> str:
    if not args:
        raise WorkbenchError("/deactivate needs a skill name")
    await wb.deactivate(args)
    return ""


async def _sessions(wb: Workbench, args: str) -> str:
    lines = [info.render_text() for info in wb.list_sessions()]
    return _block("\n".join(lines)) if lines else "This project has no stored sessions yet."


async def _compact(wb: Workbench, args: str) -> str:
    await wb.compact(args or None)
    await wb.wait_idle()
    return ""  # the compaction's notice or error says how it went


async def _help(wb: Workbench, args: str) -> str:
    lines = [f"/{c.name} {c.hint}".rstrip() + f" — {c.help}" for c in available(wb)]
    return "\n".join(lines)


BUILTIN: tuple[AcpCommand, ...] = (
    AcpCommand("tree", "", "show the conversation tree (branches, labels, where you are)", _tree),
    AcpCommand("fork", "[name]", "start a branch here, in its own worktree", _fork),
    AcpCommand("status", "[branch]", "what a branch did since its fork: entries, files", _status),
    AcpCommand("diff", "[path]", "the branch's file changes since its fork", _diff),
    AcpCommand("commit", "[message]", "commit the branch's files (no message: drafted)", _commit),
    AcpCommand("merge", "<branch>", "merge a branch into its parent", _merge),
    AcpCommand("label", "<text>", "label the current entry", _label),
    AcpCommand("compact", "[focus]", "summarise older history now", _compact),
    AcpCommand("model", "[name]", "show or switch the model", _model),
    AcpCommand("activate", "<skill>", "activate a skill for this branch", _activate),
    AcpCommand("deactivate", "<skill>", "deactivate a skill", _deactivate),
    AcpCommand("sessions", "", "the project's sessions", _sessions),
    AcpCommand("help", "", "the commands", _help),
)
BY_NAME = {c.name: c for c in BUILTIN}


def _extension(name: str, help_text: str) -> AcpCommand:
    async def run(wb: Workbench, args: str) -> str:
        await wb.run_command(name, args)
        return ""  # a command's output arrives as a notice

    return AcpCommand(name, "[args]", help_text, run)


def available(wb: Workbench) -> list[AcpCommand]:
    """Ours, then the session's own (extensions', the enforcer's), then `/skill:NAME`."""
    found = list(BUILTIN)
    found += [
        _extension(name, command.description)
        for name, command in sorted(wb.commands.items())
        if name not in BY_NAME
    ]
    for name, skill in sorted(wb.skills.skills.items()):
        if str(skill.frontmatter.get("user-invocable", "")).lower() == "false":
            continue
        hint = str(skill.frontmatter.get("argument-hint") or "[request]")
        found.append(AcpCommand(f"skill:{name}", hint, first_sentence(skill.description), _skip))
    return found


async def _skip(wb: Workbench, args: str) -> str:
    raise AssertionError("/skill:NAME is a prompt, not a command")


def advertised(wb: Workbench) -> list[AvailableCommand]:
    return [
        AvailableCommand(
            name=c.name,
            description=c.help or c.name,
            input=AvailableCommandInput(UnstructuredCommandInput(hint=c.hint)) if c.hint else None,
        )
        for c in available(wb)
    ]


def find(wb: Workbench, text: str) -> tuple[AcpCommand, str] | None:
    """The command a prompt runs, with its arguments; None for a prompt for the model
    (`/skill:NAME` too: the enforcer turns it into one)."""
    if not text.startswith("/") or text.startswith("//"):
        return None
    name, _, args = text[1:].strip().partition(" ")
    if name.startswith("skill:"):
        return None
    command = next((c for c in available(wb) if c.name == name), None)
    return None if command is None else (command, args.strip())
