"""Headless subcommands (`workbench lint`, `graph`, ...): one module each."""
