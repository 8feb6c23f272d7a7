"""Sweeps beyond one machine, on Ray: `RayExecutor` (in `executor`) runs each run as a Ray task
(`task`), the session travelling between the driver and the workers through a git remote
(`transport`). Ray is imported only when this executor is chosen."""
