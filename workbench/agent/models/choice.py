"""Which model a session talks to, and how that model is opened.

The name comes from, in order: `--model`, `$WORKBENCH_MODEL`, the `model` setting, a default for
the first provider key found in the environment, and otherwise the offline `demo` model. Names
starting with `scripted:` play a script; every other name is a litellm model string (imported only
then). Settings may override a model's window and price and give its server:

    "models": {"openai/local": {"context_window": 32768, "api_base": "http://127.0.0.1:8000/v1",
               "api_key": "none", "cost": {"input": 0.5, "output": 1.5, "cache_read": 0.05,
               "cache_write": 0.625}}}

Prices in settings are USD per million tokens. Prompt caching (`workbench.agent.models.caching`)
is on unless the `cache` setting is false or `--no-cache` is given; `cache_retention: "long"`
asks for the provider's longer cache (and prices writes at its rate).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench.config import Settings, find_project_root
from workbench.errors import WorkbenchError

if TYPE_CHECKING:  # kept off the import path: a warm-started run only needs the name
    from workbench.agent.models.caching import CachePolicy
    from workbench.agent.models.client import ModelClient, ModelInfo
    from workbench.skills.graph import SkillGraph

DEMO = "demo"
DEMO_PACE = 1.0
"""Seconds over which the offline demo streams each reply: steering and Esc can be tried."""
SCRIPTED = "scripted:"
KEY_DEFAULTS: tuple[tuple[str, str], ...] = (
    ("ANTHROPIC_API_KEY", "anthropic/claude-sonnet-4-5"),
    ("OPENAI_API_KEY", "gpt-4.1"),
    ("GEMINI_API_KEY", "gemini/gemini-2.5-pro"),
    ("OPENROUTER_API_KEY", "openrouter/anthropic/claude-sonnet-4.5"),
    ("DEEPSEEK_API_KEY", "deepseek/deepseek-chat"),
    ("XAI_API_KEY", "xai/grok-4"),
    ("MISTRAL_API_KEY", "mistral/mistral-large-latest"),
    ("GROQ_API_KEY", "groq/llama-3.3-70b-versatile"),
)
PER_MILLION = 1_000_000


def model_name(cli_model: str | None, settings: Settings, env: Mapping[str, str]) -> str:
    """The model string this session uses (see the module docstring for the order)."""
    for candidate in (cli_model, env.get("WORKBENCH_MODEL"), settings.get("model")):
        if isinstance(candidate, str) and candidate.strip():
            return candidate.strip()
    for key, default in KEY_DEFAULTS:
        if env.get(key):
            return default
    return DEMO


def uses_litellm(name: str) -> bool:
    return name != DEMO and not name.startswith(SCRIPTED)


def needs_litellm(cli_model: str | None = None, trust: bool = False) -> bool:
    """Whether the project in the working folder runs a litellm model (`cli_model`: the
    `--model` given). A settings file that cannot be read says no: the command reports it."""
    from workbench.trust import granted, project_settings

    cwd = Path.cwd()
    try:
        settings = project_settings(find_project_root(cwd), granted(trust, cwd))
    except WorkbenchError:
        return False
    return uses_litellm(model_name(cli_model, settings, os.environ))


def warm_soon(cli_model: str | None = None, trust: bool = False) -> None:
    """Start the warm interpreter in the background when the project in the working folder
    uses a litellm model: for commands after which a run comes soon (`fork`, `status`)."""
    if needs_litellm(cli_model, trust):
        from workbench.processes import forkserver  # not imported for a model that needs none

        forkserver.start_soon(forkserver.WARM_UP, os.environ)


def model_settings(settings: Settings, name: str) -> dict[str, Any]:
    """`models.<name>` from settings (read directly: model names contain dots)."""
    models = settings.get("models", {})
    entry = models.get(name, {}) if isinstance(models, dict) else {}
    if not isinstance(entry, dict):
        raise WorkbenchError(
            f"setting models.{name} must be an object", "see docs/agent-and-models.md"
        )
    return entry


def demo_pace(entry: dict[str, Any]) -> float:
    """Seconds over which the demo streams a reply: `models.demo.pace` (default 1), or
    `WORKBENCH_DEMO_PACE` (the tests set 0)."""
    raw = os.environ.get("WORKBENCH_DEMO_PACE", entry.get("pace", DEMO_PACE))
    try:
        return max(0.0, min(float(raw), 10.0))
    except (TypeError, ValueError):
        raise WorkbenchError(
            f"models.demo.pace must be a number of seconds, not {raw!r}", "for example: 0.5"
        ) from None


def apply_overrides(info: ModelInfo, entry: dict[str, Any]) -> ModelInfo:
    """The settings' context window and prices (USD per million tokens) over litellm's."""
    try:
        if "context_window" in entry:
            info = replace(info, context_window=int(entry["context_window"]))
        cost = entry.get("cost") or {}
        prices: dict[str, Any] = {
            field: float(cost[key]) / PER_MILLION
            for key, field in (
                ("input", "input_cost"),
                ("output", "output_cost"),
                ("cache_read", "cache_read_cost"),
                ("cache_write", "cache_write_cost"),
            )
            if key in cost
        }
    except (TypeError, ValueError) as exc:
        raise WorkbenchError(
            f"setting models.{info.name} has a value that is not a number: {exc}",
            "context_window is a whole number; cost.input/output/cache_read/cache_write are USD "
            "per million",
        ) from exc
    return replace(info, **prices)


def cache_policy(settings: Settings, no_cache: bool = False) -> CachePolicy:
    """The `cache` and `cache_retention` settings, and `--no-cache` over them."""
    from workbench.agent.models.caching import RETENTIONS, CachePolicy

    enabled = settings.get("cache", True)
    retention = settings.get("cache_retention", "short")
    if not isinstance(enabled, bool):
        raise WorkbenchError(
            "setting cache must be true or false", "see docs/agent-and-models.md, Costs and caching"
        )
    if retention not in RETENTIONS:
        raise WorkbenchError(
            f"setting cache_retention must be one of {', '.join(RETENTIONS)}, not {retention!r}",
            "see docs/agent-and-models.md, Costs and caching",
        )
    return CachePolicy(enabled=enabled and not no_cache, retention=retention)


def open_model(
    name: str,
    settings: Settings,
    cwd: Path,
    skills: Callable[[], SkillGraph],
    api_base: str | None = None,
    api_key: str | None = None,
    folder: Callable[[], Path] | None = None,
    cache: CachePolicy | None = None,
) -> ModelClient:
    """A ready model client for `name`. Scripts are named relative to `cwd`; the demo model asks
    `skills` for the current graph and `folder` (default: `cwd`) where the tools run now."""
    entry = model_settings(settings, name)
    if name == DEMO:
        from workbench.agent.models.demo import DemoModel

        return DemoModel(skills, folder or (lambda: cwd), demo_pace(entry))
    if name.startswith(SCRIPTED):
        from workbench.agent.models.scripted import ScriptedModel

        path = Path(name.removeprefix(SCRIPTED)).expanduser()
        model = ScriptedModel(path if path.is_absolute() else cwd / path, name)
        model.info = apply_overrides(model.info, entry)
        return model
    from workbench.agent.models import litellm_client, price_map

    policy = cache or cache_policy(settings)

    def settled() -> ModelInfo:
        info = litellm_client.model_info(name)
        if policy.enabled and policy.retention == "long" and info.cache_style == "anthropic":
            long_write = litellm_client.long_cache_write_cost(name)
            info = replace(info, cache_write_cost=long_write or info.cache_write_cost)
        return apply_overrides(info, entry)

    return litellm_client.LitellmModel(
        apply_overrides(price_map.listed_info(name), entry),
        api_base=api_base or entry.get("api_base") or settings.get("api_base"),
        api_key=api_key or entry.get("api_key") or settings.get("api_key"),
        key_source=(
            "--api-key"
            if api_key
            else f"the setting models.{name}.api_key"
            if entry.get("api_key")
            else "the setting api_key"
            if settings.get("api_key")
            else ""
        ),
        cache=policy,
        settle=settled,
    )
