"""Sweeps: one question run as several variants × repeats, each on its own branch and worktree,
checked by a command and compared (design.md §5b).

`variants` reads `--variant`; `engine` forks the branches and keeps the record (`record`) in the
session; `executor` runs them (`LocalExecutor`: children of this machine, through
`workbench.processes.child`); `runs` is one run; `table` the text of a sweep. Between sessions
(which it uses) and the front ends.
"""
