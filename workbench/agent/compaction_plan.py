"""Compaction: older history replaced by a goal-first summary, recent messages kept verbatim.

Pure logic; the loop makes the model call. The summary is recorded as a `compaction` message whose
`details` name the first message kept (`first_kept_id`) and the files read and modified so far, so
the context of the next call is: summary, kept messages, everything after the summary. A later
compaction updates the previous summary instead of writing a new one.

Token counts: thresholds use the provider's real usage of the last call when there is one since
the last compaction, plus a chars/4 estimate for messages after it (an over-estimate for English and
code, which errs on the side of compacting early).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from workbench.agent.models.client import ModelRequest
from workbench.messages import Message

CHARS_PER_TOKEN = 4
TOOL_RESULT_CHARS_IN_SUMMARY = 2000
"""Tool output beyond this is elided in the conversation handed to the summariser."""

FILE_TOOLS_READ = {"read"}
FILE_TOOLS_MODIFY = {"write", "edit"}


@dataclass
class CompactionSettings:
    enabled: bool = True
    reserve_tokens: int = 16_384
    keep_recent_tokens: int = 20_000


def estimate_text(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def estimate_tokens(message: Message) -> int:
    chars = len(message.text) + len(message.thinking)
    for call in message.tool_calls:
        chars += len(call.name) + len(json.dumps(call.arguments))
    return -(-chars // CHARS_PER_TOKEN)


def _last_compaction(messages: list[Message]) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "compaction":
            return index
    return -1


def build_context(messages: list[Message]) -> list[Message]:
    """The messages the model sees: the latest summary first, then what it kept, then the rest."""
    cut = _last_compaction(messages)
    if cut < 0:
        return list(messages)
    summary = messages[cut]
    first_kept = summary.details.get("first_kept_id")
    start = next((i for i in range(cut) if messages[i].id == first_kept), cut)
    kept = [m for m in messages[start:cut] if m.role != "compaction"]
    return [summary, *kept, *messages[cut + 1 :]]


def context_tokens(messages: list[Message], overhead: int = 0) -> int:
    """Tokens the next call will send: the last call's reported usage plus estimates for what came
    after it; all estimated (plus `overhead` for system prompt and tools) when no call since the
    last compaction reported usage."""
    cut = _last_compaction(messages)
    for index in range(len(messages) - 1, cut, -1):
        message = messages[index]
        usage = message.usage
        if (
            message.role == "assistant"
            and usage
            and message.stop_reason not in ("aborted", "error")
        ):
            reported = usage.prompt_tokens + usage.output_tokens
            return reported + sum(estimate_tokens(m) for m in messages[index + 1 :])
    return overhead + sum(estimate_tokens(m) for m in build_context(messages))


@dataclass
class CompactionPlan:
    """What to summarise, what to keep, and what the previous summary already said."""

    to_summarize: list[Message]
    first_kept_id: str | None
    previous_summary: str | None
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)


def plan_compaction(messages: list[Message], keep_recent_tokens: int) -> CompactionPlan | None:
    """Keep the newest messages worth about `keep_recent_tokens`, cutting only before a user,
    assistant or notice message (never between a tool call and its result). None when there is
    nothing older to summarise."""
    previous, live = _split(messages)
    total, cut = 0, 0
    for index in range(len(live) - 1, -1, -1):
        total += estimate_tokens(live[index])
        if total >= keep_recent_tokens:
            cut = index
            break
    while cut < len(live) and live[cut].role == "tool_result":
        cut += 1
    if cut == 0:
        return None
    return _plan(previous, live[:cut], live[cut].id if cut < len(live) else None)


def whole_plan(messages: list[Message]) -> CompactionPlan:
    """A plan that summarises all of `messages` and keeps none: for the summary of a branch left
    behind or merged back (a compaction among them is updated, as a later compaction would)."""
    previous, live = _split(messages)
    return _plan(previous, live, None)


def _split(messages: list[Message]) -> tuple[Message | None, list[Message]]:
    """The latest summary (if any) and the messages the context holds after it."""
    context = build_context(messages)
    previous = context[0] if context and context[0].role == "compaction" else None
    return previous, context[1:] if previous else context


def _plan(
    previous: Message | None, to_summarize: list[Message], first_kept_id: str | None
) -> CompactionPlan:
    read, modified = _file_lists(previous, to_summarize)
    return CompactionPlan(
        to_summarize=to_summarize,
        first_kept_id=first_kept_id,
        previous_summary=previous.details.get("summary_body", previous.text) if previous else None,
        read_files=read,
        modified_files=modified,
    )


def _file_lists(previous: Message | None, messages: list[Message]) -> tuple[list[str], list[str]]:
    read = list(previous.details.get("read_files", [])) if previous else []
    modified = list(previous.details.get("modified_files", [])) if previous else []
    for message in messages:
        for call in message.tool_calls:
            path = call.arguments.get("path")
            if not isinstance(path, str):
                continue
            if call.name in FILE_TOOLS_MODIFY and path not in modified:
                modified.append(path)
            elif call.name in FILE_TOOLS_READ and path not in read:
                read.append(path)
    return [p for p in read if p not in modified], modified


SUMMARY_SYSTEM_PROMPT = (
    "You write context checkpoints. Another assistant will continue the work from your summary "
    "alone, so keep every goal, constraint and decision that still matters, and keep exact file "
    "paths, names, commands and error messages. Output only the summary, in the format asked."
)

SUMMARY_FORMAT = """## Goal
{goal}

