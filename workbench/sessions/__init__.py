"""The git-backed conversation store and workspace branches (git worktrees).

- `session`: an open session, the one object the runtime holds (`Session`): its store, its
  workspaces and every tree command; `tree` (the whole tree as data) and `navigation` (moving
  the position) beside it.
- `store/`: the conversation as git objects and refs, the lock, where sessions live, the catalog.
- `workspaces/`: each branch's files: worktrees, fork, status, diff, commit, merge.
- `share/`: push, pull and the remote's layout, the secret scan and redaction.
- `export/`: a branch as one HTML or Markdown document.

May import `agent` (its store interface, events and models), `enforcer` (load records),
`messages`, `config`, `trust`, `text` and `errors`; never `runtime` or a front end.
"""
