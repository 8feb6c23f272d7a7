"""Keeps the panes in step with the open session: what it shows on opening, after the tree
changes (fork, navigate, merge, a new or resumed session) and after the skill set changes.

Everything here reads the session through the `Workbench` API; it is the one place that maps
that API onto the panes.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import TYPE_CHECKING

from workbench.enforcer.events import SkillsReloadedEvent
from workbench.runtime.commands import ArgumentSource, offered
from workbench.skills.model import Diagnostic, user_invocable
from workbench.skills.projection import first_sentence
from workbench.text import count_of, one_line
from workbench.tui.components.session_picker import ago
from workbench.tui.components.skill_panel import SkillPanel, child_violations
from workbench.tui.components.status_bar import prompt_tokens
from workbench.tui.components.tree_panel import TreePanel
from workbench.tui.host import opened
from workbench.tui.keys import WELCOME
from workbench.tui.slash import Candidate, SkillCommand

if TYPE_CHECKING:
    from workbench.agent.events import TreeUpdate
    from workbench.runtime import Workbench
    from workbench.sessions.store.catalog import SessionInfo
    from workbench.sessions.tree import Tree, TreeBranch
    from workbench.tui.host import Host


class SessionView:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.tree: Tree | None = None
        self.findings: dict[str, list[Diagnostic]] = {}
        self.sessions: list[SessionInfo] = []
        self.after_move: str | None = None
        """Said after the chat shows where a move went (what restoring the files did): set as
        the move returns, before its `tree_update` is shown."""

    @property
    def wb(self) -> Workbench:
        return opened(self.host)

    async def show_all(self) -> None:
        """Everything, as after opening a session; a new one gets a welcome."""
        messages = self.wb.messages()
        self.host.transcript.load(messages)
        self.show_footing()
        await self.show_skills()
        await self.show_tree()
        if not messages:
            await self.welcome()

    async def welcome(self) -> None:
        """The keys that matter and, when the project has earlier sessions, how to go on."""
        self.sessions = await asyncio.to_thread(self.wb.list_sessions)
        earlier = [s for s in self.sessions if s.id != self.wb.state().session_id and s.entries]
        hint = None
        if earlier:
            last = earlier[0]
            about = f" ({one_line(last.first_prompt, 40)!r})" if last.first_prompt else ""
            hint = f"/resume continues an earlier session; the last one{about} is {last.id}"
        self.host.note("info", WELCOME, hint)

    def show_footing(self) -> None:
        state = self.wb.state()
        self.host.status_bar.change(
            model=state.model,
            offline=state.offline,
            tokens_in=prompt_tokens(state.to_dict()),
            tokens_out=state.output_tokens,
            cost=state.total_cost,
            hit_last=state.last_turn_hit_rate,
            hit_session=state.session_hit_rate,
            context_tokens=state.context_tokens,
            context_window=state.context_window,
            branch=state.branch,
            mode=self.wb.enforcer_mode,
            approval=state.approval,
            sandbox=state.sandbox,
            busy=state.busy,
            mcp_failed=[s["name"] for s in state.mcp["servers"] if s["state"] == "failed"],
        )

    def show_context(self) -> None:
        """The context meter, after each turn: models that report no usage move it too."""
        state = self.wb.state()
        self.host.status_bar.change(
            context_tokens=state.context_tokens, context_window=state.context_window
        )

    async def show_skills(self) -> None:
        from workbench.skills.lint import lint

        skill_set = self.wb.skill_set
        findings = await asyncio.to_thread(lint, skill_set)
        self.findings = {}
        for finding in findings:
            self.findings.setdefault(finding.skill or "", []).append(finding)
        counts = Counter({name: len(found) for name, found in self.findings.items()})
        self.host.query_one(SkillPanel).show_graph(skill_set.graph, counts)
        self.sync_skills()

    def sync_skills(self) -> None:
        if self.host.workbench is None:
            return
        state = self.wb.loading_state()
        violations = Counter(r.skill for r in state.history if r.verdict != "ok")
        for message in self.wb.messages():
            if message.role == "tool_result" and message.tool_name == "subagent":
                violations.update(child_violations(message.details))
        panel = self.host.query_one(SkillPanel)
        panel.sync(state.loaded, state.active_compound, violations, state.partially_loaded())

    async def show_tree(self) -> None:
        panel = self.host.query_one(TreePanel)
        if self.wb.current.session is None:
            panel.show_unstored()
            return
        self.tree = await self.wb.tree()
        panel.show_tree(self.tree)

    async def changed(self, event: TreeUpdate | SkillsReloadedEvent) -> None:
        if isinstance(event, SkillsReloadedEvent):
            await self.show_skills()
            return
        await self.show_tree()
        another_session = event.reason in ("new", "resume")
        self.show_path(reload=another_session)
        if another_session:
            self.sessions = []
        said = self._told(event.reason, event.branch)
        if said:
            self.host.note("info", said)
        if self.after_move:
            self.host.note("info", self.after_move)
            self.after_move = None
        self.show_footing()

    def show_path(self, reload: bool = False) -> None:
        """The chat shows the current path (reloaded when it showed another, or with `reload`):
        what is said after this stays, as a reload would take it away."""
        messages = self.wb.messages()
        if reload or not self.host.transcript.shows(messages):
            self.host.transcript.load(messages)
            self.sync_skills()

    def _told(self, reason: str, branch: str) -> str | None:
        """What the chat says after a change of session, branch or position."""
        session = self.wb.current.store.session_id
        if reason == "navigate" and self.tree is not None:
            return self.where_now(self.tree)
        if reason == "new":
            return f"New session {session}: nothing of the one before comes with it."
        if reason == "resume":
            return f"Resumed session {session}, on branch {branch}."
        return f"On branch {branch} now." if reason == "switch" else None

    def position(self) -> str | None:
        """The entry the conversation is at, as the tree last showed it."""
        return self.tree.current_entry if self.tree is not None else None

    def where_now(self, tree: Tree) -> str:
        """Where a move in the tree left the conversation, and what it hides behind it."""
        questions = [m for m in self.wb.messages() if m.role == "user"]
        here = one_line(questions[-1].text, 40) if questions else "the start"
        on_branch = [e for e in tree.entries if e.branch == tree.current_branch]
        ids = [e.id for e in on_branch]
        later = on_branch[ids.index(tree.current_entry) + 1 :] if tree.current_entry in ids else []
        if not later:
            return f"At {here!r}, the latest turn of branch {tree.current_branch}."
        turns = sum(e.type == "user" for e in later) or len(later)
        noun = "later turn" if any(e.type == "user" for e in later) else "later entry"
        return (
            f"Back at {here!r}: {count_of(turns, noun)} {'stays' if turns == 1 else 'stay'} on "
            f"branch {tree.current_branch} "
            "(F3 to return); a message from here starts a new branch."
        )

    def branch(self, name: str) -> TreeBranch | None:
        """The tree's record of branch `name` (worktree, parent_branch...), or None."""
        branches = self.tree.branches if self.tree is not None else []
        return next((b for b in branches if b.name == name), None)

    def worktree_of(self, branch: str) -> str | None:
        found = self.branch(branch)
        return found.worktree if found is not None else None

    def commands(self) -> dict[str, str]:
        """The session's own slash commands (extensions'), name -> help."""
        if self.host.workbench is None:
            return {}
        return {spec.name: spec.help for spec in offered(self.wb, "app") if spec.extension}

    def skill_commands(self) -> list[SkillCommand]:
        """`/skill:NAME` for each skill the user may invoke (not `user-invocable: false`)."""
        graph = self.host.query_one(SkillPanel).graph
        return [
            SkillCommand(
                name,
                first_sentence(skill.description),
                str(skill.frontmatter.get("argument-hint") or ""),
            )
            for name, skill in sorted(graph.skills.items())
            if user_invocable(skill)
        ]

    def candidates(self, source: ArgumentSource) -> list[Candidate]:
        """Values for a command's argument, for completion, each with what it is."""
        if self.host.workbench is None:
            return []
        if source == "skills":
            graph = self.host.query_one(SkillPanel).graph
            return [
                (name, first_sentence(skill.description) or "(no description)")
                for name, skill in sorted(graph.skills.items())
            ]
        if source == "branches":
            if self.tree is None:
                return []
            return [
                (b.name, f"fork of {b.parent_branch}" if b.parent_branch else "first branch")
                for b in self.tree.branches
            ]
        if not self.sessions:
            self.sessions = self.wb.list_sessions()
        now = time.time()
        return [
            (
                info.id,
                f"{one_line(info.name or info.first_prompt or '(no question yet)', 50)} · "
                f"{ago(now - info.last_activity)}",
            )
            for info in self.sessions
        ]

    def open_skill(self, name: str) -> None:
        from workbench.evals.saved import has_eval, last_eval_text
        from workbench.tui.components.skill_detail import SkillDetail  # Markdown: off the start

        graph = self.host.query_one(SkillPanel).graph
        root = self.wb.project_root
        last = last_eval_text(root, name, short=True) if has_eval(root, name) else ""
        self.host.push_screen(SkillDetail(graph, name, self.findings.get(name, []), last))

    async def offer_trust(self) -> None:
        """A project's extensions run code and its settings may route data: they apply only
        once the user trusts the project."""
        if not self.wb.needs_trust:
            return
        show = self.host.show_path
        asks = [f"  extension {show(str(path))}" for path, _ in self.wb.extensions.skipped]
        asks += [f"  setting {key}" for key in self.wb.current.settings.withheld]
        trusted = await self.host.confirm(
            "Trust this project?",
            "This project asks for what only a project you trust may have: extensions run code "
            "with your permissions, settings may send your key and conversation elsewhere or "
            "cost money:\n" + "\n".join(asks) + "\n\nTrust it only if you know who made it; "
            "the trust is remembered for this folder.",
            yes="Trust",
            no="Not now",
        )
        if not trusted:
            self.host.note(
                "warning",
                "The project's extensions and settings were not applied.",
                "reopen to be asked again",
            )
            return
        report = await self.wb.trust_project()
        self.host.note(
            "info", f"Trusted the project: {count_of(len(report.loaded), 'extension')} loaded."
        )
