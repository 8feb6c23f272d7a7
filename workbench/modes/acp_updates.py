"""Workbench events and stored messages as ACP `session/update`s: a pure translation.

`Translator` turns the live event stream of one session into updates (reply text as
`agent_message_chunk`, thinking as `agent_thought_chunk`, each tool call as `tool_call` +
`tool_call_update` with its kind, status, file locations and, for edit and write, a diff);
`replay` turns the messages of a branch into the same updates for `session/load`. Skill loads
recorded on a tool result show in that tool call's content; `plan` gives the branch's loaded
skills as the session plan; a sweep's runs are told as a line of agent text each time one
changes state. Nothing here talks to the client or changes the session.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import (
    Cost,
    PlanEntry,
    PlanEntryPriority,
    PlanEntryStatus,
    ToolCallLocation,
    ToolCallStatus,
    ToolKind,
)
from acp.schema import UsageUpdate as ContextUsage

from workbench.agent.events import (
    ErrorEvent,
    MessageEnd,
    MessageUpdate,
    Notice,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    UsageUpdate,
)
from workbench.enforcer.events import SkillLoadEvent
from workbench.enforcer.state import LoadingState, LoadRecord, records_of
from workbench.messages import Message, ToolCall
from workbench.skills.graph import SkillGraph
from workbench.sweeps.events import SweepProgress, SweepStart
from workbench.sweeps.record import Run
from workbench.sweeps.table import run_line
from workbench.tool import ToolResult
from workbench.visible import visible

if TYPE_CHECKING:
    from workbench.runtime.events import WorkbenchEvent

KINDS: dict[str, ToolKind] = {"read": "read", "edit": "edit", "write": "edit", "bash": "execute"}
"""Our tools -> ACP tool kinds; every other tool is `other`."""
SNAPSHOT_LIMIT = 1_000_000
"""Files up to this size are read before a write, so the diff shows what was there."""
LAYER_ORDER = {"compound": 0, "molecule": 1, "atom": 2}
PRIORITY: dict[str, PlanEntryPriority] = {"compound": "high", "molecule": "medium"}
Update = Any


def kind_of(tool_name: str) -> ToolKind:
    return KINDS.get(tool_name, "other")


def _short(text: str, limit: int = 80) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def title_of(tool_name: str, args: dict[str, Any]) -> str:
    """What the editor shows on the tool call's line."""
    path = args.get("path")
    if tool_name in ("read", "edit", "write") and isinstance(path, str):
        return f"{tool_name.capitalize()} {path}"
    if tool_name == "bash" and isinstance(args.get("command"), str):
        return f"Run `{_short(args['command'])}`"
    if tool_name == "subagent":
        return "Sub-agent"
    named = args.get("name")
    return f"{tool_name} {named}" if isinstance(named, str) else tool_name


def absolute(cwd: Path, path: str) -> Path:
    candidate = Path(path).expanduser()
    return candidate if candidate.is_absolute() else cwd / candidate


def locations_of(
    cwd: Path, tool_name: str, args: dict[str, Any], details: dict[str, Any] | None = None
) -> list[ToolCallLocation] | None:
    """The file a read, edit or write touches (with its line when known)."""
    path = args.get("path")
    if tool_name not in ("read", "edit", "write") or not isinstance(path, str) or not path:
        return None
    line = None
    if tool_name == "read" and isinstance(args.get("offset"), int):
        line = args["offset"]
    if details and isinstance(details.get("first_changed_line"), int):
        line = details["first_changed_line"]
    return [ToolCallLocation(path=str(absolute(cwd, path)), line=line)]


def snapshot(cwd: Path, tool_name: str, args: dict[str, Any]) -> str | None:
    """The text an edit or write is about to change (None: no such file, or too big or not
    text): editors draw a diff over the whole file, so it is sent whole, before and after."""
    path = args.get("path")
    if tool_name not in ("edit", "write") or not isinstance(path, str) or not path:
        return None
    return _text_of(absolute(cwd, path))


def _text_of(target: Path) -> str | None:
    try:
        if not target.is_file() or target.stat().st_size > SNAPSHOT_LIMIT:
            return None
        return target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def describe_load(record: LoadRecord) -> str:
    """One line for a skill load: what, which layer, the verdict and why."""
    layer = f"{record.layer} " if record.layer else ""
    verdict = "refused" if record.blocked else record.verdict
    line = f"Skill load: {layer}{record.skill} ({verdict}"
    line += f", via {record.via})" if record.via else ")"
    if record.reason:
        line += f": {record.reason}"
    if record.suggestion:
        line += f" Suggested next: {record.suggestion}"
    return line


