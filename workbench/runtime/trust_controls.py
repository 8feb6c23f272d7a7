"""Trust in `Workbench`: what the project asks for that waits for the user's trust, and what
trusting it changes (see `workbench.trust`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from workbench.agent.events import ModelChange, Notice
from workbench.agent.extensions import ExtensionReport, load_extensions
from workbench.agent.loop import Agent
from workbench.agent.models.client import ModelClient
from workbench.agent.tools.allowlist import offered_tools
from workbench.extension_api import Command, ExtensionAPI
from workbench.runtime.current import Current
from workbench.runtime.events import WorkbenchEvent
from workbench.runtime.mcp_controls import McpControls
from workbench.runtime.options import WorkbenchOptions
from workbench.trust import TrustStore, how_to_trust, project_settings


class TrustControls:
    """What the project asks for that waits for trust, and trusting it."""

    def __init__(
        self,
        current: Current,
        options: WorkbenchOptions,
        project_root: Path,
        extensions: ExtensionReport,
        api: ExtensionAPI,
        agent: Agent,
        commands: dict[str, Command],
        mcp: McpControls,
        emit: Callable[[WorkbenchEvent], None],
        refresh_system_prompt: Callable[[], None],
        open_model: Callable[[str | None], Awaitable[ModelClient]],
    ) -> None:
        self.current = current
        self.options = options
        self.project_root = project_root
        self.extensions = extensions
        self.api = api
        self.agent = agent
        self.commands = commands
        self.mcp = mcp
        self._emit = emit
        self._refresh_system_prompt = refresh_system_prompt
        self._open_model = open_model

    @property
    def needs_trust(self) -> bool:
        """Whether the project asks for something only trust gives: its extensions, settings,
        MCP servers."""
        settings = self.current.settings
        return bool(self.extensions.skipped or settings.withheld or self.mcp.setup.untrusted)

    def trust_notices(self) -> list[Notice]:
        """What waits for trust, and the extensions that failed: told when the session opens."""
        settings = self.current.settings
        withheld, outside = settings.withheld, settings.skill_paths_withheld()
        ask = f"they apply once you trust the project ({how_to_trust(self.project_root)})"
        asks = [f"project settings {', '.join(withheld)}"] if withheld else []
        if outside:
            asks.append(f"project skill paths outside it ({', '.join(map(str, outside))})")
        return [
            *(Notice(f"{what}: {ask}", "warning") for what in asks),
            *(
                Notice(f"extension {p} skipped: {why}", "warning")
                for p, why in self.extensions.skipped
            ),
            *(
                Notice(f"extension {p} failed to load: {e}", "warning")
                for p, e in self.extensions.failed
            ),
        ]

    async def trust_project(self) -> ExtensionReport:
        """Record that the user trusts this project; its extensions load, its MCP servers start
        and its connection settings apply now (its other settings from the next session)."""
        TrustStore().trust(self.project_root)
        withheld = self.current.settings.withheld
        self.current.settings = project_settings(self.project_root)
        await self._start_mcp()
        if withheld:
            self.agent.state.model = await self._open_model(self.options.model)
            info = self.agent.state.model.info
            self._emit(ModelChange(info.name, info.offline, info.context_window))
            self._emit(Notice(f"applied the project's settings: {', '.join(withheld)}"))
        if not self.extensions.skipped:
            return ExtensionReport()
        self.extensions.skipped = []
        report = await load_extensions(self.api, self.project_root, True, include_user=False)
        self.extensions.loaded += report.loaded
        self.extensions.failed += report.failed
        for path, error in report.failed:
            self._emit(Notice(f"extension {path} failed to load: {error}", "warning"))
        offered = offered_tools(self.api.tools.values(), self.options.tools)
        self.agent.state.tools.update((tool.name, tool) for tool in offered)
        self._refresh_system_prompt()
        self.commands.update(self.api.commands)
        return report

    async def _start_mcp(self) -> None:
        """Start the project's MCP servers that waited for trust; offer their tools now."""
        tools, notices = await self.mcp.trust(self.current.settings, set(self.agent.state.tools))
        for notice in notices:
            self._emit(notice)
        if tools:
            offered = offered_tools(tools, self.options.tools)
            self.agent.state.tools.update((tool.name, tool) for tool in offered)
            self._refresh_system_prompt()
