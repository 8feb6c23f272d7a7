"""Headless subcommands (`workbench lint`, `graph`, ...): one module each, that parses and runs
it; its name and one-line help are its entry in the command registry (`workbench.runtime.commands`,
offered to `cli`). They may import `runtime` and every part below it, never a front end."""
