"""`python -m workbench` runs the same entry point as the `workbench` script."""

from workbench.cli import main

raise SystemExit(main())
