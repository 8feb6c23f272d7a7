"""Bringing a branch back: a real git merge of its commits, and a merge entry on the parent.

The file merge is computed before anything is touched: `git merge-tree --write-tree` (git 2.38+)
merges the two commits into objects only, so a conflict leaves the parent exactly as it was and
names the files. A clean result becomes a merge commit (`commit-tree` with both parents), which
`git merge --ff-only` then checks out in the parent's worktree: git itself keeps the parent's
uncommitted work, and workbench refuses first when that work touches a file the merge changes.

Because the merge commit is known before the parent moves, an interruption is recoverable: the
intent is saved in the session state, and the next open either records the merge entry (the
parent has the commit) or drops the intent (it does not).

The merge entry records what the experiment cost (`usage`: its new entries' tokens and cost,
sub-agents and experiments merged into it included), so the parent's totals count it once.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.agent.costs import UsageTotals, entry_totals
from workbench.agent.store import Entry
from workbench.errors import UsageError, WorkbenchError
from workbench.sessions.store.entries import entry_json
from workbench.sessions.store.gitcmd import GitRunner
from workbench.sessions.store.identity import require_user_identity
from workbench.sessions.store.state import PendingMerge, Worktree
from workbench.sessions.store.store import GitConversationStore
from workbench.sessions.workspaces.files import uncommitted_paths
from workbench.sessions.workspaces.workspace import Workspaces
from workbench.text import count_of, one_line

SHOWN_FILES = 20
"""Conflicting files named in the message (all of them are in `MergeConflict.files`)."""


class MergeConflict(WorkbenchError):
    """The branch's commits conflict with the parent's; nothing was changed."""

    def __init__(
        self, branch: str, into: str, files: list[str], branch_dir: str, into_commit: str
    ) -> None:
        more = len(files) - SHOWN_FILES
        super().__init__(
            f"merging {branch} into {into} would conflict in {count_of(len(files), 'file')}: "
            + ", ".join(files[:SHOWN_FILES])
            + (f" and {more} more" if more > 0 else "")
            + f"; {into} was left exactly as it was",
            f"resolve it in the branch: cd {branch_dir} && git merge {into_commit[:12]}, fix the "
            "files, commit, then merge again",
        )
        self.files = files


@dataclass
class MergeResult:
    """What a merge did."""

    branch: str
    into: str
    commit: str | None
    files: list[str]
    entry: Entry
    removed_worktree: bool
    notes: list[str] = field(default_factory=list)
    usage: UsageTotals = field(default_factory=UsageTotals)
    """What the merged experiment cost (the entries the parent did not have yet)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "usage": self.usage.to_json(),
            "branch": self.branch,
            "into": self.into,
            "commit": self.commit,
            "files": self.files,
            "entry": entry_json(self.entry),
            "removed_worktree": self.removed_worktree,
            "notes": self.notes,
        }

    def render_text(self, entry: bool = True) -> str:
        """What the merge did; `entry=False` leaves out the merge entry's id (the app's chat
        shows the entry itself just above)."""
        if self.commit:
            what = f"merged {self.branch} into {self.into}: commit {self.commit[:10]}, "
            what += f"{count_of(len(self.files), 'file')} changed"
        else:
            what = f"merged the conversation of {self.branch} into {self.into} (no file commits)"
        lines = [what, *([f"merge entry {self.entry.id[:10]} on {self.into}"] if entry else [])]
        usage = self.usage
        cost = "'s cost is unknown" if usage.cost is None else f" cost {usage.cost_text()}"
        lines.append(f"the experiment{cost} ({usage.tokens_text()})")
        if self.removed_worktree:
            lines.append(f"removed the worktree of {self.branch}")
        lines.extend(f"note: {note}" for note in self.notes)
        return "\n".join(lines)


