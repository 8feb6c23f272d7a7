"""The enforcer: one session's skill graph, loading state and mode, and what each load leads to.

A load (a read or bash call on a skill's file, an activation, a `/skill:` command) is assessed:
the allowlist first, then the top-down check. Each verdict is published as a `skill_load` event
and recorded on the message that carried the load. What the model is told depends on the mode:
`warn` lets the load go ahead: a notice that only informs (a repeat, a cycle) rides on that
call's own result, and an ordering violation also stops the rest of the reply as steering does
(the skipped calls say the enforcer stopped them, and why); `block` refuses just the offending
load with the reason and the next load to make; `off` checks nothing (the allowlist still holds).

What a load is checked against (the skill set, kept current, with its checker and the skills
section of the system prompt) is the `SkillView`; the loading state is the `LoadingState`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from workbench.config import Settings
from workbench.enforcer import detect
from workbench.enforcer.activation import missing_tools_note, skill_message
from workbench.enforcer.detect import Load
from workbench.enforcer.events import SkillLoadEvent, SkillsReloadedEvent
from workbench.enforcer.notices import notice_text, refusal_text, stopped_text
from workbench.enforcer.reload import LiveSkills
from workbench.enforcer.settings import mode_of
from workbench.enforcer.skill_view import SKILL_TOOLS, SkillView
from workbench.enforcer.state import (
    DEACTIVATE_KEY,
    LOAD_KEY,
    LoadingState,
    LoadRecord,
    attach_records,
)
from workbench.enforcer.status import format_status
from workbench.enforcer.verdict import Verdict
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
        self.view = SkillView(skills, settings, base)
        self.state = LoadingState()
        self._session_tools = session_tools
        self._pending: dict[str, list[LoadRecord]] = {}
        self._checked_for_run = False

    # --- the skill set -------------------------------------------------------------------------

    def move_to(self, base: Path) -> None:
        """Follow the session to another working folder (see `SkillView.move_to`)."""
        self.view.move_to(base)
        self._reloaded()

    def withheld_tools(self) -> frozenset[str]:
        """The enforcer's tools not worth offering for the current skill set (see
        `SkillView.useful_tools`): with no skills, the model gets the four primitives only."""
        return SKILL_TOOLS - self.view.useful_tools

    def refresh_for_run(self) -> bool:
        """`refresh`, by the runtime just before a run's `before_agent_start`, which then need
        not stat every skill file a second time."""
        self._checked_for_run = True
        return self.refresh()

    def refresh(self) -> bool:
        """Reload the skill set if its files changed; True when it did."""
        if not self.view.refresh():
            return False
        self._reloaded()
        return True

    def _reloaded(self) -> None:
        self.api.emit(SkillsReloadedEvent(len(self.skills.graph), len(self.skills.diagnostics)))

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

    def _denied(self, skill: Skill, refusal: str) -> Verdict:
        similar = self.view.similar(skill.name)
        hint = f" Allowed skills with similar names: {', '.join(similar)}." if similar else ""
        return Verdict(
            skill,
            "denied",
            f"`{skill.name}` is not allowed in this project: {refusal}.",
            f"Do not use `{skill.name}`; choose an allowed skill from the skill graph.{hint}",
        )

    def verdict(self, skill: Skill, state: LoadingState | None = None) -> Verdict:
        """The allowlist, then (unless the mode is off) the top-down check."""
        refusal = self.view.allowlist.refusal(skill.name)
        if refusal is not None:
            return self._denied(skill, refusal)
        if self.mode == "off":
            return Verdict(skill, "ok")
        return self.view.checker.check(skill, state or self.state)

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
        if self.mode == "off" and self.view.allowlist.permits_everything:
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
        self.view.note_tool_result(event)
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
            if record.verdict == "violation":
                details = {"skill_notice": record.to_dict(), "skip_reason": stopped_text(record)}
                self.api.send_message(notice_text(record), "steer", details)
            elif record.verdict != "ok":
                lines.append(notice_text(record))
            self.state.apply(record)
            skill = self.skills.graph.get(record.skill)
            line = self.view.guidance_for(skill, record.via) if skill else ""
            if line:
                lines.append(line)
        if lines:
            event.result.text = event.result.text.rstrip("\n") + "\n\n" + "\n".join(lines)
        attach_records(event.result.details, records)

    # --- activation ----------------------------------------------------------------------------

    def _unknown(self, name: str, how: str) -> Outcome:
        similar = self.view.similar(name)
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
        parts.append(skill_message(skill, self.view.where(skill)))
        line = self.view.guidance_for(skill, record.via)
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
        if not self._checked_for_run:
            self.refresh()
        self._checked_for_run = False
        self.view.offer_tools(self._session_tools())
        section = self.view.prompt_section
        if section and section not in event.system_prompt:
            event.system_prompt = event.system_prompt.rstrip("\n") + "\n\n" + section

    def on_context(self, _event: ContextEvent) -> None:
        """Before a model call: reload the skill set if a tool since the last check may have
        changed it (the prompt of the running turn stays; the next run's prompt follows)."""
        if self.view.maybe_changed:
            self.refresh()

    def status(self) -> str:
        return format_status(self.state, self.mode)
