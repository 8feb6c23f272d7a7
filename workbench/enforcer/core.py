"""The enforcer: one session's skill graph, loading state and mode, and what each load leads to.

A load (a read or bash call on a skill's file, an activation, a `/skill:` command) is assessed:
the allowlist first, then the top-down check. Each verdict is published as a `skill_load` event
and recorded on the message that carried the load. What the model is told depends on the mode:
`warn` lets the load go ahead and sends the notice as a steering message, `block` refuses a
violation with the reason and the suggestion, `off` checks nothing (the allowlist still holds).

The skill set is checked for changes on disk before each run, and also before the next model call
after a tool that may have written a SKILL.md (a `write` or `edit` of one, `bash`, any tool not
known to leave files alone): a skill the model writes in one turn is checked when it reads it in
the next. The check is a stat of the watched files; calls that change nothing skip it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from workbench.config import Settings
from workbench.enforcer import detect
from workbench.enforcer.activation import missing_tools_note, skill_message
from workbench.enforcer.allowlist import Allowlist, close_matches
from workbench.enforcer.detect import Load
from workbench.enforcer.events import SkillLoadEvent, SkillsReloadedEvent
from workbench.enforcer.guidance import guidance
from workbench.enforcer.locations import location
from workbench.enforcer.notices import notice_text, refusal_text
from workbench.enforcer.reload import LiveSkills
from workbench.enforcer.settings import budget_of, mode_of
from workbench.enforcer.state import (
    DEACTIVATE_KEY,
    LOAD_KEY,
    LoadingState,
    LoadRecord,
    attach_records,
)
from workbench.enforcer.status import format_status
from workbench.enforcer.topology import Hints, render
from workbench.enforcer.verdict import Checker, Verdict
from workbench.extension_api import DeliverAs, ExtensionAPI
from workbench.hooks import (
    BeforeAgentStartEvent,
    ContextEvent,
    SessionStartEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from workbench.skills.model import Skill
from workbench.tool import ToolResult

LEAVE_FILES_ALONE = frozenset({"read", "skill_activate", "skill_deactivate", "prime_query"})
"""Tools that never change a file: after them the skill set needs no check."""


def _may_change_skills(event: ToolResultEvent) -> bool:
    """Whether a finished tool call may have changed a SKILL.md: a `write` or `edit` of a file
    named so (through symlinks), and any tool that is not known to leave files alone."""
    if event.tool_name in ("write", "edit"):
        path = event.args.get("path")
        if not isinstance(path, str):
            return True
        real = os.path.realpath(event.cwd / Path(path).expanduser())
        return Path(real).name.lower() == "skill.md"
    return event.tool_name not in LEAVE_FILES_ALONE


@dataclass
class Outcome:
    """The result of an activation: the text for the model, and the record (None when the name
    was unknown)."""

    text: str
    is_error: bool
    record: LoadRecord | None


class Enforcer:
    """The skill graph enforcer of one session."""

    def __init__(
        self,
        api: ExtensionAPI,
        skills: LiveSkills,
        settings: Settings,
        session_tools: Callable[[], Iterable[str]],
        base: Path | None = None,
    ) -> None:
        self.api = api
        self.skills = skills
        self.mode = mode_of(settings)
        self.budget = budget_of(settings)
        self.allowlist = Allowlist.from_settings(settings)
        self.base = base
        self.state = LoadingState()
        self._session_tools = session_tools
        self._pending: dict[str, list[LoadRecord]] = {}
        self._maybe_changed = False
        self._hints = Hints()  # every tool, until a run says which the model has
        self._rebuild()

    # --- the skill set -------------------------------------------------------------------------

    def _rebuild(self) -> None:
        self.checker = Checker(self.skills.graph, self.where, self.allowlist.allows)
        self.prompt_section = render(
            self.skills.graph, self.where, self.allowlist, self.budget, self._hints
        )

    def where(self, skill: Skill) -> str:
        return location(skill, self.base)

    def _guidance(self, skill: Skill, via: str | None) -> str:
        return guidance(self.skills.graph, skill, via, self.where, self.allowlist.allows)

    def move_to(self, base: Path) -> None:
        """Follow the session to another working folder (a fork's worktree): skill files are
        named relative to it, and the skill set is discovered again, since the session's loader
        now reads that folder (its copies of the skills have other absolute paths)."""
        self.base = base
        self.skills.reload()
        self._rebuild()
        self.api.emit(SkillsReloadedEvent(len(self.skills.graph), len(self.skills.diagnostics)))

    def refresh(self) -> bool:
        """Reload the skill set if its files changed; True when it did."""
        self._maybe_changed = False
        if not self.skills.changed():
            return False
        self._rebuild()
        self.api.emit(SkillsReloadedEvent(len(self.skills.graph), len(self.skills.diagnostics)))
        return True

    # --- assessing loads -----------------------------------------------------------------------

    def _record(
        self, verdict: Verdict, how: str, blocked: bool = False, partial: bool = False
    ) -> LoadRecord:
        skill = verdict.skill
        return LoadRecord(
            skill=skill.name,
            layer=skill.layer,
            verdict=verdict.kind,
            how=how,
            time=time.time(),
            standalone=skill.standalone,
            reason=verdict.reason,
            suggestion=verdict.suggestion,
            via=verdict.via,
            blocked=blocked,
            partial=partial,
        )

    def _similar(self, name: str) -> list[str]:
        """Allowed skills whose names are like `name`, for a refused or unknown one."""
        allowed = [n for n in self.skills.graph.skills if self.allowlist.allows(n)]
        return close_matches(name, allowed)

    def _denied(self, skill: Skill, refusal: str) -> Verdict:
        similar = self._similar(skill.name)
        hint = f" Allowed skills with similar names: {', '.join(similar)}." if similar else ""
        return Verdict(
            skill,
            "denied",
            f"`{skill.name}` is not allowed in this project: {refusal}.",
            f"Do not use `{skill.name}`; choose an allowed skill from the skill graph.{hint}",
        )

    def verdict(self, skill: Skill, state: LoadingState | None = None) -> Verdict:
        """The allowlist, then (unless the mode is off) the top-down check."""
        refusal = self.allowlist.refusal(skill.name)
        if refusal is not None:
            return self._denied(skill, refusal)
        if self.mode == "off":
            return Verdict(skill, "ok")
        return self.checker.check(skill, state or self.state)

    def _refuses(self, verdict_kind: str) -> bool:
        return verdict_kind == "denied" or (self.mode == "block" and verdict_kind == "violation")

    def _publish(self, record: LoadRecord) -> None:
        if self.mode == "off" and record.verdict != "denied":
            return
        self.api.emit(
            SkillLoadEvent(
                skill=record.skill,
                layer=record.layer,
                standalone=record.standalone,
                verdict=record.verdict,
                reason=record.reason,
                suggestion=record.suggestion,
                how=record.how,
                blocked=record.blocked,
                partial=record.partial,
            )
        )

    def assess(self, loads: list[Load], how: str) -> list[LoadRecord]:
        """Records for `loads` made together (each one sees the ones before it as loaded); when
        one is refused, the whole call is refused."""
        state = self.state if len(loads) == 1 else self.state.copy()
        verdicts = []
        for load in loads:
            verdict = self.verdict(load.skill, state)
            verdicts.append(verdict)
            if len(loads) > 1:
                state.apply(self._record(verdict, how, partial=load.partial))
        refused = any(self._refuses(v.kind) for v in verdicts)
        return [
            self._record(v, how, blocked=refused, partial=load.partial)
            for v, load in zip(verdicts, loads, strict=True)
        ]

    # --- read and bash -------------------------------------------------------------------------

    def _is_continuation(self, event: ToolCallEvent, loads: list[Load]) -> bool:
        """A paged read (`offset` past the first line) of a skill that is already loaded."""
        offset = event.args.get("offset")
        return (
            event.tool_name == "read"
            and isinstance(offset, int)
            and offset > 1
            and loads[0].skill.name in self.state.loaded
        )

    def on_tool_call(self, event: ToolCallEvent) -> None:
        if event.tool_name not in ("read", "bash"):
            return
        if self.mode == "off" and self.allowlist.permits_everything:
            return
        loads = detect.loads(self.skills.graph, event.tool_name, event.args, event.cwd)
        if not loads or self._is_continuation(event, loads):
            return
        records = self.assess(loads, event.tool_name)
        if self.mode == "off":
            records = [r for r in records if r.verdict == "denied"]
            if not records:
                return
        if records[0].blocked:
            culprit = next(r for r in records if self._refuses(r.verdict))
            event.block = refusal_text(culprit)
            attach_records(event.details, records)
            for record in records:
                self._publish(record)
                self.state.apply(record)
            return
        self._pending[event.tool_call_id] = records  # published once the file was really read

    def on_tool_result(self, event: ToolResultEvent) -> None:
        if _may_change_skills(event):
            self._maybe_changed = True
        records = self._pending.pop(event.tool_call_id, None)
        if records is None:
            return
        if event.result.is_error:
            return  # the file was not read: nothing was loaded, nobody is told of it
        if event.tool_name == "read":  # the result says how much of the file it showed
            records[0].partial = detect.read_is_partial(event.args, event.result.details)
        lines = []
        for record in records:
            self._publish(record)
            if record.verdict != "ok":
                self.api.send_message(
                    notice_text(record), "steer", {"skill_notice": record.to_dict()}
                )
            self.state.apply(record)
            skill = self.skills.graph.get(record.skill)
            line = self._guidance(skill, record.via) if skill else ""
            if line:
                lines.append(line)
        if lines:
            event.result.text = event.result.text.rstrip("\n") + "\n\n" + "\n".join(lines)
        attach_records(event.result.details, records)

    # --- activation ----------------------------------------------------------------------------

    def _unknown(self, name: str, how: str) -> Outcome:
        similar = self._similar(name)
        reason = f"There is no skill named `{name}`."
        suggestion = (
            f"Did you mean: {', '.join(similar)}?"
            if similar
            else "The skill graph in your instructions lists the skills you may use."
        )
        self.api.emit(
            SkillLoadEvent(
                skill=name,
                layer=None,
                standalone=False,
                verdict="unknown",
                reason=reason,
                suggestion=suggestion,
                how=how,
                blocked=True,
            )
        )
        return Outcome(f"{reason} {suggestion}", True, None)

    def activate(self, name: str, how: str = "activate") -> Outcome:
        """Activate a skill by name: the same check as a read, then its body as message text."""
        skill = self.skills.graph.get(name.strip())
        if skill is None:
            return self._unknown(name.strip(), how)
        [record] = self.assess([Load(skill)], how)
        self.state.apply(record)
        self._publish(record)
        if record.blocked:
            return Outcome(refusal_text(record), True, record)
        parts = [notice_text(record)] if record.verdict != "ok" else []
        parts.append(skill_message(skill, self.where(skill)))
        line = self._guidance(skill, record.via)
        if line and self.mode != "off":
            parts.append(line)
        note = missing_tools_note(skill, [*self._session_tools(), *self.api.tools])
        if note:
            parts.append(note)
        return Outcome("\n\n".join(parts), False, record)

    def activate_for_user(self, name: str, deliver_as: DeliverAs = "next_turn") -> Outcome:
        """Activation the user asked for (not the model): the body goes to the model as a
        message, which also carries the record."""
        outcome = self.activate(name, how="command")
        if not outcome.is_error and outcome.record is not None:
            self.api.send_message(outcome.text, deliver_as, {LOAD_KEY: outcome.record.to_dict()})
        return outcome

    def deactivate(self, name: str) -> ToolResult:
        """Withdraw a loaded skill; its text stays in the log (the prompt cache is kept)."""
        name = name.strip()
        if name not in self.state.loaded:
            loaded = ", ".join(sorted(self.state.loaded)) or "none"
            return ToolResult(f"`{name}` is not active. Active skills: {loaded}.", is_error=True)
        self.state.deactivate(name)
        return ToolResult(
            f"Deactivated `{name}`: stop following its instructions from here on.",
            details={DEACTIVATE_KEY: {"skill": name, "time": time.time()}},
        )

    def deactivate_for_user(self, name: str, deliver_as: DeliverAs = "next_turn") -> ToolResult:
        """Deactivation the user asked for: the model is told, and the message carries it."""
        result = self.deactivate(name)
        if not result.is_error:
            self.api.send_message(result.text, deliver_as, result.details)
        return result

    # --- session -------------------------------------------------------------------------------

    def on_session_start(self, event: SessionStartEvent) -> None:
        self.state = LoadingState.derive(event.messages)
        self._pending.clear()

    def on_before_agent_start(self, event: BeforeAgentStartEvent) -> None:
        self.refresh()
        hints = Hints.for_tools(self._session_tools())
        if hints != self._hints:  # the first run, or tools came (trust) or went
            self._hints = hints
            self._rebuild()
        if self.prompt_section and self.prompt_section not in event.system_prompt:
            event.system_prompt = event.system_prompt.rstrip("\n") + "\n\n" + self.prompt_section

    def on_context(self, _event: ContextEvent) -> None:
        """Before a model call: reload the skill set if a tool since the last check may have
        changed it (the prompt of the running turn stays; the next run's prompt follows)."""
        if self._maybe_changed:
            self.refresh()

    def status(self) -> str:
        return format_status(self.state, self.mode)
