"""Command-line entry point: parse arguments and hand over to a front end.

Kept light on purpose: `workbench --help` and `--version` import nothing but argparse. Each
subcommand lives in `workbench.commands.<name>` with `configure(parser)` and `run(args) -> int`,
imported only when that subcommand runs.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from workbench import __version__

TYPE_CHECKING = False  # `typing`'s own, without importing it: a warm run's client needs none
if TYPE_CHECKING:
    from types import ModuleType
    from typing import NoReturn

    from workbench.agent.subagents.settings import Confirm
    from workbench.runtime import Workbench, WorkbenchOptions


MODULES = {"sweep": "sweeps.run", "sweeps": "sweeps.listing", "eval": "evals.run"}
"""Subcommands whose module is not `workbench.commands.<name>`: those grouped in a package."""


def subcommands() -> dict[str, str]:
    """Subcommand name -> one-line help, from the command registry. The module
    `workbench.commands.<name>` implements it (or the one `MODULES` names)."""
    from workbench.runtime.commands import builtin

    return {spec.name: spec.help for spec in builtin("cli")}


def subcommand_module(name: str) -> ModuleType | None:
    """The module that implements subcommand `name` (one with `configure` and `run`), or None
    when `name` is no subcommand: found without reading the command registry, ~6 ms of every
    subcommand's run (a test keeps the two in step)."""
    if not name.isidentifier() or name.startswith("_"):
        return None
    module_name = f"workbench.commands.{MODULES.get(name, name)}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        return None
    found = all(callable(getattr(module, part, None)) for part in ("configure", "run"))
    return module if found else None


EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    """Reports bad arguments as one line on stderr with exit code 2, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: {message} (see `{self.prog} --help`)", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, given the terminal's width as shutil would find it, so that a
    subcommand does not import shutil (and its compression modules) to check its arguments."""

    def __init__(self, prog: str, **options: int) -> None:
        options.setdefault("width", _columns() - 2)  # as argparse does with shutil's figure
        super().__init__(prog, **options)


class _DescriptionFormatter(argparse.RawDescriptionHelpFormatter, _Formatter):
    """The main help's: its description and epilog as written, the width as `_Formatter`'s."""


def _columns() -> int:
    """`shutil.get_terminal_size().columns`: $COLUMNS, else the terminal's, else 80."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            stdout = sys.__stdout__  # None without a console: no width to ask
            columns = os.get_terminal_size(stdout.fileno()).columns if stdout else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _MainParser(_Parser):
    """The main parser; its help ends with the subcommands, read from the command registry only
    when the help is shown (a run, the warm one's client above all, has no use for it)."""

    def format_help(self) -> str:
        if self.epilog is None:
            self.epilog = (
                "subcommands:\n"
                + "\n".join(f"  {name:<10} {text}" for name, text in subcommands().items())
                + "\n\nRun `workbench SUBCOMMAND --help` for a subcommand's options. A prompt "
                "that starts\nwith a subcommand's name goes after `--`: workbench -p -- push the "
                "fix to staging"
            )
        return super().format_help()


def _main_parser() -> argparse.ArgumentParser:
    parser = _MainParser(
        prog="workbench",
        description="A keyboard-driven terminal workbench for LLM agent sessions.",
        formatter_class=_DescriptionFormatter,
    )
    parser.add_argument("--version", action="version", version=f"workbench {__version__}")
    _add_agent_options(parser)
    return parser


def _add_agent_options(parser: argparse.ArgumentParser) -> None:
    """The main (non-subcommand) path: run the agent headless. See docs/headless-and-rpc.md."""
    parser.add_argument("prompt", nargs="*", help="the prompt (or pipe it on stdin)")
    parser.add_argument(
        "-p",
        "--print",
        dest="print_mode",
        action="store_true",
        help="run the prompt, print the final answer and exit",
    )
    parser.add_argument(
        "--mode",
        choices=("text", "json", "rpc", "acp"),
        default="text",
        help="json: every event as a JSON line; rpc: JSON commands on stdin, events on stdout; "
        "acp: an Agent Client Protocol agent for editors (Zed, JetBrains, Toad)",
    )
    parser.add_argument("--model", help="a litellm model string, scripted:PATH, or demo")
    parser.add_argument("--api-base", help="base URL of an OpenAI-compatible server")
    parser.add_argument("--api-key", help="API key for the model's provider or server")
    parser.add_argument(
        "--api-key-file", help="read the API key from this file (keeps it off the command line)"
    )
    parser.add_argument(
        "--no-session", action="store_true", help="keep the conversation in memory only"
    )
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_session",
        action="store_true",
        help="continue the project's most recently active session",
    )
    parser.add_argument("--session", metavar="ID", help="continue this session (id or prefix)")
    parser.add_argument(
        "--branch",
        metavar="NAME",
        help="continue on this conversation branch (of --session, else of the latest session)",
    )
    parser.add_argument(
        "--tools",
        help="exactly the tools the model is offered, comma-separated: the built-in read, bash, "
        "edit, write, the skill tools (skill_activate, skill_deactivate, prime_query), subagent, "
        "extensions' tools and MCP servers' (mcp__SERVER__TOOL) (default: all of them)",
    )
    parser.add_argument(
        "--confine-tools",
        action="store_true",
        help="refuse read, write and edit outside the project and its worktrees",
    )
    parser.add_argument(
        "--approval", choices=("never", "edits", "all"), help="which tool calls wait for your yes"
    )
    parser.add_argument(
        "--sandbox",
        metavar="MODE",
        help="the box of the commands tools run: off, workspace (default where bubblewrap "
        "works: writes only in the project, no network), workspace+net, strict (see "
        "docs/sandbox.md)",
    )
    parser.add_argument("--system-prompt", help="replace the base system prompt (text or file)")
    parser.add_argument(
        "--system-prompt-file", help="replace the base system prompt with this file's text"
    )
    parser.add_argument("--append-system-prompt", help="add to the system prompt (text or file)")
    parser.add_argument(
        "--trust",
        action="store_true",
        help="trust this project for this run (never a session branch's worktree: see "
        "`workbench trust`)",
    )
    parser.add_argument(
        "--mcp-config",
        metavar="FILE",
        help="also start the MCP servers of this file (.mcp.json shape)",
    )
    parser.add_argument("--no-mcp", action="store_true", help="start no MCP servers")
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="ask the provider for no prompt caching (the `cache: false` setting does it too)",
    )


