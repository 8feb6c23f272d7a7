"""The enforcer registered on a real hook bus, for each test's own project folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.enforcer_harness import Harness


@pytest.fixture
def harness(tmp_path: Path):
    def make(**settings: Any) -> Harness:
        return Harness(tmp_path, settings)

    return make
