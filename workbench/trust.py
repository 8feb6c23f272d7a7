"""Which project folders the user trusts, and the settings that follow from it.

A project's extensions, agents and connection settings are written by whoever made the folder,
so they apply only once the user trusts it: trust is recorded per folder (the folder itself,
never its neighbours or subfolders) in `~/.pi/agent/trusted-projects.json`; headless runs grant
it for one run with `--trust`.
"""

from __future__ import annotations

from pathlib import Path

from workbench.config import Settings, agent_dir, read_json_file

TRUST_FILE = "trusted-projects.json"


class TrustStore:
    """The project folders the user trusts."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or agent_dir() / TRUST_FILE

    def _projects(self) -> list[str]:
        data = read_json_file(self.path) or {}
        projects = data.get("projects", []) if isinstance(data, dict) else []
        return [p for p in projects if isinstance(p, str)]

    def is_trusted(self, project_root: Path) -> bool:
        return str(project_root.resolve()) in self._projects()

    def trust(self, project_root: Path) -> None:
        projects = self._projects()
        key = str(project_root.resolve())
        if key in projects:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        import json  # only when trusting a project: lint and graph never load it

        temporary.write_text(json.dumps({"projects": [*projects, key]}, indent=2) + "\n")
        temporary.replace(self.path)


def project_settings(project_root: Path, trust: bool = False) -> Settings:
    """The project's settings, its suggestions applied when the user trusts it: recorded in the
    trust store, or `trust` (`--trust`) for this run."""
    return Settings.load(project_root, trusted=trust or TrustStore().is_trusted(project_root))
