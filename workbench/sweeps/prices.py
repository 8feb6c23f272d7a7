"""Whether a run's cost can be known: `--max-cost` is refused up front for a model without a
price (its cost would stay unknown and the limit could never be reached)."""

from __future__ import annotations

import os

from workbench.agent.models.choice import model_name, model_settings, uses_litellm
from workbench.config import Settings
from workbench.errors import UsageError


def priced(name: str, settings: Settings) -> bool:
    """A price in the settings (`models.<name>.cost`), else in litellm's model map."""
    cost = model_settings(settings, name).get("cost") or {}
    if "input" in cost and "output" in cost:
        return True
    if not uses_litellm(name):
        return False
    from workbench.agent.models import litellm_client

    info = litellm_client.model_info(name)
    return info.input_cost is not None and info.output_cost is not None


def check_priced(models: list[str | None], settings: Settings) -> None:
    """Refuse `--max-cost` when any run's model has no known price."""
    for model in dict.fromkeys(models):
        name = model_name(model, settings, os.environ)
        if not priced(name, settings):
            raise UsageError(
                f"--max-cost needs every model's price, and {name} has none",
                f"give it one in the settings (models.{name}.cost: input and output, USD per "
                "million tokens), or limit by --max-tokens instead",
            )
