"""The agent's commands: prompts and their queues, stopping, the state, compaction, the
model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.runtime.commands.registry import AnyCommand, Args, Argument, CommandSpec, Surface

if TYPE_CHECKING:
    from workbench.runtime.workbench import Workbench

RPC: frozenset[Surface] = frozenset({"rpc"})
_TEXT = (Argument("text", "the message", True),)
_QUEUE = Argument("queue", "a queue (steering or follow_up)", True)
_INDEX = Argument("index", "the message's index", True, kind=int)


async def _prompt(wb: Workbench, args: Args) -> None:
    await wb.prompt(args["text"])


async def _steer(wb: Workbench, args: Args) -> None:
    await wb.steer(args["text"])


async def _follow_up(wb: Workbench, args: Args) -> None:
    await wb.follow_up(args["text"])


async def _abort(wb: Workbench, args: Args) -> None:
    await wb.abort()


async def _get_state(wb: Workbench, args: Args) -> dict[str, Any]:
    return wb.state().to_dict()


async def _compact(wb: Workbench, args: Args) -> None:
    await wb.compact(args.get("focus"))  # the compaction's notice or error says how it went


async def _model(wb: Workbench, args: Args) -> str:
    if args.get("model"):
        await wb.set_model(args["model"])
    return wb.state().model


APPROVAL_SAYS: dict[str, str] = {
    "never": "tools run without asking",
    "edits": "each edit and write waits for your yes (y), no (n) or always (a)",
    "all": "each edit, write and command waits for your yes (y), no (n) or always (a)",
}


def approval_text(mode: str) -> str:
    """What a mode means, as `/approval` answers."""
    return f"approval: {mode} — {APPROVAL_SAYS.get(mode, '')}"


async def _approval(wb: Workbench, args: Args) -> str:
    mode = args.get("mode")
    return wb.set_approval(mode) if mode else wb.cycle_approval()


async def _get_queue(wb: Workbench, args: Args) -> dict[str, list[str]]:
    return wb.queues()


async def _edit_queue(wb: Workbench, args: Args) -> None:
    wb.edit_queued(args["queue"], args["index"], args["text"])


async def _remove_queued(wb: Workbench, args: Args) -> None:
    wb.remove_queued(args["queue"], args["index"])


async def _clear_queue(wb: Workbench, args: Args) -> None:
    wb.clear_queue(args.get("queue"))


COMMANDS: tuple[AnyCommand, ...] = (
    CommandSpec("prompt", "start a run with a message", RPC, _TEXT, _prompt),
    CommandSpec("steer", "redirect the running agent now", RPC, _TEXT, _steer),
    CommandSpec("follow_up", "queue a message for when the agent stops", RPC, _TEXT, _follow_up),
    CommandSpec("abort", "stop the run; queued messages stay queued", RPC, run=_abort),
    CommandSpec("get_state", "the session's state", RPC, run=_get_state),
    CommandSpec(
        "compact",
        "summarise older history now",
        frozenset({"app", "acp", "rpc"}),
        (Argument("focus"),),
        _compact,
        settle=True,
    ),
    CommandSpec(
        "model",
        "show or switch the model (the app lists them)",
        frozenset({"app", "acp", "rpc"}),
        (Argument("model", "a model", rpc_required=True),),
        _model,
        lambda name: f"model: {name}",
        lambda name: {"model": name},
        args_usage="[name]",
        rpc_name="set_model",
        background=True,
    ),
    CommandSpec(
        "approval",
        "which tool calls wait for your yes: never, edits, all (no argument: the next one)",
        frozenset({"app", "acp", "rpc"}),
        (Argument("mode", "a mode (never, edits or all)"),),
        _approval,
        approval_text,
        lambda mode: {"approval": mode},
        rpc_name="set_approval",
    ),
    CommandSpec("get_queue", "the queued messages", RPC, run=_get_queue),
    CommandSpec(
        "edit_queue",
        "change a queued message",
        RPC,
        (_QUEUE, _INDEX, *_TEXT),
        _edit_queue,
    ),
    CommandSpec("remove_queued", "drop a queued message", RPC, (_QUEUE, _INDEX), _remove_queued),
    CommandSpec("clear_queue", "drop the queued messages", RPC, (Argument("queue"),), _clear_queue),
)
