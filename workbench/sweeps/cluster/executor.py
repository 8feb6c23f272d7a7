"""`--executor ray`: each run of a sweep a Ray task, on any node of a cluster.

The cluster is the one at `--ray-address` (or `RAY_ADDRESS`), else a local instance of 2 CPUs
that lives as long as the sweep. The data travels through git (`transport`): the session is
pushed to the sweep's remote before the first task, each task pulls it, runs its branch and
pushes it back (`task`), and the driver brings each branch back as its task ends. Queueing,
budgets and stopping are the local executor's; only where a run executes changes. Ray is
imported here alone, and only when this executor is chosen.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from typing import Any

from workbench.errors import UsageError, WorkbenchError
from workbench.sessions.store.identity import conversation_identity
from workbench.sessions.store.location import StorageLocation
from workbench.sweeps.cluster.gate import start_keeper
from workbench.sweeps.cluster.task import SEND_BACK_S, TaskSpec, run_task
from workbench.sweeps.cluster.transport import bring_back, send_session, sweep_remote
from workbench.sweeps.executor import Budget, LocalExecutor, Progress
from workbench.sweeps.record import Run
from workbench.sweeps.runs import Launch

LOCAL_CPUS = 2
EVERY_AT_ONCE = 1 << 20
"""Every run is submitted at once: the cluster's CPUs decide how many run at the same time."""
ONE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray's switch for clusters of several machines (on by default on Linux)."""
INSTALL_HINT = "install it with `pip install 'workbench[ray]'` (on the cluster's nodes too)"


def import_ray(local: bool) -> Any:
    """Ray, or a usage error saying how to install it. For a `local` instance, every Ray
    process listens on loopback alone (Ray reads this when it is imported)."""
    if local:
        os.environ.setdefault(ONE_MACHINE, "0")
    try:
        import ray
    except ImportError as exc:
        raise UsageError("--executor ray needs Ray, which is not installed", INSTALL_HINT) from exc
    return ray


class RayExecutor(LocalExecutor):
    """Runs as Ray tasks; `remote` is where the data travels (None: a bare repository of the
    driver's own, which serves one machine)."""

    def __init__(self, location: StorageLocation, address: str | None, remote: str | None) -> None:
        super().__init__(EVERY_AT_ONCE)
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self.ray = import_ray(local=self.address is None)
        self.location = location
        self.remote = sweep_remote(location, remote)
        self.who = conversation_identity(location.project_runner())
        self.task: Any = None
        self.keeper: Any = None
        """The sweep's rate gate across the nodes (`gate`): held here, it lives while we run."""
        self.returns = asyncio.Lock()

    async def execute(
        self, work: list[tuple[Launch, Run]], budget: Budget, progress: Progress
    ) -> str | None:
        if not work:
            return None
        await asyncio.to_thread(send_session, self.location, work[0][0].session, self.remote)
        self._connect()
        try:
            self.keeper = start_keeper(self.ray, _gate_name(work[0][0]))
            return await super().execute(work, budget, progress)
        finally:
            self.ray.shutdown()

    def _connect(self) -> None:
        """Join the cluster, or start a local instance of our own (`local`: never another
        instance that happens to run on this machine)."""
        try:
            if self.address:
                self.ray.init(address=self.address, log_to_driver=False)
            else:
                self.ray.init(
                    address="local",
                    num_cpus=LOCAL_CPUS,
                    include_dashboard=False,
                    log_to_driver=False,
                    _node_ip_address="127.0.0.1",
                )
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = self.address or "a local Ray instance"
            raise WorkbenchError(
                f"could not start the runs on {where}: {exc}",
                "check --ray-address (or RAY_ADDRESS) and that the cluster is up (`ray status`)",
            ) from exc
        self.task = self.ray.remote(num_cpus=1, max_retries=0, num_returns="streaming")(run_task)

    async def run(self, launch: Launch, run: Run, changed: Progress) -> None:
        gate = _gate_name(launch)
        sent = dataclasses.replace(launch, api_key=None, prepare=None)  # no key, no driver's call
        spec = TaskSpec(self.remote, sent, run.to_json(), gate, self.who)
        stream = self.task.remote(spec)
        try:
            await _follow(stream, run, changed)
        except asyncio.CancelledError:
            self.ray.cancel(stream)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(_follow(stream, run, changed), SEND_BACK_S)
            run.outcome = "aborted"
            await self._bring_back(launch)
            raise
        await self._bring_back(launch)

    async def _bring_back(self, launch: Launch) -> None:
        async with self.returns:  # one fetch into the driver's repositories at a time
            await asyncio.to_thread(
                bring_back, self.location, self.remote, launch.session, launch.branch,
                launch.worktree,
            )  # fmt: skip


def _gate_name(launch: Launch) -> str:
    """The name of the runs' gate folder on each node, and of its keeper."""
    return launch.gate.name if launch.gate is not None else "workbench-rate"


async def _follow(stream: Any, run: Run, changed: Progress) -> None:
    """The task's reports, each copied into `run` as it comes."""
    async for ref in stream:
        fresh = Run.from_json(await ref)
        for item in dataclasses.fields(Run):
            setattr(run, item.name, getattr(fresh, item.name))
        changed(run)