def result_content(
    cwd: Path, tool_name: str, args: dict[str, Any], result: ToolResult, before: str | None
) -> list[Any]:
    """The finished call's content: the diff of an edit or write, the text the model saw, and
    one line per skill load the call carried."""
    content: list[Any] = []
    path = args.get("path")
    if not result.is_error and isinstance(path, str) and path:
        target = str(absolute(cwd, path))
        if tool_name == "edit":
            after = _text_of(Path(target)) if before is not None else None
            old, new = args.get("old_text"), args.get("new_text")
            if before is not None and after is not None:
                content.append(tool_diff_content(target, after, before))
            elif isinstance(old, str) and isinstance(new, str):  # replayed: only the snippet
                content.append(tool_diff_content(target, new, old))
        elif tool_name == "write" and isinstance(args.get("content"), str):
            created = result.details.get("created") is True
            if created or before is not None:
                content.append(tool_diff_content(target, args["content"], before))
    if result.text:
        content.append(tool_content(text_block(result.text)))
    loads = records_of(Message(role="tool_result", details=result.details))
    content.extend(tool_content(text_block(describe_load(r))) for r in loads)
    return content


def finish_update(
    cwd: Path,
    call_id: str,
    tool_name: str,
    args: dict[str, Any],
    result: ToolResult,
    before: str | None = None,
    skipped: bool = False,
) -> Update:
    status: ToolCallStatus = "failed" if result.is_error or skipped else "completed"
    loads = [r.to_dict() for r in records_of(Message(role="tool_result", details=result.details))]
    raw: dict[str, Any] = {"text": result.text, "is_error": result.is_error, "skipped": skipped}
    if loads:
        raw["skill_loads"] = loads
    return update_tool_call(
        call_id,
        status=status,
        content=result_content(cwd, tool_name, args, result, before),
        locations=locations_of(cwd, tool_name, args, result.details),
        raw_output=raw,
    )


def start_update(cwd: Path, call_id: str, tool_name: str, args: dict[str, Any]) -> Update:
    return start_tool_call(
        call_id,
        title_of(tool_name, args),
        kind=kind_of(tool_name),
        status="in_progress",
        locations=locations_of(cwd, tool_name, args),
        raw_input=args,
    )


class Translator:
    """The live events of one session's runs as updates; keeps what a tool call needs between
    its start and its end (whether it was announced, the file a write replaces)."""

    def __init__(self) -> None:
        self.started: dict[str, str | None] = {}
        """Announced tool calls -> the text their file had before (writes)."""
        self.max_tokens = False
        """The last reply of the run was cut off at the model's output limit."""
        self.refused = False
        """A `/skill:NAME` the user typed was refused: the prompt was refused."""
        self.runs: dict[str, str] = {}
        """A sweep's runs -> the state last told."""

    def running_tool(self) -> str | None:
        """The newest tool call still running (a permission question belongs to it)."""
        return next(reversed(self.started), None) if self.started else None

    def updates(self, event: WorkbenchEvent, cwd: Path) -> list[Update]:
        if isinstance(event, MessageUpdate):
            if event.delta_type == "text" and event.delta:
                return [update_agent_message_text(event.delta)]
            if event.delta_type == "thinking" and event.delta:
                return [update_agent_thought_text(event.delta)]
            return []
        if isinstance(event, MessageEnd):
            message = event.message
            if message.role == "assistant":
                self.max_tokens = message.stop_reason == "length"
            if message.role in ("notice", "compaction", "branch_summary"):
                return [update_agent_thought_text(message.text)]
            return []
        if isinstance(event, ToolExecutionStart):
            self.started[event.tool_call_id] = snapshot(cwd, event.tool_name, event.args)
            return [start_update(cwd, event.tool_call_id, event.tool_name, event.args)]
        if isinstance(event, ToolExecutionUpdate):
            partial = [tool_content(text_block(event.partial_result))]
            return [update_tool_call(event.tool_call_id, content=partial)]
        if isinstance(event, ToolExecutionEnd):
            announced = event.tool_call_id in self.started
            before = self.started.pop(event.tool_call_id, None)
            found = (
                []
                if announced
                else [start_update(cwd, event.tool_call_id, event.tool_name, event.args)]
            )
            end = finish_update(
                cwd,
                event.tool_call_id,
                event.tool_name,
                event.args,
                event.result,
                before,
                event.skipped,
            )
            return [*found, end]
        if isinstance(event, UsageUpdate):
            cost = (
                None if event.total_cost is None else Cost(amount=event.total_cost, currency="USD")
            )
            used = ContextUsage(
                session_update="usage_update",
                used=event.context_tokens,
                size=event.context_window,
                cost=cost,
            )
            return [used]
        if isinstance(event, Notice):
            return [update_agent_message_text(f"\n{event.text}\n")]
        if isinstance(event, ErrorEvent):
            hint = f" ({event.hint})" if event.hint else ""
            return [update_agent_message_text(f"\nError: {event.message}{hint}\n")]
        if isinstance(event, SkillLoadEvent) and event.how == "command":
            return self._skill_command(event)
        if isinstance(event, SweepStart):
            self.runs = {}
            said = f"{event.sweep['id']}: {len(event.sweep['runs'])} runs, {event.jobs} at once"
            return [update_agent_message_text(said + "\n")]
        if isinstance(event, SweepProgress):
            run = Run.from_json(event.run)
            state = "checking" if event.tool == "check" else run.outcome  # told once checked
            if self.runs.get(run.branch) == state or state == "checking":
                return []
            self.runs[run.branch] = state
            return [update_agent_message_text(run_line(run) + "\n")]
        return []

    def _skill_command(self, event: SkillLoadEvent) -> list[Update]:
        """A `/skill:NAME` the user typed: its load is told as agent text (no tool call)."""
        if event.blocked:
            self.refused = True
            reason = event.reason or "refused"
            return [update_agent_message_text(f"/skill:{event.skill} refused: {reason}\n\n")]
        record = LoadRecord(
            event.skill,
            event.layer,
            event.verdict,
            "command",
            reason=event.reason,
            suggestion=event.suggestion,
        )
        return [update_agent_message_text(describe_load(record) + "\n\n")]


