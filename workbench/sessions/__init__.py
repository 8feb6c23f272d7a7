"""The git-backed conversation store and workspace branches (git worktrees)."""