def _text_or_file(value: str | None) -> str | None:
    from pathlib import Path

    if value and len(value) < 4096 and Path(value).expanduser().is_file():
        return Path(value).expanduser().read_text(encoding="utf-8")
    return value


def _system_prompt(args: argparse.Namespace) -> str | None:
    """`--system-prompt` (text or file) or `--system-prompt-file` (a file that must exist)."""
    from pathlib import Path

    from workbench.errors import UsageError

    if args.system_prompt_file is None:
        return _text_or_file(args.system_prompt)
    if args.system_prompt is not None:
        raise UsageError("give --system-prompt or --system-prompt-file, not both")
    try:
        return Path(args.system_prompt_file).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"cannot read the system prompt file {args.system_prompt_file}: {exc}",
            "pass a readable UTF-8 text file",
        ) from exc


def warm_up() -> Callable[[], object]:
    """What a warm interpreter (`workbench.processes.forkserver`) prepares before it forks runs:
    litellm, exercised once, and the modules every headless run imports; what it returns, the
    server does once no run waits (the ACP SDK: a second the first `-p` need not wait for)."""
    from workbench.agent.models.litellm_client import rehearse
    from workbench.agent.models.litellm_client import warm_up as warm_up_litellm
    from workbench.agent.models.price_map import listed_info
    from workbench.processes.warm_server import prepare_spares
    from workbench.sandbox.detect import bwrap_problem

    warm_up_litellm()
    prepare_spares(rehearse)  # each child forked ahead of its run calls the stub once too
    listed_info("warm-up")  # the price map parsed once, not by every session that opens
    importlib.import_module("workbench.modes.json_mode")
    importlib.import_module("workbench.modes.print_mode")
    importlib.import_module("workbench.modes.rpc")
    importlib.import_module("workbench.modes.headless_start")  # a child starts there as well
    importlib.import_module("workbench.commands._session")  # every run's options (`_options`)
    importlib.import_module("workbench.visible")  # every run's guard of the terminal
    _main_parser().parse_args(["-p", "--model", "m", "warm up"])  # argparse's regexes compiled
    bwrap_problem()  # the box's probe (a process) answered once for every run forked from here
    return functools.partial(importlib.import_module, "workbench.modes.acp")


def _options(
    args: argparse.Namespace, model: str | None, confirm: Confirm | None = None
) -> WorkbenchOptions:
    """The session options the agent flags ask for (the headless modes and the app alike);
    `confirm` asks the user yes or no (the app's dialog; None when headless)."""
    from pathlib import Path

    from workbench.agent.store import MemoryStore
    from workbench.commands._session import api_key
    from workbench.runtime import WorkbenchOptions

    return WorkbenchOptions(
        cwd=Path.cwd(),
        store=MemoryStore() if args.no_session else None,
        session_id=args.session,
        continue_session=args.continue_session,
        branch=args.branch,
        model=model,
        api_base=args.api_base,
        api_key=api_key(args),
        tools=None if args.tools is None else args.tools.split(","),
        system_prompt=_system_prompt(args),
        append_system_prompt=_text_or_file(args.append_system_prompt),
        trust=args.trust,
        confine_tools=args.confine_tools,
        sandbox=args.sandbox,
        no_cache=args.no_cache,
        confirm=confirm,
        approval=args.approval,
        mcp=not args.no_mcp,
        mcp_config=Path(args.mcp_config).resolve() if args.mcp_config else None,
    )


def _interactive(args: argparse.Namespace) -> bool:
    """Plain `workbench` (no -p, no --mode json or rpc) in a terminal opens the app."""
    terminal = sys.stdin.isatty() and sys.stdout.isatty()
    return terminal and not args.print_mode and args.mode == "text"


