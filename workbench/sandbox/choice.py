"""Which box a run gets: the user's `sandbox` settings or `--sandbox`, narrowed by what an
untrusted project asks for (stricter only), checked against what this machine can do.

Settings: `sandbox` is a mode, or an object with `mode`, `network` (hosts), `network_loopback`,
`allow_read`, `allow_write` (paths, `~` and project-relative allowed), `env` (variable names) and
`fallback` (`off` | `refuse`: what happens when bubblewrap cannot run; `refuse` by default when the
user asked for a mode, `off` with a notice when the mode is only the default).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from workbench.config import (
    PROJECT_DIR_NAME,
    SETTINGS_FILE,
    Settings,
    agent_dir,
    read_json_file,
)
from workbench.errors import WorkbenchError
from workbench.sandbox.detect import INSTALL_HINT, bwrap_problem
from workbench.sandbox.policy import Mode, SandboxPolicy, mode, narrowest

DEFAULT_MODE: Mode = "workspace"


@dataclass(frozen=True)
class SandboxChoice:
    """The policy and what the user should be told about it once, at start."""

    policy: SandboxPolicy
    notices: list[str] = field(default_factory=list)


def _section(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"mode": value}
    return value if isinstance(value, dict) else {}


def _strings(section: dict[str, Any], key: str) -> tuple[str, ...]:
    value = section.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise WorkbenchError(
            f"sandbox.{key} must be a list of strings", "see docs/sandbox.md for the settings"
        )
    return tuple(value)


def project_asks(project_root: Path) -> Mode | None:
    """The mode an untrusted project's own settings ask for (only ever used to narrow)."""
    data = read_json_file(project_root / PROJECT_DIR_NAME / SETTINGS_FILE)
    asked = _section(data.get("sandbox")).get("mode") if isinstance(data, dict) else None
    return None if asked is None else mode(asked, f"{project_root}/.pi/settings.json sandbox")


def choose_sandbox(settings: Settings, flag: str | None = None) -> SandboxChoice:
    """The run's policy (see the module); `flag` is `--sandbox` (or a parent's mode)."""
    section = _section(settings.get("sandbox"))
    configured = section.get("mode")
    chosen = mode(flag, "--sandbox") if flag is not None else None
    if chosen is None and configured is not None:
        chosen = mode(configured, "settings sandbox.mode")
    asked = None if settings.trusted else project_asks(settings.project_root)
    wanted = narrowest(chosen or DEFAULT_MODE, asked)
    notices = []
    if asked is not None and wanted == asked and asked != (chosen or DEFAULT_MODE):
        notices.append(f"sandbox: the project asks for {asked}; commands run in {asked}")
    root = settings.project_root

    def paths(key: str) -> tuple[Path, ...]:
        return tuple((root / Path(p).expanduser()).resolve() for p in _strings(section, key))

    policy = SandboxPolicy(
        mode=wanted,
        network=_strings(section, "network"),
        network_loopback=section.get("network_loopback") is True,
        allow_read=paths("allow_read"),
        allow_write=paths("allow_write"),
        env=_strings(section, "env"),
        hidden_extra=(agent_dir(),),
    )
    problem = bwrap_problem(policy.bwrap) if policy.on else None
    if problem is None:
        if chosen is None and wanted == "workspace" and not policy.network:
            notices += _network_off_once()
        return SandboxChoice(policy, notices)
    fallback = section.get("fallback", "refuse" if chosen or asked else "off")
    if fallback not in ("off", "refuse"):
        raise WorkbenchError(f"sandbox.fallback must be off or refuse, not {fallback!r}")
    if fallback == "off":
        notices.append(
            f"sandbox: {problem}, so commands run WITHOUT a box (sandbox.fallback is off); "
            f"to box them, {INSTALL_HINT.removesuffix(', or choose --sandbox off')}"
        )
        return SandboxChoice(SandboxPolicy(mode="off"), notices)
    notices.append(f"sandbox: {problem}; the bash tool refuses commands ({INSTALL_HINT})")
    return SandboxChoice(replace(policy, unavailable=problem), notices)


NETWORK_TOLD = "sandbox-network-told"
"""A file in the user's agent folder: the default box's missing network was told once."""


def _network_off_once() -> list[str]:
    """The first run in the default `workspace` box says that its commands have no network
    (so `pip install` fails) and how to allow it; later runs say nothing."""
    told = agent_dir() / NETWORK_TOLD
    if told.exists():
        return []
    try:
        told.parent.mkdir(parents=True, exist_ok=True)
        told.touch()
    except OSError:
        return []  # a read-only home: better not said than said at every start
    return [
        "sandbox: the model's commands run in a box (writes only in the project) with no "
        "network, so `pip install` or `npm install` fail; allow hosts with `sandbox.network` in "
        "settings, or choose `--sandbox workspace+net` (docs/sandbox.md). Said once."
    ]
