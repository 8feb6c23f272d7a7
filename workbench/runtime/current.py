"""What the runtime's parts share: the session in use, where its tools run, the settings in force.

`Workbench` hands its commands to parts, each given what it uses (`conversation`, `skill_controls`,
`queue_controls`, `trust_controls`, `share_controls`); what several of them read and change is
this one object, never copied (as `AgentState` is for the agent loop's parts): the tree puts
another session in place on `new_session` and `resume`, a branch change moves the workspace,
trusting the project replaces the settings, and each part sees the change at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from workbench.agent.store import ConversationStore
from workbench.config import Settings
from workbench.messages import Message
from workbench.sessions.session import Session


@dataclass
class Current:
    """The session (None with `--no-session`) and its store, the settings, and the folders."""

    session: Session | None
    store: ConversationStore
    settings: Settings
    workspace: Path
    """The current branch's checkout or worktree."""
    cwd: Path
    """Where the tools run: the folder workbench was started in, inside `workspace`."""
    next_turn: list[Message] = field(default_factory=list)
    """Messages an extension or the enforcer holds for the user's next prompt."""
