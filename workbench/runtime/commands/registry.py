"""What a command is: its name, one-line help, arguments, the runtime call, the surfaces that
offer it and the one text rendering of its result.

Each front end reads these records instead of declaring the command again: the CLI's subcommand
list, the app's completion, palette and help, an editor's (ACP) command list and the RPC table.
Importing this module imports nothing of the runtime's parts (`workbench --help` reads it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.extension_api import Command
    from workbench.runtime.workbench import Workbench

Surface = Literal["cli", "app", "acp", "rpc"]
"""`cli`: a `workbench NAME` subcommand; `app`: a slash command of the app; `acp`: one an editor
is offered; `rpc`: a command of `--mode rpc`."""
SURFACES: frozenset[Surface] = frozenset({"cli", "app", "acp", "rpc"})
ArgumentSource = Literal["skills", "branches", "sessions"]
Args = Mapping[str, Any]
"""A command's arguments by name; an absent one is None."""
R = TypeVar("R")
"""What a command's runtime call returns; its rendering and JSON take the same type."""


@dataclass(frozen=True)
class Argument:
    """One argument. The slash form (`/name text`) gives its whole text to the first argument
    `in_text`; the others are fields of the RPC form only (`{"type": ..., "at": ...}`)."""

    name: str
    what: str = ""
    """How an error names it when it is missing: `/merge needs a branch`."""
    required: bool = False
    complete: ArgumentSource | None = None
    """Where the app's completion finds its values (the open session supplies them)."""
    kind: type = str
    """The JSON type of its RPC field."""
    in_text: bool = True
    rpc_required: bool | None = None
    """Required in the RPC form where that differs from the slash form."""

    def required_in(self, surface: Surface) -> bool:
        if surface == "rpc" and self.rpc_required is not None:
            return self.rpc_required
        return self.required


def _plain(result: object) -> str:
    """The text of a result that says itself (`render_text`), or none."""
    if result is None:
        return ""
    render = getattr(result, "render_text", None)
    return str(render()) if render is not None else str(result)


def _data(result: object) -> object:
    """The JSON of a result: its own `to_json`, else the value itself."""
    to_json = getattr(result, "to_json", None)
    return to_json() if to_json is not None else result


@dataclass(frozen=True)
class CommandSpec(Generic[R]):
    """One command, declared once: `run` returns an R that `render` and `to_json` read."""

    name: str
    help: str
    """One line, the same on every surface."""
    surfaces: frozenset[Surface]
    arguments: tuple[Argument, ...] = ()
    run: Callable[[Workbench, Args], Awaitable[R]] | None = None
    """The runtime call; None where each front end acts on its own (`/quit`, `workbench lint`)."""
    render: Callable[[R], str] = _plain
    """The one text rendering of the result (the app styles it, ACP and the CLI print it)."""
    to_json: Callable[[R], object] = _data
    """The result as RPC's `data`."""
    args_usage: str | None = None
    """The usage's argument part when it is not the arguments' own (`[remote] [--redact]`)."""
    parse: Callable[[str], dict[str, Any]] | None = None
    """Reads the slash form's text where one argument does not take all of it (`/push`)."""
    example: str = ""
    """A usage example, the hint of a missing argument's error."""
    rpc_name: str | None = None
    """The RPC `type` when it differs from the name (`-` becomes `_` by default)."""
    fence: str | None = None
    """The text is preformatted: an editor shows it as a code block of this language."""
    settle: bool = False
    """An editor's answer waits until the session is idle again (the outcome is a notice)."""
    background: bool = False
    """RPC runs it in the background, so that `abort` is not stuck behind it."""
    picks: bool = False
    """Without an argument, the app offers its own picker (the palette asks nothing)."""
    extension: bool = False
    """Registered by an extension (or the enforcer) through `extension_api.Command`."""

    @property
    def args(self) -> str:
        """`[name]`, `<branch>`: `<x>` is required, `[x]` optional."""
        if self.args_usage is not None:
            return self.args_usage
        return " ".join(
            f"<{a.name}>" if a.required else f"[{a.name}]" for a in self.arguments if a.in_text
        )

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".strip()

    @property
    def needs_argument(self) -> bool:
        return self.args.startswith("<")

    @property
    def complete(self) -> ArgumentSource | None:
        text = self.text_argument
        return None if text is None else text.complete

    @property
    def text_argument(self) -> Argument | None:
        return next((a for a in self.arguments if a.in_text), None)

    @property
    def rpc_type(self) -> str:
        return self.rpc_name or self.name.replace("-", "_")

    def offered(self, surface: Surface) -> bool:
        return surface in self.surfaces

    def parse_text(self, text: str) -> dict[str, Any]:
        """The arguments of the slash form `/name text`; a missing required one is an error."""
        text = text.strip()
        if self.parse is not None:
            return self.parse(text)
        found: dict[str, Any] = {a.name: None for a in self.arguments}
        argument = self.text_argument
        if argument is not None:
            found[argument.name] = text or None
            if argument.required and not text:
                what = argument.what or argument.name
                hint = f"for example: {self.example}" if self.example else None
                raise WorkbenchError(f"/{self.name} needs {what}", hint)
        return found

    async def call(self, workbench: Workbench, args: Args) -> R:
        if self.run is None:
            raise WorkbenchError(f"/{self.name} is not offered here", "/help lists the commands")
        return await self.run(workbench, args)

    async def answer(self, workbench: Workbench, text: str) -> str:
        """Run the slash form `/name text` and return the result's text."""
        return self.render(await self.call(workbench, self.parse_text(text)))


AnyCommand = CommandSpec[Any]
"""A command whatever its result's type: what the tables of commands hold."""


def extension_spec(command: Command) -> CommandSpec[None]:
    """An extension's command (`extension_api.Command`) as an entry of the registry: offered in
    the app, to editors and over RPC; its output arrives as a notice."""
    name = command.name

    async def run(workbench: Workbench, args: Args) -> None:
        await workbench.run_command(name, args.get("args") or "")

    return CommandSpec(
        name,
        command.description,
        frozenset({"app", "acp", "rpc"}),
        (Argument("args"),),
        run,
        rpc_name=name,
        extension=True,
    )
