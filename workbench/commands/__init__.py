"""Headless subcommands (`workbench lint`, `graph`, ...): one module each. They may import
`runtime` and every part below it, never a front end."""