def _calls_by_id(messages: Iterable[Message]) -> dict[str, ToolCall]:
    return {call.id: call for m in messages if m.role == "assistant" for call in m.tool_calls}


def replay(messages: list[Message], cwd: Path) -> list[Update]:
    """The updates that show a branch's conversation again: the user's messages, the replies
    with their thinking, each tool call with its result (`session/load`)."""
    calls = _calls_by_id(messages)
    updates: list[Update] = []
    for message in messages:
        if message.role == "user":
            updates.append(update_user_message_text(message.text))
        elif message.role == "assistant":
            if message.thinking:
                updates.append(update_agent_thought_text(message.thinking))
            if message.text:
                updates.append(update_agent_message_text(message.text))
            if message.ending():  # live, the editor saw the prompt end `cancelled` or fail
                updates.append(update_agent_message_text(f"\n\n{message.ending()}"))
            for call in message.tool_calls:
                update = start_update(cwd, call.id, call.name, call.arguments)
                update.status = "pending"
                updates.append(update)
        elif message.role == "tool_result" and message.tool_call_id:
            called = calls.get(message.tool_call_id)
            name = message.tool_name or (called.name if called else "")
            args = called.arguments if called else {}
            result = ToolResult(message.text, message.is_error, message.details)
            updates.append(finish_update(cwd, message.tool_call_id, name, args, result))
        elif message.text:
            updates.append(update_agent_thought_text(message.text))
    return updates


def plan(state: LoadingState, graph: SkillGraph) -> list[PlanEntry]:
    """The branch's loaded skills, compound -> molecule -> atom: the current delegation chain
    `in_progress`, other loaded skills `completed`, and the skills the deepest skill of the
    chain delegates to that are not loaded yet `pending` (where the agent may go next)."""

    def rank(name: str) -> tuple[int, int, str]:
        layer = state.loaded.get(name) or (skill.layer if (skill := graph.get(name)) else None)
        on_chain = state.chain.index(name) if name in state.chain else len(state.chain)
        return (LAYER_ORDER.get(layer or "", 3), on_chain, name)

    def entry(name: str, status: PlanEntryStatus) -> PlanEntry:
        skill = graph.get(name)
        layer = state.loaded.get(name) or (skill.layer if skill else None)
        label = f"{layer} {name}" if layer else name
        content = visible(label)  # names from the log: a pulled session's may hold escapes
        return PlanEntry(content=content, priority=PRIORITY.get(layer or "", "low"), status=status)

    names = sorted(state.loaded, key=rank)
    entries = [entry(n, "in_progress" if n in state.chain else "completed") for n in names]
    if state.chain and graph.get(state.chain[-1]) is not None:
        nexts = [n for n in graph.children(state.chain[-1]) if n not in state.loaded]
        entries += [entry(n, "pending") for n in sorted(nexts, key=rank)]
    return entries