def default_summary(branch: str, own: list[Entry]) -> str:
    """A short summary when the runtime supplies none: counts and the branch's last reply."""
    checkpoints = sum(1 for e in own if e.type == "checkpoint")
    last = next((e for e in reversed(own) if e.type == "assistant" and e.payload.get("text")), None)
    entries = count_of(len(own), "entry", "entries")
    text = f"{entries} and {count_of(checkpoints, 'checkpoint')} on {branch}"
    return text + (f"; last reply: {one_line(last.payload['text'], 200)}" if last else "")


def _merge_message(
    branch: str, into: str, summary: str, checkpoints: list[dict[str, Any]]
) -> bytes:
    lines = [f"Merge workbench branch {branch} into {into}", "", summary]
    if checkpoints:
        lines += ["", "Checkpoints:"]
        lines += [f"- {c['commit'][:10]} {one_line(c['message'])}" for c in checkpoints]
    return ("\n".join(lines) + "\n").encode()


@dataclass
class FileMerge:
    """The branch's commits merged with the parent's in git's objects only: no file, index or
    branch has moved yet."""

    parent_head: str
    branch_head: str
    tree: str
    changed: list[str]
    """The files the merge changes in the parent."""


@dataclass
class MergePlan:
    """A merge that will happen: every reason to refuse it was checked, nothing was written."""

    branch: str
    into: str
    new: list[Entry]
    """The branch's entries the parent does not have yet (an earlier merge brought the rest)."""
    worktree: Worktree | None
    """The branch's own worktree, whose commits are merged; None: no file merge."""
    files: FileMerge | None
    notes: list[str]

    def checkpoints(self) -> list[dict[str, Any]]:
        return [
            {"entry": e.id, "commit": e.payload.get("commit"), "message": e.payload.get("message")}
            for e in self.new
            if e.type == "checkpoint"
        ]


def _file_merge(
    branch_git: GitRunner, parent_git: GitRunner, names: tuple[str, str]
) -> FileMerge | None:
    """The merge of the branch's commits into the parent's, computed without touching either.

    None when the parent already has every commit of the branch. Raises on conflicts, on
    uncommitted work in the branch, and on parent work the merge would overwrite.
    """
    branch, into = names
    if uncommitted_paths(branch_git):
        raise WorkbenchError(
            f"{branch} has uncommitted changes; only commits are merged",
            f"commit them first (workbench commit --branch {branch} -m MESSAGE) or discard them",
        )
    branch_head = branch_git.run("rev-parse", "HEAD")
    parent_head = parent_git.run("rev-parse", "HEAD")
    if parent_git.try_run("merge-base", "--is-ancestor", branch_head, parent_head).status == 0:
        return None
    require_user_identity(parent_git)
    result = parent_git.try_run(
        "merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", parent_head, branch_head
    )
    fields = [f for f in result.stdout.split("\0") if f]
    if result.status == 1:
        raise MergeConflict(branch, into, fields[1:], str(branch_git.directory), parent_head)
    if result.status != 0:
        raise WorkbenchError(
            f"git merge-tree failed: {result.stderr.strip()}", "workbench needs git 2.38 or newer"
        )
    tree = fields[0]
    changed = [
        p
        for p in parent_git.run("diff-tree", "-r", "--name-only", "-z", parent_head, tree).split(
            "\0"
        )
        if p
    ]
    in_the_way = sorted(set(changed) & set(uncommitted_paths(parent_git)))
    if in_the_way:
        raise WorkbenchError(
            f"{into} has uncommitted changes in files the merge would change: "
            + ", ".join(in_the_way)
            + "; nothing was changed",
            f"commit or stash them in {parent_git.directory}, then merge again",
        )
    return FileMerge(parent_head, branch_head, tree, changed)


