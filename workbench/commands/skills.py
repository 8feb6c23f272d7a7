"""`workbench skills status`: the enforcer's view of a session's current branch, headless.

The loading state is derived from the branch's messages exactly as the running session derives
it (`LoadingState.derive`), so this works on a session that is open elsewhere (it only reads).
"""

from __future__ import annotations

import argparse

from workbench.agent.store import messages_of
from workbench.commands._session import add_session_option, open_session
from workbench.enforcer.settings import mode_of
from workbench.enforcer.state import LoadingState
from workbench.enforcer.status import format_status


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    status = actions.add_parser(
        "status",
        help="active compound, loaded skills per layer, recent loads and violations",
        description="The skill loading state of a session's current branch (default: the "
        "project's most recent session).",
    )
    add_session_option(status)


def run(args: argparse.Namespace) -> int:
    with open_session(args, readonly=True) as session:
        messages = messages_of(session.store.path())
        header = f"session {session.id}, branch {session.branch}"
        mode = mode_of(session.settings)
    print(header)
    print(format_status(LoadingState.derive(messages), mode))
    return 0
