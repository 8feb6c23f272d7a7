"""litellm imported once, quietly and quickly, for `litellm_client`.

litellm takes seconds to import, so it is imported only when a call is made (or when
`litellm_client.preload()` starts the import in a background thread early in start-up). Before
the import, `LITELLM_LOCAL_MODEL_COST_MAP` is set (no network fetch of the price map) and
`LITELLM_MODE=PRODUCTION` (litellm would otherwise load a `.env` file from the working folder into
our environment). The import itself runs the quick way (`processes.heavy_imports`): about half of
its time went to the garbage collector, pydantic validators no call uses, and OpenAI SDK resources
no chat needs. The token counter is switched off (`litellm_client` says why).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from types import ModuleType

from workbench.processes import heavy_imports
from workbench.processes.forkserver import LITELLM_ENV_DEFAULTS

DEFERRED_PACKAGES = ("openai.resources",)
"""Packages whose `__init__` imports all their submodules though a call needs one or two
(`heavy_imports.defer_init`): a chat call needs `openai.resources.chat` of the OpenAI SDK's
resources, and their `__init__` loads every one (0.6 s)."""

_lock = threading.Lock()


def loaded() -> ModuleType:
    """litellm, imported and quietened once (thread-safe: a background preload can race a call)."""
    with _lock:
        first = "litellm" not in sys.modules
        for name, value in LITELLM_ENV_DEFAULTS.items():
            os.environ.setdefault(name, value)
        for package in DEFERRED_PACKAGES:
            heavy_imports.defer_init(package)
        with heavy_imports.quick() if first else contextlib.nullcontext():
            import litellm
        litellm.suppress_debug_info = True  # it would print help banners into our stdout
        litellm.telemetry = False
        litellm.drop_params = True
        litellm.disable_token_counter = True  # it may download a tokenizer (`litellm_client`)
        litellm.disable_hf_tokenizer_download = True
        return litellm