def plan_merge(
    store: GitConversationStore, workspaces: Workspaces, branch: str, into: str | None
) -> MergePlan:
    """Check that merging `branch` into `into` (default: its parent) can happen, before anything
    is written and before the model is asked for a summary: a conflict costs no model call."""
    record = store.record(branch)
    into = into or record.parent
    if into is None or into == branch:
        raise UsageError(f"{branch} has no parent branch to merge into", "name one with --into")
    store.record(into)
    new = store.own_entries(branch, not_in=into)
    owner = workspaces.owner(store.state, branch) if workspaces.available else None
    files, notes = None, []
    if owner is not None and owner.name == branch:
        branch_git = workspaces.git(store.state, branch)
        parent_git = workspaces.git(store.state, into)
        _check_parent_checkout(store, parent_git, branch, into)
        files = _file_merge(branch_git, parent_git, (branch, into))
        if files is None:
            notes.append(f"{into} already has every commit of {branch}")
    else:
        where = (
            "the project is not a git repository"
            if not workspaces.available
            else f"{branch} works in the worktree of "
            + (owner.name if owner else "the project checkout")
        )
        notes.append(f"no file merge: {where}")
    if not new and files is None:
        if store.head(branch) == record.fork_entry:
            raise UsageError(f"nothing to merge: {branch} has no entries of its own")
        raise UsageError(
            f"nothing new to merge: {into} already has every entry and commit of {branch}",
            f"merge again after more work on {branch}",
        )
    worktree = owner.worktree if owner is not None and owner.name == branch else None
    return MergePlan(branch, into, new, worktree, files, notes)


def merge_branch(
    store: GitConversationStore,
    workspaces: Workspaces,
    plan: MergePlan,
    summary: str | None,
    remove_worktree: bool,
    summary_usage: dict[str, Any] | None = None,
) -> MergeResult:
    """Carry out a planned merge: files first, then the conversation. Should the branch or the
    parent have new commits since the plan (the summary takes a while), the files are merged
    again from where they are now."""
    branch, into = plan.branch, plan.into
    checkpoints = plan.checkpoints()
    summary = summary or default_summary(branch, plan.new)
    payload: dict[str, Any] = {
        "branch": branch,
        "into": into,
        "merged_head": store.head(branch),
        "commit": None,
        "files": [],
        "checkpoints": checkpoints,
        "summary": summary,
        "entries": len(plan.new),
        "usage": entry_totals(plan.new).to_json(),
    }
    if summary_usage is not None:  # the parent's call that wrote the summary
        payload["summary_usage"] = summary_usage
    notes = list(plan.notes)
    if plan.files is not None:
        branch_git = workspaces.git(store.state, branch)
        parent_git = workspaces.git(store.state, into)
        _check_parent_checkout(store, parent_git, branch, into)
        planned = plan.files
        heads = (parent_git.run("rev-parse", "HEAD"), branch_git.run("rev-parse", "HEAD"))
        files = (
            planned
            if heads == (planned.parent_head, planned.branch_head)
            else _file_merge(branch_git, parent_git, (branch, into))
        )
        if files is None:
            notes.append(f"{into} already has every commit of {branch}")
        else:
            message = _run_merge_hooks(
                parent_git, _merge_message(branch, into, summary, checkpoints)
            )
            commit = parent_git.run(
                "commit-tree",
                files.tree,
                "-p",
                files.parent_head,
                "-p",
                files.branch_head,
                "-F",
                "-",
                input=message,
            )
            payload["commit"], payload["files"] = commit, files.changed
            _move_parent(store, parent_git, PendingMerge(branch, into, commit, "", payload))
    entry = record_merge(store, payload)
    removed = False
    if remove_worktree and plan.worktree is not None:
        try:
            workspaces.remove(plan.worktree)
        except WorkbenchError as exc:  # the merge is done and recorded; only the clean-up failed
            notes.append(f"{exc.message}; {exc.hint}")
        else:
            store.save_state()
            removed = True
    return MergeResult(
        branch,
        into,
        payload["commit"],
        payload["files"],
        entry,
        removed,
        notes,
        UsageTotals.from_json(payload["usage"]),
    )


