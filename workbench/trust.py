"""Which project folders the user trusts, and the settings that follow from it.

A project's configuration (its extensions, agents, connection settings, MCP servers, sandbox
settings) is written by whoever made the folder, so it applies only once the user trusts it.
The rule, in one place (`trusted`): a folder's configuration applies when the user recorded
trust for that folder (`workbench trust PATH`, or trusting it in the app; the folder itself,
never its neighbours or subfolders, kept in `~/.pi/agent/trusted-projects.json`), or when this
run was given `--trust` and the folder is the project the user opened. `--trust` never reaches a
session branch's worktree, opened or not: its files are what the branch's commits made of the
project, and a pulled branch's commits are someone else's; such a worktree is trusted only by
recording it, and a pull that brings new files into it withdraws that. A sub-agent inherits the
rule, never more: it gets `--trust` only for a folder the parent's `--trust` covers.
"""

from __future__ import annotations

from pathlib import Path

from workbench.config import Settings, agent_dir, find_project_root, read_json_file

TRUST_FILE = "trusted-projects.json"
SESSION_BRANCHES = "ref: refs/heads/wb/"
"""How a session branch's worktree starts its HEAD file (`sessions.workspace`)."""


class TrustStore:
    """The project folders the user trusts."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or agent_dir() / TRUST_FILE

    def projects(self) -> list[str]:
        data = read_json_file(self.path) or {}
        projects = data.get("projects", []) if isinstance(data, dict) else []
        return [p for p in projects if isinstance(p, str)]

    def is_trusted(self, project_root: Path) -> bool:
        return str(project_root.resolve()) in self.projects()

    def trust(self, project_root: Path) -> None:
        projects = self.projects()
        key = str(project_root.resolve())
        if key not in projects:
            self._write([*projects, key])

    def revoke(self, project_root: Path) -> bool:
        """Forget the trust in `project_root`; False when it was not trusted."""
        projects = self.projects()
        key = str(project_root.resolve())
        if key not in projects:
            return False
        self._write([p for p in projects if p != key])
        return True

    def _write(self, projects: list[str]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        import json  # only when trust changes: lint and graph never load it

        temporary.write_text(json.dumps({"projects": projects}, indent=2) + "\n")
        temporary.replace(self.path)


def granted(trust: bool, cwd: Path) -> Path | None:
    """What a run's `--trust` grants: the folder the user opened (None without `--trust`)."""
    return cwd.resolve() if trust else None


def session_worktree(folder: Path) -> bool:
    """Whether `folder` is the git worktree of a session's branch (on a `wb/...` branch)."""
    try:
        link = (folder / ".git").read_text(encoding="utf-8", errors="replace")
        if not link.startswith("gitdir:"):
            return False
        git_dir = folder / link.partition("\n")[0].removeprefix("gitdir:").strip()
        return (git_dir / "HEAD").read_text(encoding="utf-8").startswith(SESSION_BRANCHES)
    except OSError:  # a folder (a plain repository), or no git at all
        return False


def covered_by_run(folder: Path, run: Path | None) -> bool:
    """Whether the run's `--trust` (`granted`) reaches `folder`: the opened project only, never
    a session branch's worktree."""
    root = folder.resolve()
    return run is not None and root == find_project_root(run) and not session_worktree(root)


def trusted(folder: Path, run: Path | None = None) -> bool:
    """The rule (see the module): whether the configuration of the project at `folder` applies."""
    return covered_by_run(folder, run) or TrustStore().is_trusted(folder)


def how_to_trust(folder: Path) -> str:
    """What the user does to trust `folder`, said where its configuration is refused."""
    command = f"`workbench trust {folder}`"
    if session_worktree(folder.resolve()):
        return (
            f"it is a session branch's worktree, whose files came from that branch's commits "
            f"(a pull's, for a pulled branch), so --trust does not reach it; read them, then "
            f"{command}"
        )
    return f"run with --trust, trust the project in the app, or {command}"


def project_settings(project_root: Path, run: Path | None = None) -> Settings:
    """The project's settings, its suggestions applied when `trusted` says so (`run`: what this
    run's `--trust` grants)."""
    return Settings.load(project_root, trusted=trusted(project_root, run))
