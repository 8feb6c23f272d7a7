"""litellm imported once, quietly and quickly, for `litellm_client`.

litellm takes seconds to import, so it is imported only when a call is made (or when
`litellm_client.preload()` starts the import in a background thread early in start-up). Before
the import, `LITELLM_LOCAL_MODEL_COST_MAP` is set (no network fetch of the price map) and
`LITELLM_MODE=PRODUCTION` (litellm would otherwise load a `.env` file from the working folder into
our environment). The import itself runs the quick way (`processes.heavy_imports`): about half of
its time went to the garbage collector, pydantic validators no call uses, and OpenAI SDK types and
resources no chat needs. The token counter is switched off (`litellm_client` says why), so
tiktoken's encoding is built only if something counts (`lazy_encoding`). A chat request's body
of plain JSON is sent as it is, not walked by the OpenAI SDK first (`processes.plain_requests`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from types import ModuleType

from workbench.processes import heavy_imports, plain_requests
from workbench.processes.forkserver import LITELLM_ENV_DEFAULTS

LAZY_PACKAGES = ("openai.types", "openai.resources")
"""The OpenAI SDK's packages of types and API resources, whose `__init__`s import every module
under them (about 800) though litellm needs a few hundred and a chat call one resource: read,
not run (`processes.lazy_packages`)."""

_lock = threading.Lock()


def loaded() -> ModuleType:
    """litellm, imported and quietened once (thread-safe: a background preload can race a call)."""
    with _lock:
        first = "litellm" not in sys.modules
        for name, value in LITELLM_ENV_DEFAULTS.items():
            os.environ.setdefault(name, value)
        if first:
            from workbench.agent.models import lazy_encoding  # tiktoken: only with litellm
            from workbench.processes import lazy_packages

            for package in LAZY_PACKAGES:
                lazy_packages.defer(package)
            lazy_encoding.register()
        with heavy_imports.quick() if first else contextlib.nullcontext():
            import litellm

            if first:
                plain_requests.install()
        litellm.suppress_debug_info = True  # it would print help banners into our stdout
        litellm.telemetry = False
        litellm.drop_params = True
        litellm.disable_token_counter = True  # it may download a tokenizer (`litellm_client`)
        litellm.disable_hf_tokenizer_download = True
        return litellm
