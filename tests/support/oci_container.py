"""A default Docker container without Docker: ``runc`` on a root filesystem made of read-only
bind mounts of this machine, with Docker's own default seccomp profile and capabilities.

:func:`docker_seccomp` turns moby's ``seccomp/default.json`` (vendored in
``tests/grading/container/``) into the OCI runtime-spec form the way Docker does before it
starts a container: only the rules whose ``includes`` / ``excludes`` match this processor and
the container's capabilities. :func:`config` writes a ``config.json`` with Docker's defaults:
new PID, IPC, UTS, mount and network namespaces (no user namespace: Docker runs containers as
real root), Docker's 14 default capabilities (no ``CAP_SYS_ADMIN``), ``/proc`` paths masked and
read-only as Docker does them.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
from pathlib import Path

PROFILE = Path(__file__).resolve().parents[1] / "grading" / "container" / \
    "docker-default-seccomp.json"
#: Docker's default capabilities (moby oci/caps/defaults.go): no CAP_SYS_ADMIN.
DOCKER_CAPABILITIES = ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD",
                       "CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP",
                       "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE"]
#: Docker's masked and read-only /proc paths (moby oci/defaults.go).
MASKED = ["/proc/asound", "/proc/acpi", "/proc/interrupts", "/proc/kcore", "/proc/keys",
          "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug",
          "/proc/scsi", "/sys/firmware", "/sys/devices/virtual/powercap"]
READ_ONLY = ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]
GO_ARCH = {"x86_64": "amd64", "aarch64": "arm64"}
SECCOMP_ARCH = {"x86_64": "SCMP_ARCH_X86_64", "aarch64": "SCMP_ARCH_AARCH64"}


def _kernel_at_least(version: str) -> bool:
    have = tuple(int(part) for part in platform.release().split("-")[0].split(".")[:2])
    return have >= tuple(int(part) for part in version.split(".")[:2])


def docker_seccomp(capabilities: list[str] = DOCKER_CAPABILITIES) -> dict:
    """Docker's default profile as Docker would give it to runc for these capabilities."""
    profile = json.loads(PROFILE.read_text())
    machine = platform.machine()
    arch, native = GO_ARCH[machine], SECCOMP_ARCH[machine]
    architectures = [native]
    for entry in profile["archMap"]:
        if entry["architecture"] == native:
            architectures += entry["subArchitectures"] or []
    rules = []
    for rule in profile["syscalls"]:
        includes, excludes = rule.get("includes") or {}, rule.get("excludes") or {}
        if includes.get("arches") and arch not in includes["arches"]:
            continue
        if includes.get("caps") and not set(includes["caps"]) <= set(capabilities):
            continue
        if includes.get("minKernel") and not _kernel_at_least(includes["minKernel"]):
            continue
        if excludes.get("arches") and arch in excludes["arches"]:
            continue
        if excludes.get("caps") and set(excludes["caps"]) & set(capabilities):
            continue
        converted = {"names": rule["names"], "action": rule["action"]}
        if rule.get("args"):
            converted["args"] = [{"index": arg["index"], "value": arg["value"],
                                  "valueTwo": arg.get("valueTwo", 0), "op": arg["op"]}
                                 for arg in rule["args"]]
        if rule.get("errnoRet") is not None:
            converted["errnoRet"] = rule["errnoRet"]
        rules.append(converted)
    return {"defaultAction": profile["defaultAction"],
            "defaultErrnoRet": profile.get("defaultErrnoRet", 1),
            "architectures": architectures, "syscalls": rules}


def bind(source: str | Path, target: str, writable: bool = False) -> dict:
    return {"destination": target, "type": "bind", "source": str(source),
            "options": ["rbind", "rw" if writable else "ro", "nosuid", "nodev"]}


def config(rootfs: Path, args: list[str], env: dict[str, str], mounts: list[dict],
           cwd: str = "/") -> dict:
    """A runc ``config.json``: Docker's defaults, graded as root, ``mounts`` added."""
    capabilities = list(DOCKER_CAPABILITIES)
    return {
        "ociVersion": "1.0.2",
        "process": {"terminal": False, "user": {"uid": 0, "gid": 0}, "args": args,
                    "env": [f"{key}={value}" for key, value in env.items()], "cwd": cwd,
                    "capabilities": {"bounding": capabilities, "effective": capabilities,
                                     "permitted": capabilities},
                    "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 4096, "soft": 4096}],
                    "noNewPrivileges": False},
        "root": {"path": str(rootfs), "readonly": False},
        "hostname": "grader",
        "mounts": [
            {"destination": "/proc", "type": "proc", "source": "proc"},
            {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
             "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
            {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
             "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
            {"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
             "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
            {"destination": "/sys", "type": "sysfs", "source": "sysfs",
             "options": ["nosuid", "noexec", "nodev", "ro"]},
            {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs",
             "options": ["nosuid", "nodev", "mode=1777", "size=512m"]},
            *mounts],
        "linux": {
            "namespaces": [{"type": kind} for kind in ("pid", "ipc", "uts", "mount",
                                                         "network")],
            "maskedPaths": MASKED, "readonlyPaths": READ_ONLY,
            "seccomp": docker_seccomp(capabilities),
            "resources": {"devices": [{"allow": False, "access": "rwm"}]},
        },
    }


def rootfs(folder: Path) -> Path:
    """An empty root: mount points for the system folders, the merged-/usr links as here, a
    writable copy of /etc (setup.sh adds a user), /root searchable as in a container image."""
    root = folder / "rootfs"
    root.mkdir(parents=True)
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / name
        if host.is_symlink():
            (root / name).symlink_to(os.readlink(host))
        elif host.is_dir():
            (root / name).mkdir()
    for name in ("usr", "proc", "dev", "sys", "tmp", "opt", "autograder", "var/tmp"):
        (root / name).mkdir(parents=True, exist_ok=True)
    (root / "root").mkdir(mode=0o755)
    shutil.copytree("/etc", root / "etc", symlinks=True, ignore_dangling_symlinks=True,
                    dirs_exist_ok=True, ignore=shutil.ignore_patterns("ssh", "ssl"))
    return root


def runc_run(bundle: Path, spec: dict, name: str, timeout: float) -> subprocess.CompletedProcess:
    """``runc run`` of ``spec`` (written to ``bundle/config.json``); always deleted after."""
    (bundle / "config.json").write_text(json.dumps(spec, indent=1))
    try:
        return subprocess.run(["runc", "run", "--bundle", str(bundle), name],
                              capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    finally:
        subprocess.run(["runc", "delete", "--force", name], capture_output=True)