def _run_app(args: argparse.Namespace) -> int:
    """Open the Textual app; the session opens inside it, after the first frame. When the
    model needs litellm, its calls are made by a fork started first (`modes.app_start`)."""
    from workbench.modes.app_start import start

    start(args.model, args.trust)
    from workbench import tui

    async def open_workbench(confirm: Confirm) -> Workbench:
        from workbench.runtime import Workbench

        return await Workbench.open(_options(args, args.model, confirm))

    return tui.run(open_workbench, " ".join(args.prompt) or None)


def _run_agent(
    parser: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str]
) -> int:
    """Open the app, or a session for the headless modes and run the chosen one."""
    if _interactive(args):
        return _run_app(args)
    from workbench.errors import UsageError

    if not args.print_mode and args.mode == "text":
        if args.prompt:
            raise UsageError(
                "the interactive app needs a terminal", "add -p to run the prompt headless"
            )
        parser.print_help()
        return EXIT_OK
    if args.mode == "rpc" and args.prompt:
        raise UsageError("--mode rpc reads its prompts from stdin", 'send {"type": "prompt", ...}')
    if args.mode == "acp":
        return _run_acp(args, argv)
    from workbench.modes.headless_start import start

    if (code := start(argv, args.mode == "rpc", args.model, args.trust)) is not None:
        return code
    import asyncio

    from workbench.modes.headless import read_prompt

    prompt = None if args.mode == "rpc" else read_prompt(args.prompt)
    if args.mode != "rpc" and prompt is None:
        raise UsageError("no prompt given", "pass it as an argument or pipe it on stdin")
    options = _options(args, args.model)  # None: the session's recorded model, or the default
    if args.mode == "rpc":
        from workbench.modes import rpc

        return asyncio.run(rpc.run(options))
    if args.mode == "json":
        from workbench.modes import json_mode

        return asyncio.run(json_mode.run(options, prompt or ""))
    from workbench.modes import print_mode

    return asyncio.run(print_mode.run(options, prompt or ""))


def _run_acp(args: argparse.Namespace, argv: Sequence[str]) -> int:
    """The ACP agent (`modes.acp_start`): warm when a warm interpreter runs, else in-process."""
    from workbench.errors import UsageError

    if args.prompt:
        raise UsageError("--mode acp reads its prompts from the client", "drop the prompt")
    from workbench.modes.acp_start import serve

    return serve(argv, args.model, lambda: _options(args, args.model))


class _SubcommandParser(_Parser):
    """A subcommand's: its help starts with its line of the registry, read only when shown."""

    def format_help(self) -> str:
        self.description = self.description or subcommands().get(self.prog.partition(" ")[2])
        return super().format_help()


def _subcommand_parser(name: str) -> argparse.ArgumentParser:
    return _SubcommandParser(prog=f"workbench {name}", formatter_class=_Formatter)


def _report(exc: Exception) -> None:
    """Print an expected failure as one line (plus the hint), never a traceback."""
    from workbench.errors import WorkbenchError

    if isinstance(exc, WorkbenchError):
        print(f"workbench: {exc.message}", file=sys.stderr)
        if exc.hint:
            print(f"  hint: {exc.hint}", file=sys.stderr)
    else:
        print(f"workbench: {exc}", file=sys.stderr)


def _guarded(run: Callable[[], int]) -> int:
    """Run a command, turning expected failures into one line on stderr and an exit code, and a
    reader that went away (`| head`) into a quiet exit with 141."""
    from workbench.errors import UsageError, WorkbenchError

    try:
        code = int(run())
        sys.stdout.flush()  # a reader that left shows here, not in a traceback at exit
        return code
    except BrokenPipeError:
        from workbench.modes.closed_output import EXIT_BROKEN_PIPE, silence_stdout

        silence_stdout()
        return EXIT_BROKEN_PIPE
    except UsageError as exc:
        _report(exc)
        return EXIT_USAGE
    except WorkbenchError as exc:
        _report(exc)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        return 130


def _exit_without_teardown(code: int) -> NoReturn:
    """End the process now: tearing down litellm's ~3,000 modules takes about a second (a warm
    run's client's few, 6 ms of its 45), and everything of ours is already closed and flushed."""
    if (logging := sys.modules.get("logging")) is not None:
        logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run workbench with `argv` (default: the process arguments); return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in args if not a.startswith("-")), None)
    if first is not None and args[0] == first and (module := subcommand_module(first)):
        from workbench.visible import guard_terminal_output

        guard_terminal_output()
        parser = _subcommand_parser(first)
        module.configure(parser)
        parsed = parser.parse_args(args[1:])
        code = _guarded(lambda: module.run(parsed))
        if argv is None and getattr(module, "CLOSED_ON_RETURN", False):
            _exit_without_teardown(code)
        return code
    parser = _main_parser()
    parsed = parser.parse_args(args)
    code = _guarded(lambda: _run_agent(parser, parsed, args))
    ran_litellm = {"litellm", "workbench.agent.models.call_process"} & sys.modules.keys()
    if argv is None and (ran_litellm or "workbench.runtime" not in sys.modules):
        _exit_without_teardown(code)  # either a run, or nothing of ours ran here (a warm client)
    return code
