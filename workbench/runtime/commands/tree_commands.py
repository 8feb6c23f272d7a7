"""The conversation tree's commands: tree, fork, navigate, status, diff, commit, merge, label,
and the RPC's moves (switch_branch, edit_and_resend)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.runtime.commands.registry import SURFACES, AnyCommand, Args, Argument, CommandSpec

if TYPE_CHECKING:
    from workbench.agent.store import Entry
    from workbench.runtime.workbench import Workbench
    from workbench.sessions.workspaces.fork import ForkResult
    from workbench.sessions.workspaces.merge import MergeConflict


async def _tree(wb: Workbench, args: Args) -> Any:
    return await wb.tree()


async def _fork(wb: Workbench, args: Args) -> ForkResult:
    result = await wb.fork(args.get("name"), args.get("at"))
    await wb.workspace_ready()  # a script or an editor may go straight to the worktree's files
    return result


async def _navigate(wb: Workbench, args: Args) -> Any:
    restore = bool(args.get("restore_files"))
    return await wb.navigate(args["target"], bool(args.get("summarize")), restore)


async def _status(wb: Workbench, args: Args) -> Any:
    return await wb.status(args.get("branch"))


async def _diff(wb: Workbench, args: Args) -> str:
    return await wb.diff(args.get("branch"), args.get("path"))


def _diff_text(diff: str) -> str:
    return diff if diff.strip() else "No changes since the fork."


async def _commit(wb: Workbench, args: Args) -> Any:
    return await wb.commit(args.get("message"))


async def _merge(wb: Workbench, args: Args) -> Any:
    return await wb.merge(args["branch"], args.get("into"), args.get("remove_worktree"))


def conflict_text(conflict: MergeConflict) -> str:
    """A merge that would conflict, as text: nothing changed, what to do, the files."""
    hint = f"\n{conflict.hint}" if conflict.hint else ""
    files = "\n".join(f"- {name}" for name in conflict.files)
    return f"Merge conflict: {conflict.message}{hint}\n{files}"


async def _label(wb: Workbench, args: Args) -> Entry:
    return await wb.label(args["label"], args.get("target"))


def _label_text(entry: Entry) -> str:
    target, label = entry.payload["target"], entry.payload["label"]
    return f"labelled {target[:10]} {label!r} (entry {entry.id[:10]})"


def _label_json(entry: Entry) -> dict[str, Any]:
    return {"id": entry.id, "target": entry.payload["target"], "label": entry.payload["label"]}


async def _switch_branch(wb: Workbench, args: Args) -> dict[str, Any]:
    await wb.switch_branch(args["branch"])
    return {"branch": wb.state().branch}


async def _edit_and_resend(wb: Workbench, args: Args) -> dict[str, Any]:
    text, files = await wb.edit_and_resend(args["target"], bool(args.get("restore_files")))
    restored = files.to_json() if files is not None else None
    return {"text": text, "branch": wb.state().branch, "files": restored}


_AT = Argument("at", in_text=False)

COMMANDS: tuple[AnyCommand, ...] = (
    CommandSpec(
        "tree",
        "show the conversation tree (branches, labels, where you are)",
        SURFACES,
        run=_tree,
        fence="",
    ),
    CommandSpec(
        "fork",
        "start a branch of the conversation here",
        SURFACES,
        (Argument("name"), _AT),
        _fork,
    ),
    CommandSpec(
        "navigate",
        "move a session's position to an entry or a branch head",
        frozenset({"cli", "rpc"}),
        (
            Argument("target", "an entry", True),
            Argument("summarize", kind=bool, in_text=False),
            Argument("restore_files", kind=bool, in_text=False),
        ),
        _navigate,
    ),
    CommandSpec(
        "status",
        "what a branch did since its fork: entries, files",
        SURFACES,
        (Argument("branch", complete="branches"),),
        _status,
        fence="",
    ),
    CommandSpec(
        "diff",
        "the branch's file changes since its fork, as a diff",
        frozenset({"app", "acp", "rpc"}),
        (Argument("path"), Argument("branch", in_text=False)),
        _diff,
        _diff_text,
        lambda diff: {"diff": diff},
        fence="diff",
    ),
    CommandSpec(
        "commit",
        "commit the branch's files (no message: the model drafts)",
        SURFACES,
        (Argument("message"),),
        _commit,
    ),
    CommandSpec(
        "merge",
        "merge a branch into its parent",
        SURFACES,
        (
            Argument("branch", "a branch", True, "branches"),
            Argument("into", in_text=False),
            Argument("remove_worktree", kind=bool, in_text=False),
        ),
        _merge,
        example="/merge try-b",
    ),
    CommandSpec(
        "label",
        "label the current entry",
        SURFACES,
        (Argument("label", "the label text", True), Argument("target", in_text=False)),
        _label,
        _label_text,
        _label_json,
        args_usage="<text>",
        example="/label before-refactor",
    ),
    CommandSpec(
        "switch_branch",
        "go to the head of a branch",
        frozenset({"rpc"}),
        (Argument("branch", "a branch", True),),
        _switch_branch,
    ),
    CommandSpec(
        "edit_and_resend",
        "go back to just before a question and answer its text, to ask it again",
        frozenset({"rpc"}),
        (
            Argument("target", "a question's entry", True),
            Argument("restore_files", kind=bool, in_text=False),
        ),
        _edit_and_resend,
    ),
)
