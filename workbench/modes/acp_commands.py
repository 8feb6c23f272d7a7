"""The slash commands an ACP client is offered (`available_commands_update`) and runs by sending
them as a prompt; each is the command registry's (`workbench.runtime.commands`), offered to
editors (`acp`), and its answer comes back as agent text: the registry's text of its result.

Those that only make sense on the app's screen (`/skills`, `/quit`, `/new`, `/resume`: an editor
opens and loads sessions itself) are not offered. The session's own commands (extensions') and
`/skill:NAME` for each skill the user may invoke are added from the open session.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

from workbench.runtime import Workbench
from workbench.runtime.commands import AnyCommand, offered
from workbench.runtime.commands.tree_commands import conflict_text
from workbench.sessions.workspaces.merge import MergeConflict
from workbench.skills.projection import first_sentence


@dataclass(frozen=True)
class SkillCommand:
    """`/skill:NAME`: a prompt the enforcer turns into the skill's use, not a command."""

    name: str
    hint: str
    help: str


def available(wb: Workbench) -> list[AnyCommand | SkillCommand]:
    """The registry's, then the session's own (extensions'), then `/skill:NAME`."""
    found: list[AnyCommand | SkillCommand] = [*offered(wb, "acp")]
    for name, skill in sorted(wb.skills.skills.items()):
        if str(skill.frontmatter.get("user-invocable", "")).lower() == "false":
            continue
        hint = str(skill.frontmatter.get("argument-hint") or "[request]")
        found.append(SkillCommand(f"skill:{name}", hint, first_sentence(skill.description)))
    return found


def _hint(command: AnyCommand | SkillCommand) -> str:
    return command.hint if isinstance(command, SkillCommand) else command.args


def advertised(wb: Workbench) -> list[AvailableCommand]:
    return [
        AvailableCommand(
            name=c.name,
            description=c.help or c.name,
            input=AvailableCommandInput(UnstructuredCommandInput(hint=_hint(c)))
            if _hint(c)
            else None,
        )
        for c in available(wb)
    ]


def find(wb: Workbench, text: str) -> tuple[AnyCommand, str] | None:
    """The command a prompt runs, with its arguments; None for a prompt for the model
    (`/skill:NAME` too: the enforcer turns it into one)."""
    if not text.startswith("/") or text.startswith("//"):
        return None
    name, _, args = text[1:].strip().partition(" ")
    command = next((c for c in offered(wb, "acp") if c.name == name), None)
    return None if command is None else (command, args.strip())


async def answer(wb: Workbench, command: AnyCommand, args: str) -> str:
    """Run a command and return its text, as a code block where it is preformatted."""
    if command.name == "help":
        return "\n".join(f"/{c.name} {_hint(c)}".rstrip() + f" — {c.help}" for c in available(wb))
    try:
        result = await command.call(wb, command.parse_text(args))
    except MergeConflict as exc:
        return conflict_text(exc)
    if command.settle:
        await wb.wait_idle()
    text = command.render(result)
    if command.fence is None or not result:
        return text
    return f"```{command.fence}\n{text.rstrip()}\n```"
