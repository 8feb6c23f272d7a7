"""Loaded by every Python process the tests start (tests/conftest.py puts this folder on
PYTHONPATH): installs the network guard of `../netguard.py` in that process."""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "workbench_test_netguard", Path(__file__).resolve().parents[1] / "netguard.py"
)
if _spec is not None and _spec.loader is not None:
    _netguard = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_netguard)
    _netguard.install(_netguard.log_to_file())
