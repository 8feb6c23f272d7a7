"""The sweep view: a live row per run, then the variants best first (`view.SweepView`)."""
