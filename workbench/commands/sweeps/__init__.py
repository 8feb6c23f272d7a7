"""The sweep subcommands: `workbench sweep` (`run`) and `workbench sweeps` (`listing`)."""
