"""The enforcer's own settings: `enforcer.mode`, `enforcer.prompt_budget_tokens` and how the
skills are offered in the system prompt (`skills.catalog`).

Read when a session opens (and by `workbench skills status`); a value that makes no sense is a
WorkbenchError with the fix, not a silent fallback to the default.
"""

from __future__ import annotations

from workbench.config import Settings
from workbench.enforcer.topology import DEFAULT_BUDGET_TOKENS, MIN_BUDGET_TOKENS
from workbench.errors import WorkbenchError

MODES = ("warn", "block", "off")
CATALOGS = ("graph", "flat")


def mode_of(settings: Settings) -> str:
    """`warn` (the default), `block` or `off`."""
    mode: str = settings.get("enforcer.mode", "warn")
    if mode not in MODES:
        raise WorkbenchError(
            f"settings: enforcer.mode is {mode!r}; it must be one of {', '.join(MODES)}",
            'set "enforcer": {"mode": "warn"} in .pi/settings.json (warn is the default)',
        )
    return mode


def budget_of(settings: Settings) -> int:
    """The tokens the skills section of the system prompt may take."""
    budget = settings.get("enforcer.prompt_budget_tokens", DEFAULT_BUDGET_TOKENS)
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < MIN_BUDGET_TOKENS:
        raise WorkbenchError(
            f"settings: enforcer.prompt_budget_tokens is {budget!r}; it must be a whole number "
            f"of at least {MIN_BUDGET_TOKENS} (the rules and template alone take about 400)",
            f"remove it to use the default ({DEFAULT_BUDGET_TOKENS})",
        )
    return budget


def catalog_of(settings: Settings) -> str:
    """`graph` (the default: the layered topology and its rules) or `flat` (one list of name,
    description and location, as pi and Claude Code offer skills)."""
    catalog: str = settings.get("skills.catalog", "graph")
    if catalog not in CATALOGS:
        raise WorkbenchError(
            f"settings: skills.catalog is {catalog!r}; it must be one of {', '.join(CATALOGS)}",
            'remove it, or set "skills": {"catalog": "graph"} (the default)',
        )
    return catalog
