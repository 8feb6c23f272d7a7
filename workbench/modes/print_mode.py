"""`workbench -p PROMPT`: run one prompt and print the final answer.

stdout gets only the answer, so it can be piped; retries, warnings and errors go to stderr. The
exit code is 0 on success, 1 when the run failed, 128+N when signal N aborted it.
"""

from __future__ import annotations

import sys

from workbench.agent.events import AgentEnd, ErrorEvent, Event, MessageEnd, Notice, RetryStart
from workbench.modes.headless import EXIT_ERROR, EXIT_OK, run_prompt
from workbench.runtime import WorkbenchOptions


class _Transcript:
    """Keeps the last assistant text and tells the user on stderr what went wrong."""

    def __init__(self) -> None:
        self.answer = ""
        self.failed = False

    def __call__(self, event: Event) -> None:
        if isinstance(event, MessageEnd) and event.message.role == "assistant":
            self.answer = event.message.text
        elif isinstance(event, ErrorEvent):
            self.failed = True
            print(f"workbench: {event.message}", file=sys.stderr)
            if event.hint:
                print(f"  hint: {event.hint}", file=sys.stderr)
        elif isinstance(event, Notice) and event.level == "warning":
            print(f"workbench: {event.text}", file=sys.stderr)
        elif isinstance(event, RetryStart):
            print(
                f"workbench: {event.error}; retry {event.attempt}/{event.max_retries} "
                f"in {event.delay_ms / 1000:.1f} s",
                file=sys.stderr,
            )
        elif isinstance(event, AgentEnd) and event.stop_reason == "error":
            self.failed = True


async def run(options: WorkbenchOptions, prompt: str) -> int:
    transcript = _Transcript()
    signalled = await run_prompt(options, prompt, lambda workbench: workbench.subscribe(transcript))
    if signalled is not None:
        return signalled
    if transcript.failed:
        return EXIT_ERROR
    if transcript.answer:
        print(transcript.answer)
    return EXIT_OK
