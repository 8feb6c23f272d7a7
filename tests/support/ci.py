"""Outside tools some tests need (bubblewrap, node, Ray): under CI a missing one fails the test,
on a developer's machine it skips it with what to install."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def under_ci() -> bool:
    """`.ci/run` sets WORKBENCH_CI; CI services set CI."""
    return bool(os.environ.get("WORKBENCH_CI")) or os.environ.get("CI") == "true"


def missing(what: str) -> NoReturn:
    """Fail under CI (which installs everything), else skip, saying `what` is missing."""
    if under_ci():
        pytest.fail(f"{what}: CI must run this test (.ci/run installs what it needs)")
    pytest.skip(what)
