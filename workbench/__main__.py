"""`python -m workbench` runs the same entry point as the `workbench` script.

`-m` puts the folder it was started in first on the import path: in a project someone else
wrote, their `yaml.py` or `litellm.py` would run as ours. That entry goes before anything else is
imported (`python -P` and `PYTHONSAFEPATH` never add it).
"""

import sys
from pathlib import Path

started_in = Path.cwd().resolve()
if not sys.flags.safe_path and sys.path and Path(sys.path[0] or ".").resolve() == started_in:
    del sys.path[0]

from workbench.cli import main  # noqa: E402 - only once the project is off the import path

raise SystemExit(main())