def _check_parent_checkout(
    store: GitConversationStore, parent_git: GitRunner, branch: str, into: str
) -> None:
    """Refuse when the parent's checkout is no longer on the git branch it was on at the fork:
    the merge would move another branch while saying it merged into `into`."""
    own = store.record(into).worktree
    forked = store.record(branch).worktree
    expected = f"refs/heads/{own.project_branch}" if own else forked.parent_ref if forked else None
    if expected is None:
        return  # forked before workbench recorded it
    current = parent_git.try_run("symbolic-ref", "--quiet", "HEAD").stdout.strip()
    if current != expected:
        now = current.removeprefix("refs/heads/") or "a detached HEAD"
        was = expected.removeprefix("refs/heads/")
        raise WorkbenchError(
            f"the checkout of {into} ({parent_git.directory}) is on {now} now, not on {was}: "
            "merging would move the wrong branch; nothing was changed",
            f"switch it back (git switch {was}) and merge again",
        )


def _run_merge_hooks(parent_git: GitRunner, message: bytes) -> bytes:
    """Run the user's `pre-merge-commit` and `commit-msg` hooks in the parent's checkout, as
    `git merge` would; a hook that refuses stops the merge. The message, as a hook left it."""
    user_git = parent_git.for_user_command()
    refused = user_git.try_run("hook", "run", "--ignore-missing", "pre-merge-commit")
    if refused.status != 0:
        raise _hook_refused("pre-merge-commit", refused.stderr or refused.stdout)
    with tempfile.TemporaryDirectory(prefix="workbench-merge-") as folder:
        file = Path(folder) / "MERGE_MSG"
        file.write_bytes(message)
        refused = user_git.try_run("hook", "run", "--ignore-missing", "commit-msg", "--", str(file))
        if refused.status != 0:
            raise _hook_refused("commit-msg", refused.stderr or refused.stdout)
        return file.read_bytes()


def _hook_refused(hook: str, output: str) -> WorkbenchError:
    said = output.strip().splitlines()
    return WorkbenchError(
        f"the {hook} hook refused the merge commit" + (f": {said[-1]}" if said else ""),
        "nothing was changed; fix what the hook reports, or merge by hand with git",
    )


def _move_parent(store: GitConversationStore, parent_git: GitRunner, pending: PendingMerge) -> None:
    """Fast-forward the parent's worktree to the merge commit, with the intent saved first."""
    pending.worktree = str(parent_git.directory)
    store.state.pending_merge = pending
    store.save_state()
    # the user's branch moves as `git merge` would move it: with the user's hooks
    result = parent_git.for_user_command().try_run("merge", "--ff-only", "--quiet", pending.commit)
    if result.status != 0:
        store.state.pending_merge = None
        store.save_state()
        raise WorkbenchError(
            f"git refused to update {pending.into}: {result.stderr.strip()}",
            "nothing was changed; commit or stash the parent's work and merge again",
        )


def record_merge(store: GitConversationStore, payload: dict[str, Any]) -> Entry:
    """Append the merge entry (two parents) on the parent branch and go there."""
    entry = store.append_to_branch(
        payload["into"], "merge", payload, merged_from=payload["merged_head"]
    )
    store.state.pending_merge = None
    store.move_to_branch(payload["into"])
    return entry


def finish_interrupted_merge(store: GitConversationStore) -> str | None:
    """Settle a merge a killed process left half-done; return a notice saying what happened."""
    pending = store.state.pending_merge
    if pending is None:
        return None
    head = store.head(pending.into)
    last = store.repo.read_entry(head) if head else None
    recorded = (
        last is not None and last.type == "merge" and last.payload.get("commit") == pending.commit
    )
    worktree = Path(pending.worktree)
    landed = recorded
    if not landed and worktree.is_dir():
        check = GitRunner(worktree).try_run("merge-base", "--is-ancestor", pending.commit, "HEAD")
        landed = check.status == 0
    if landed and not recorded:
        record_merge(store, pending.payload)
        return f"finished recording the interrupted merge of {pending.branch} into {pending.into}"
    store.state.pending_merge = None
    store.save_state()
    if recorded:
        return None
    return (
        f"an interrupted merge of {pending.branch} into {pending.into} had not changed any file; "
        "run the merge again"
    )
