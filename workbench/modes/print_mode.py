"""`workbench -p PROMPT`: run one prompt and print the final answer.

stdout gets only the answer, so it can be piped; retries, warnings, skill loads the enforcer
objects to, and errors go to stderr. A prompt that no agent run answers (a command such as
`/skill-graph-status`) has its notices as the answer. The exit code is 0 on success, 1 when the
run failed or a `/skill:NAME` was refused, 128+N when signal N aborted it.
"""

from __future__ import annotations

import sys

from workbench.agent.events import (
    AgentEnd,
    AgentStart,
    ErrorEvent,
    MessageEnd,
    Notice,
    RetryEnd,
    RetryStart,
)
from workbench.agent.subagents.report import FINE_VERDICTS
from workbench.enforcer.events import SkillLoadEvent
from workbench.errors import DiskFull
from workbench.modes.headless import EXIT_ERROR, EXIT_OK, refused_skill_command, run_prompt
from workbench.runtime import WorkbenchOptions
from workbench.runtime.events import WorkbenchEvent


def _tell(message: str, hint: str | None = None) -> None:
    print(f"workbench: {message}", file=sys.stderr)
    if hint:
        print(f"  hint: {hint}", file=sys.stderr)


class _Transcript:
    """Keeps the last assistant text (or, without a run, the notices) and tells the user on
    stderr what went wrong."""

    def __init__(self) -> None:
        self.answer = ""
        self.notices: list[str] = []
        self.ran = False
        self.failed = False
        self.keep_answer = False
        """The disk filled: the answer received is printed, as it could not be stored."""

    def __call__(self, event: WorkbenchEvent) -> None:
        match event:
            case AgentStart():
                self.ran = True
            case MessageEnd(message=message) if message.role == "assistant":
                self.answer = message.text
            case ErrorEvent():
                self.failed = True
                self.keep_answer |= event.message.startswith(DiskFull.PREFIX)
                _tell(event.message, event.hint)
            case Notice(level="warning"):
                _tell(event.text)
            case Notice():
                self.notices.append(event.text)
            case SkillLoadEvent():
                self._skill_load(event)
            case RetryStart() | RetryEnd(success=True):
                _tell(event.text())
            case AgentEnd(stop_reason="error"):
                self.failed = True

    def _skill_load(self, event: SkillLoadEvent) -> None:
        self.failed |= refused_skill_command(event)
        if event.blocked:
            _tell(f"skill load refused: {event.reason}", event.suggestion)
        elif event.verdict not in FINE_VERDICTS:
            _tell(f"skill load {event.verdict}: {event.reason}", event.suggestion)

    def output(self) -> str:
        """The answer; the notices when no agent run answered the prompt."""
        return self.answer if self.ran else "\n\n".join(self.notices)


async def run(options: WorkbenchOptions, prompt: str) -> int:
    transcript = _Transcript()
    signalled = await run_prompt(
        options, prompt, lambda workbench, _: workbench.subscribe(transcript)
    )
    if signalled is not None:
        return signalled
    answer = transcript.output()
    if answer and (transcript.keep_answer or not transcript.failed):
        print(answer)
    return EXIT_ERROR if transcript.failed else EXIT_OK
