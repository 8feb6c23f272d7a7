"""The app's commands: each slash command and panel key, run against the `Workbench`.

Every handler is a coroutine the app runs in a worker (`WorkbenchApp.act`), so a slow command (a
model switch, a merge) never blocks typing, and a failure is shown in the chat with its hint. A
result (a commit, a merge, a push) is a notice in the chat, never a view: the key pressed next
does what it says. Views are what the user asked to read (help, status, diff).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.text import Text

from workbench.errors import WorkbenchError
from workbench.permission import ALLOW, REJECT, PermissionOption, PermissionRequest
from workbench.runtime.commands import AnyCommand
from workbench.sessions.workspaces.rewind import ChangedOutside
from workbench.sweeps.options import EXAMPLE
from workbench.text import count_of
from workbench.tui import reports, slash
from workbench.tui.components.commit_draft import CommitDraft
from workbench.tui.components.report_view import ReportView
from workbench.tui.components.session_picker import SessionPicker
from workbench.tui.components.status_view import StatusView
from workbench.tui.components.text_prompt import TextPrompt
from workbench.tui.components.tree_panel import Target, TreeAction
from workbench.tui.diff_report import diff_report
from workbench.tui.host import opened
from workbench.tui.keys import KEYS, LEGEND
from workbench.tui.model_picker import ModelPicker
from workbench.tui.permission_prompt import PermissionPrompt
from workbench.tui.sweep.view import SweepAction

RESTORE = PermissionOption(ALLOW, "y", "yes, restore them", "allow_once")
RESTORE_SHOWN = 12
"""The files the restore question names; the rest are counted."""

if TYPE_CHECKING:
    from workbench.runtime import Workbench
    from workbench.tui.host import Host
    from workbench.tui.session_view import SessionView


class Controller:
    """The slash commands the app asks or shows its own way as `cmd_<name>` methods (`-` becomes
    `_`), the others as the command registry runs them; panel requests as `tree_*`."""

    def __init__(self, host: Host, session: SessionView) -> None:
        self.host = host
        self.session = session

    @property
    def wb(self) -> Workbench:
        return opened(self.host)

    async def run(self, name: str, args: str = "") -> None:
        """A command with a `cmd_` method asks or shows something of the app's own; any other
        runs as the registry declares it, its text in the chat."""
        handler = getattr(self, "cmd_" + name.replace("-", "_"), None)
        if handler is not None:
            await handler(args)
            return
        self.tell(await _spec(name).answer(self.wb, args))

    def tell(self, text: str) -> None:
        """A command's result, as a notice in the chat: never a view that takes the next key."""
        if text:
            self.host.note("info", sentence(text))

    def show(self, title: str, body: RenderableType) -> None:
        self.host.push_screen(ReportView(title, body))

    async def ask(
        self, title: str, hint: str = "", value: str = "", empty: bool = False
    ) -> str | None:
        return await self.host.ask(TextPrompt(title, hint, value, allow_empty=empty))

    # -- the conversation tree ----------------------------------------------------------------

    async def cmd_tree(self, args: str) -> None:
        await self.session.show_tree()
        self.host.focus_pane("tree")

    async def cmd_fork(self, args: str, at: str | None = None) -> None:
        result = await self.wb.fork(args or None, at=at)
        self.host.note("info", sentence(result.render_text(self.host.show_path)))

    async def cmd_status(self, args: str) -> None:
        status = await self.wb.status(args or None)
        body = reports.status_report(status, self.host.show_path)
        files = reports.status_files(status)
        self.host.push_screen(StatusView(f"Status of {status.branch}", body, status.branch, files))

    async def cmd_diff(self, args: str) -> None:
        await self.show_diff(None, args.strip() or None)

    async def show_diff(self, branch: str | None, path: str | None) -> None:
        """The diff of `branch` (default: the current one), of one file or folder or all."""
        name = branch or self.wb.state().branch
        diff = await self.wb.diff(name, path)
        record = self.session.branch(name)
        since = "the fork" if record is None or record.parent_branch else "the last commit"
        title = f"Diff of {path} on {name}" if path else f"Diff of {name} since {since}"
        body = diff_report(diff, path, since)
        self.host.push_screen(ReportView(title, body, "↑↓ PgUp PgDn scroll · Esc back"))

    async def cmd_commit(self, args: str) -> None:
        """With a message, commit; without, the model drafts one for the user to edit."""
        message = args.strip() or None
        if message is None:
            self.host.note("info", "Drafting a commit message with the model…")
            draft = await self.wb.draft_commit_message()
            if draft is not None:
                branch = self.wb.state().branch
                trailers = "\n".join(self.wb.commit_trailers())  # what the branch cost
                shown = f"{draft}\n\n{trailers}" if trailers else draft
                message = await self.host.ask(CommitDraft(branch, shown))
                if message is None:
                    self.host.note("info", "Nothing committed: the draft was dropped.")
                    return
        result = await self.wb.commit(message)  # None: nothing to commit, no model asked
        self.tell(_spec("commit").render(result))

    async def cmd_merge(self, args: str) -> None:
        branch = _spec("merge").parse_text(args)["branch"]
        remove = None
        worktree = self.session.worktree_of(branch)
        if worktree:
            remove = await self.host.confirm(
                f"Remove the worktree of {branch}?",
                f"After the merge, its folder can be deleted:\n{worktree}\n\n"
                "Its commits are merged first; the merge refuses if it holds uncommitted work.",
                yes="Remove it",
                no="Keep it",
            )
        try:
            result = await self.wb.merge(branch, remove_worktree=remove)
        except WorkbenchError as exc:
            files = getattr(exc, "files", None)  # a conflict: the parent is as it was
            if not files:
                raise
            conflicts = "".join(f"\n  conflict  {path}" for path in files)
            self.host.show_error(exc.message + conflicts, exc.hint)
            return
        self.session.show_path()  # the merged-into branch first: the result is said after it
        self.tell(result.render_text(entry=False))

    async def cmd_label(self, args: str, target: str | None = None) -> None:
        await self.wb.label(_spec("label").parse_text(args)["label"], target)

    async def tree_request(self, action: TreeAction, target: Target) -> None:
        """A key in the tree panel, on a branch or an entry."""
        if action == "resend":
            if target.entry_type != "user" or target.entry is None:
                raise WorkbenchError(
                    "only a question can be edited and resent", "Alt+E on one of your messages (›)"
                )
            restore = await self.offer_restore(target.entry, question=True)
            question, files = await self.wb.edit_and_resend(target.entry, restore)
            if files is not None:  # said once the chat shows the move, as going back does
                self.session.after_move = sentence(files.render_text())
            self.host.editor.replace_text(question)
            self.host.focus_pane("editor")
            return
        after_turn = target.after_turn  # None: the branch has no entries yet
        if after_turn is None or (action == "go" and target.entry is None):
            await self.wb.switch_branch(target.branch)
        elif action in ("go", "go_summarized"):
            summarize = action == "go_summarized"
            if after_turn == self.session.position():
                self.host.note("info", "You are there already.")
                return
            restore = await self.offer_restore(after_turn)
            if summarize:
                self.host.note("info", "Summarising the path left behind…")
            moved = await self.wb.navigate(after_turn, summarize, restore)
            if moved.files is not None:  # said once the chat shows the move
                self.session.after_move = sentence(moved.files.render_text())
        elif action == "fork":
            name = await self.ask("Name of the new branch", "empty: a name is chosen", empty=True)
            if name is not None:
                await self.cmd_fork(name, at=after_turn)
        elif action == "label":
            text = await self.ask("Label this entry", "for example: before-refactor")
            if text:
                await self.cmd_label(text, target.at)
        elif action == "merge":
            record = self.session.branch(target.branch)
            if record is None or record.parent_branch is None:
                raise WorkbenchError(
                    f"{target.branch} has no parent branch to merge into",
                    "merge a forked branch (⎇ under another one); Alt+F forks one",
                )
            parent = record.parent_branch
            if await self.host.confirm(f"Merge {target.branch} into {parent}?", ""):
                await self.run("merge", target.branch)
        elif action == "status":
            await self.run("status", target.branch)

    async def offer_restore(self, target: str, question: bool = False) -> bool:
        """Whether going to `target` (before the question `target`) restores the files too:
        asked in the permission prompt when the agent changed files since; a restore that
        would lose changes made outside the agent is refused, and the refusal says which."""
        try:
            files = await self.wb.files_to_restore(target, question)
        except ChangedOutside as exc:
            self.host.note("warning", sentence(exc.message), exc.hint)
            return False
        if not files:
            return False
        detail = "\n".join(f"  {path}" for path in files[:RESTORE_SHOWN])
        if len(files) > RESTORE_SHOWN:
            detail += f"\n  … and {len(files) - RESTORE_SHOWN} more"
        title = f"Restore the files to this point too? {count_of(len(files), 'file')} change:"
        options = (RESTORE, PermissionOption(REJECT, "n", "no, only go there", "reject_once"))
        request = PermissionRequest("restore_files", "", title, detail, options)
        return await self.host.query_one(PermissionPrompt).ask(request) == ALLOW

    # -- sweeps ---------------------------------------------------------------------------------

    async def cmd_sweep(self, args: str) -> None:
        """With a question, run the sweep (its view opens as it starts); with `--resume ID`,
        run what that sweep is missing; without either, show the running or the last one."""
        sweep = _spec("sweep")
        arguments = sweep.parse_text(args)
        resume = arguments["resume"]
        if arguments["prompt"] is None and not arguments["variants"] and not resume:
            if self.host.sweep_board.sweep is None:
                recorded = await asyncio.to_thread(self.wb.sweep_controls.sweeps)
                if not recorded:
                    raise WorkbenchError("no sweep in this session yet", f"for example: {EXAMPLE}")
                self.host.sweep_board.show(recorded[-1])
            self.host.show_sweep()
            return
        starting = "Starting a sweep: forking a branch for each run…"
        if resume:
            starting = f"Resuming {resume}: its runs that did not end…"
        self.host.note("info", starting)
        done = await sweep.call(self.wb, arguments)
        best = done.summary()[0]
        said = f"{done.id}: {count_of(len(done.runs), 'run')} ended; best {best['name']} "
        said += f"({best['passed']}/{best['runs']} passed)."
        if done.stopped:
            said = f"{done.id}: {done.stopped}; each run kept what it did."
        self.host.note("info", said, "/sweep shows it again; Alt+M there merges a run")

    async def sweep_request(self, action: SweepAction, branch: str | None) -> None:
        """A key in the sweep view: a run's status, its merge, or stop every run."""
        if action == "stop":
            await self.stop_sweep()
        elif branch is not None:
            await (self.run("status", branch) if action == "status" else self.merge_run(branch))

    async def merge_run(self, branch: str) -> None:
        """Alt+M in the sweep view: the run's files are committed on its branch, then the
        branch is merged as `/merge` merges."""
        sweep = self.host.sweep_board.sweep
        run = next((r for r in sweep.runs if r.branch == branch), None) if sweep else None
        if sweep is None or run is None:
            return
        if run.outcome in ("queued", "running"):
            raise WorkbenchError(f"{branch} is still {run.outcome}", "merge it once it is done")
        about = "Its files are committed on its branch first, then merged (a real git merge)."
        if not await self.host.confirm(f"Merge {branch} into {sweep.branch}?", about):
            return
        await self.wb.commit(f"{sweep.id}: the {run.variant} run {run.repeat}", branch=branch)
        await self.cmd_merge(branch)

    async def stop_sweep(self) -> None:
        """Esc in the sweep view while runs go."""
        self.host.note("info", "Stopping every run of the sweep; each keeps what it did.")
        await self.wb.stop_sweep()

    async def cmd_push(self, args: str) -> None:
        push = _spec("push")
        arguments = push.parse_text(args)  # a wrong one is refused before the note
        self.host.note("info", "Pushing the session…")
        self.tell(push.render(await push.call(self.wb, arguments)))

    # -- the session ----------------------------------------------------------------------------

    async def cmd_model(self, args: str) -> None:
        name = args.strip() or None
        if name is None:
            name = await self.host.ask(ModelPicker(self.wb.model_choices(), self.wb.state().model))
        if name:
            self.host.note("info", f"Switching to {name}…")
            await self.wb.set_model(name)

    async def cmd_resume(self, args: str) -> None:
        chosen = args.strip() or None
        if chosen is None:
            sessions = self.wb.list_sessions()
            if not sessions:
                raise WorkbenchError("this project has no other sessions", "/new starts one")
            chosen = await self.host.ask(SessionPicker(sessions, self.wb.state().session_id))
        if chosen:
            await self.wb.resume(chosen)

    # -- skills ---------------------------------------------------------------------------------

    async def cmd_skills(self, args: str) -> None:
        self.host.focus_pane("skills")

    async def cmd_skill_graph_status(self, args: str) -> None:
        self.show(
            "Skill graph status", Text(await _spec("skill-graph-status").answer(self.wb, args))
        )

    async def cmd_eval(self, args: str) -> None:
        """With a skill, run its eval (the sweep view follows its runs), then show its report;
        without, every skill's last eval."""
        spec = _spec("eval")
        arguments = spec.parse_text(args)
        skill = arguments.get("skill")
        if skill:
            about = "forking a branch and a worktree for each run…"
            self.host.note("info", f"Starting the eval of {skill}: {about}")
        report = spec.render(await spec.call(self.wb, arguments))
        self.show(f"Eval of {skill}" if skill else "Evals", Text(report))

    async def cmd_activate(self, args: str) -> None:
        await _spec("activate").answer(self.wb, args)
        self.session.sync_skills()

    async def cmd_deactivate(self, args: str) -> None:
        await _spec("deactivate").answer(self.wb, args)
        self.session.sync_skills()

    # -- the app --------------------------------------------------------------------------------

    async def cmd_help(self, args: str) -> None:
        extra = self.session.commands()
        self.show("Keys and commands", reports.help_report(KEYS, extra, LEGEND))

    async def cmd_quit(self, args: str) -> None:
        await self.host.quit_app()


def _spec(name: str) -> AnyCommand:
    found = slash.command(name)
    if found is None:
        raise WorkbenchError(f"unknown command /{name}", "/help lists them")
    return found


def sentence(text: str) -> str:
    """The registry's text as the app writes a note: a sentence, first letter capital."""
    return text[:1].upper() + text[1:]