## Constraints & Preferences
- {constraints}

## Progress
### Done
- [x] {done}

### In Progress
- [ ] {in_progress}

### Blocked
- {blocked}

## Key Decisions
- **{decision}**: {rationale}

## Next Steps
1. {next_steps}

## Critical Context
- {critical}"""

NEW_SUMMARY_INSTRUCTIONS = "\n".join(
    [
        "Summarise the conversation above as a checkpoint, in exactly this format:",
        "",
        SUMMARY_FORMAT.format(
            goal="What the user wants to achieve (several items if the session has several tasks)",
            constraints="Requirements and preferences the user stated, or (none)",
            done="Finished work",
            in_progress="Work under way",
            blocked="What stops progress, or (none)",
            decision="Decision",
            rationale="why it was taken",
            next_steps="What should happen next, in order",
            critical="Data, examples and references needed to continue, or (none)",
        ),
        "",
        "Keep each section short.",
    ]
)

UPDATE_SUMMARY_INSTRUCTIONS = "\n".join(
    [
        "The conversation above is NEW since the summary in <previous-summary>. Update that "
        "summary; do not write a fresh one. Rules:",
        "- Keep every goal of the previous summary; add new goals if the task grew.",
        "- Keep its constraints and key decisions; add new ones.",
        "- Move items that are now finished from In Progress to Done; keep earlier Done items.",
        "- Rewrite Next Steps for the current state; drop blockers that are resolved.",
        "- Keep exact file paths, names and error messages.",
        "",
        "Use exactly this format:",
        "",
        SUMMARY_FORMAT.format(
            goal="Every goal so far",
            constraints="All constraints and preferences so far",
            done="Everything finished, earlier and new",
            in_progress="Work under way now",
            blocked="Current blockers, or (none)",
            decision="Decision",
            rationale="why (earlier and new)",
            next_steps="What should happen next, in order",
            critical="Data, examples and references needed to continue, or (none)",
        ),
    ]
)


def serialize(messages: list[Message]) -> str:
    """The conversation as plain text, so the summariser reads it rather than continues it."""
    parts: list[str] = []
    for message in messages:
        if message.role == "user":
            parts.append(f"[User]: {message.text}")
        elif message.role == "assistant":
            if message.text:
                parts.append(f"[Assistant]: {message.text}")
            for call in message.tool_calls:
                parts.append(f"[Tool call {call.name}]: {json.dumps(call.arguments)}")
        elif message.role == "tool_result":
            text = message.text
            if len(text) > TOOL_RESULT_CHARS_IN_SUMMARY:
                omitted = len(text) - TOOL_RESULT_CHARS_IN_SUMMARY
                text = text[:TOOL_RESULT_CHARS_IN_SUMMARY] + f"\n[... {omitted} characters omitted]"
            parts.append(f"[Tool result {message.tool_name}]: {text}")
        else:
            parts.append(f"[{message.role.replace('_', ' ').title()}]: {message.text}")
    return "\n\n".join(parts)


def summary_request(plan: CompactionPlan, focus: str | None, max_tokens: int) -> ModelRequest:
    prompt = f"<conversation>\n{serialize(plan.to_summarize)}\n</conversation>\n\n"
    if plan.previous_summary:
        prompt += f"<previous-summary>\n{plan.previous_summary}\n</previous-summary>\n\n"
        prompt += UPDATE_SUMMARY_INSTRUCTIONS
    else:
        prompt += NEW_SUMMARY_INSTRUCTIONS
    if focus:
        prompt += f"\n\nPay particular attention to: {focus}"
    return ModelRequest(
        system_prompt=SUMMARY_SYSTEM_PROMPT,
        messages=[Message(role="user", text=prompt)],
        purpose="summary",
        max_tokens=max_tokens,
    )


FILE_LISTS = {"read-files": "Files read", "modified-files": "Files changed"}
FILE_LIST = re.compile(r"<(read-files|modified-files)>\n(.*?)\n?</\1>", re.DOTALL)


def file_lists_as_markdown(summary: str) -> str:
    """A summary's file lists (the tags `summary_message` writes for the model) as Markdown
    lists under a heading, for a person reading an export."""
    return _lists_shown(summary, "**{}:**\n\n", "- `{}`")


def file_lists_as_text(summary: str) -> str:
    """The same as plain text, for the app's chat: a heading, then a file per line."""
    return _lists_shown(summary, "{}:\n", "  {}")


def _lists_shown(summary: str, heading: str, line: str) -> str:
    def listed(match: re.Match[str]) -> str:
        files = [line.format(name) for name in match.group(2).splitlines() if name.strip()]
        return heading.format(FILE_LISTS[match.group(1)]) + "\n".join(files)

    return FILE_LIST.sub(listed, summary)


def summary_message(plan: CompactionPlan, body: str, tokens_before: int) -> Message:
    """The compaction message: the model's summary plus the file lists we track ourselves."""
    text = body.strip()
    if plan.read_files:
        text += "\n\n<read-files>\n" + "\n".join(plan.read_files) + "\n</read-files>"
    if plan.modified_files:
        text += "\n\n<modified-files>\n" + "\n".join(plan.modified_files) + "\n</modified-files>"
    return Message(
        role="compaction",
        text=text,
        details={
            "summary_body": body.strip(),
            "first_kept_id": plan.first_kept_id,
            "tokens_before": tokens_before,
            "read_files": plan.read_files,
            "modified_files": plan.modified_files,
        },
    )
