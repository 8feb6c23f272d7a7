"""The bubblewrap command line that puts one command in the box a policy describes.

Mounts are applied in order, so the order here is the policy: the base view (everything
read-only, or only the toolchains in `strict`), a private temporary folder, a worktree's common
git folder read-only, the working tree writable, what stays read-only inside it, the git
folders a worktree's commit writes, the user's `allow_write`, then the secrets hidden, then
`allow_read` (which may show one again).
The box dies with us (`--die-with-parent`) and has its own process namespace, so killing
bubblewrap ends every process the command started.
"""

from __future__ import annotations

import sys
from pathlib import Path

from workbench.sandbox.policy import READ_ONLY_INSIDE, SandboxPolicy, git_folders

STRICT_VISIBLE = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
"""What `strict` shows besides the working tree: the toolchains and the system's settings."""
ETC_SECRETS = ("/etc/shadow", "/etc/gshadow", "/etc/ssh")
"""Hidden in `strict`, which shows `/etc`."""
BOX_PROXY_SOCKET = "/tmp/.workbench-proxy.sock"
BOX_BRIDGE = "/tmp/.workbench-bridge.py"


def _base(policy: SandboxPolicy) -> list[str]:
    if policy.mode != "strict":
        return ["--ro-bind", "/", "/"]
    visible = [*STRICT_VISIBLE, sys.base_prefix, sys.prefix]
    args: list[str] = []
    for folder in dict.fromkeys(visible):
        path = Path(folder)
        if path.is_symlink():  # /bin -> usr/bin on merged-/usr systems
            args += ["--symlink", str(path.readlink()), folder]
        elif path.exists():
            args += ["--ro-bind", folder, folder]
    return [*args, "--dir", str(policy.home)]


def _hide(path: Path) -> list[str]:
    return ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null", str(path)]


def bwrap_argv(
    policy: SandboxPolicy,
    root: Path,
    cwd: Path,
    command: list[str],
    proxy_socket: Path | None = None,
) -> list[str]:
    """`command` boxed by `policy`, writing only in the working tree `root`; with
    `proxy_socket`, the allow-list proxy is reachable inside as `BOX_PROXY_SOCKET`."""
    argv = [policy.bwrap, "--die-with-parent", "--new-session", "--unshare-pid"]
    argv += ["--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not policy.networked:
        argv.append("--unshare-net")
    argv += _base(policy)
    argv += ["--dev", "/dev", "--proc", "/proc"]
    temporary = policy.temp_folders()
    for folder in temporary:
        argv += ["--tmpfs", str(folder)]
    for prefix in dict.fromkeys(Path(p).resolve() for p in (sys.prefix, sys.base_prefix)):
        if any(prefix.is_relative_to(folder) for folder in temporary):  # (a checkout in /tmp)
            argv += ["--ro-bind", str(prefix), str(prefix)]  # our interpreter stays visible
    root = root.resolve()
    git = git_folders(root)
    if git.common is not None:
        argv += ["--ro-bind", str(git.common), str(git.common)]
    argv += ["--bind", str(root), str(root)]
    for name in READ_ONLY_INSIDE:
        if (root / name).exists():
            argv += ["--ro-bind", str(root / name), str(root / name)]
    for path in (*git.writable, *policy.allow_write):
        if path.exists():
            argv += ["--bind", str(path), str(path)]
    hidden = policy.hidden()
    if policy.mode == "strict":
        hidden += [Path(p) for p in ETC_SECRETS if Path(p).exists()]
    for path in hidden:
        argv += _hide(path)
    for path in policy.allow_read:
        if path.exists():
            argv += ["--ro-bind", str(path), str(path)]
    if proxy_socket is not None:
        bridge = Path(__file__).with_name("bridge.py")
        argv += ["--ro-bind", str(proxy_socket), BOX_PROXY_SOCKET]
        argv += ["--ro-bind", str(bridge), BOX_BRIDGE]
        command = [sys.executable, "-I", BOX_BRIDGE, BOX_PROXY_SOCKET, "--", *command]
    if policy.mode == "strict":  # folders made only to mount on stay unwritable
        argv += ["--remount-ro", "/"]
    return [*argv, "--chdir", str(cwd.resolve()), "--", *command]
