"""The git-backed conversation store and workspace branches (git worktrees).

May import `agent` (its store interface, events and models), `enforcer` (load records),
`messages`, `config`, `trust` and `errors`; never `runtime` or a front end.
"""
