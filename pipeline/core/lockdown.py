"""The walls a process puts up around itself before it runs any candidate code.

Started as `python -c BOOT ...` by pipeline/core/sandbox.py: this file is executed first
(standard library only, so a bare child loads no module of ours), reads what to do from the
environment, locks the process down, then runs the real child (a module, or a code string).

On Linux, where it is allowed (as root, or through a user namespace of its own):
  * a mount namespace of its own in which the WHOLE filesystem is read-only, except the
    scratch and cache folders the parent named (and /dev, /dev/shm (where no GPU is used: a
    read-only /dev and an empty /dev/shm of its own), and its own /proc/PID,
    where the CUDA driver writes as it starts: on a read-only /proc cuInit fails with
    error 304, seen on the H200 2026-12-01; benchmarks/sandbox_probe.py): the project, other
    candidates, the Triton caches trusted processes use, the judge's temporary files are
    out of reach, whatever the file permissions say;
  * a network namespace of its own: no network;
  * no Linux capability at all (the bounding set too, so nothing exec'd regains one), and
    no_new_privs: the read-only mounts cannot be undone, no capability regained;
  * no reaching into another process: ptrace, process_vm_readv/writev and pidfd_getfd
    refused by a seccomp filter, and (as root) non-dumpable for good;
  * SIGKILL when the parent dies.
The parent does not take this process's word for any of it: it reads /proc/PID itself
(pipeline/core/sandbox.py: observed_isolation). Where the parent asks for all of it
("require", the default as root on Linux), a wall that does not go up ends this process
with exit code 97 before any code but this file has run.
"""

import ctypes
import json
import os
import signal
import sys

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWUSER = 0x00020000, 0x40000000, 0x10000000
MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 4096, 16384, 1 << 18
MOUNT_ATTR_RDONLY, AT_RECURSIVE, AT_FDCWD = 0x1, 0x8000, -100
SYS_MOUNT_SETATTR = {"x86_64": 442, "aarch64": 442}
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 24, 38
ALWAYS_WRITABLE = ("/dev", "/dev/shm")
SANDBOX_FAILED = 97  # exit code: a required wall did not go up


class _MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _err() -> str:
    return os.strerror(ctypes.get_errno())


def _enter_namespaces(libc, network: bool) -> str | None:
    """A mount and a network namespace (with a user namespace when not root). None, or why not."""
    flags = CLONE_NEWNS | (0 if network else CLONE_NEWNET)
    if os.geteuid() != 0:
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(flags | CLONE_NEWUSER) != 0:
            return f"unshare with a user namespace: {_err()}"
        for name, text in (
            ("setgroups", "deny"),
            ("uid_map", f"{uid} {uid} 1"),
            ("gid_map", f"{gid} {gid} 1"),
        ):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
        return None
    if libc.unshare(flags) != 0:
        return f"unshare: {_err()}"
    return None


def _set_readonly(libc, path: str, readonly: bool) -> bool:
    """mount_setattr (Linux 5.12+) on `path` and every mount below it; older kernels: a
    remount of each mount point, one by one."""
    number = SYS_MOUNT_SETATTR.get(os.uname().machine)
    if number is not None:
        attr = _MountAttr(MOUNT_ATTR_RDONLY if readonly else 0, 0 if readonly else MOUNT_ATTR_RDONLY, 0, 0)
        if (
            libc.syscall(
                number, AT_FDCWD, path.encode(), AT_RECURSIVE, ctypes.byref(attr), ctypes.sizeof(attr)
            )
            == 0
        ):
            return True
        if ctypes.get_errno() != 38:  # ENOSYS: an older kernel, remount instead
            return False
    return _remount_each(libc, path, readonly)


def _remount_each(libc, path: str, readonly: bool) -> bool:
    ms_remount, ms_rdonly = 32, 1
    flags = {"nosuid": 2, "nodev": 4, "noexec": 8, "noatime": 1024, "nodiratime": 2048, "relatime": 1 << 21}
    points = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            parts = line.split()
            point = parts[4].encode().decode("unicode_escape")
            if point == path or point.startswith(path.rstrip("/") + "/"):
                keep = sum(flags.get(o, 0) for o in parts[5].split(","))
                points.append((point, keep))
    ok = True
    for point, keep in points:
        mode = ms_remount | MS_BIND | keep | (ms_rdonly if readonly else 0)
        ok &= libc.mount(None, point.encode(), None, mode, None) == 0
    return ok


def _read_only_filesystem(libc, writable: list[str], private_dev: bool = False) -> str | None:
    """Everything read-only except `writable` (and /dev, /dev/shm). None, or why not.
    `private_dev`: /dev read-only too (its device nodes still open for writing) and an empty
    /dev/shm of this process's own, so no file written there outlives it or reaches another
    process (a channel between the runner, the bare call and later checks: red team,
    2026-12-05). Asked for where no GPU is used: CUDA's needs of either are untried."""
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return f"private mounts: {_err()}"
    keep = [p for p in [*writable, *([] if private_dev else ALWAYS_WRITABLE)] if os.path.isdir(p)]
    for path in writable:  # each its own mount, so it can stay writable below
        if libc.mount(path.encode(), path.encode(), None, MS_BIND | MS_REC, None) != 0:
            return f"bind {path}: {_err()}"
    if not _set_readonly(libc, "/", True):
        return f"read-only /: {_err()}"
    for path in keep:
        if not _set_readonly(libc, path, False):
            return f"writable {path}: {_err()}"
    if private_dev and os.path.isdir("/dev/shm"):
        if libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV, b"size=64m,mode=1777") != 0:
            return f"a private /dev/shm: {_err()}"
    return None


def _drop_capabilities(libc) -> None:
    for cap in range(64):  # the bounding set first, so no exec'd program regains them
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [
            ("effective", ctypes.c_uint32),
            ("permitted", ctypes.c_uint32),
            ("inheritable", ctypes.c_uint32),
        ]

    libc.capset(ctypes.byref(Header(0x20080522, 0)), (Data * 2)())  # _LINUX_CAPABILITY_VERSION_3
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


# No reaching into another process: ptrace, the process_vm_* copies and pidfd_getfd are
# refused (EPERM), and so is prctl(PR_SET_DUMPABLE), so a process made non-dumpable stays so.
# As root with no capability, a child could otherwise attach to any other process without
# capabilities, which is every other child: a runner read and wrote its bare call's memory
# and its sibling runner's (2026-12-08). Numbers per architecture; audit arches from
# linux/audit.h; a call of another architecture (x86's 32-bit ABI, x32) is refused whole.
SECCOMP = {
    "x86_64": {"arch": 0xC000003E, "denied": (101, 310, 311, 438), "prctl": 157, "x32": 0x40000000},
    "aarch64": {"arch": 0xC00000B7, "denied": (117, 270, 271, 438), "prctl": 167, "x32": None},
}
PR_SET_SECCOMP, SECCOMP_MODE_FILTER, PR_SET_DUMPABLE = 22, 2, 4


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _no_reaching_out_program(table: dict) -> list[tuple]:
    """The BPF program over seccomp_data (nr at offset 0, arch at 4, args[0] at 16)."""
    load, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    body = [("ld", 4), ("arch", table["arch"]), ("ld", 0)]
    if table["x32"]:
        body.append(("ge", table["x32"]))
    body += [("eq", nr) for nr in table["denied"]]
    body += [("prctl", table["prctl"]), ("ld", 16), ("eq", PR_SET_DUMPABLE), ("allow",), ("deny",)]
    deny_at, allow_at = len(body) - 1, len(body) - 2
    program = []
    for i, (kind, *arg) in enumerate(body):
        to_deny, to_allow = deny_at - i - 1, allow_at - i - 1
        if kind == "ld":
            program.append((load, 0, 0, arg[0]))
        elif kind == "arch":  # another architecture's call: refused
            program.append((jeq, 0, to_deny, arg[0]))
        elif kind in ("eq", "ge"):
            program.append((jeq if kind == "eq" else jge, to_deny, 0, arg[0]))
        elif kind == "prctl":  # anything but prctl is allowed; prctl goes on to its option
            program.append((jeq, 0, to_allow, arg[0]))
        else:
            program.append((ret, 0, 0, allow if kind == "allow" else deny))
    return program


def _no_reaching_out(libc) -> str | None:
    """Non-dumpable (as root: no process without CAP_SYS_PTRACE may read or trace it; not
    where a user namespace stands in for root: the parent, without that capability, could
    then no longer read this process's /proc entries), and the seccomp filter above. Needs
    no_new_privs first. None, or why not."""
    table = SECCOMP.get(os.uname().machine)
    if table is None:
        return f"no seccomp table for {os.uname().machine}"
    if os.geteuid() == 0:
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    program = _no_reaching_out_program(table)
    filters = (_SockFilter * len(program))(*[_SockFilter(*op) for op in program])
    fprog = _SockFprog(len(program), filters)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        return f"seccomp filter: {_err()}"
    return None


def lock_down(writable: list[str], network: bool = False, death_signal: bool = True,
              private_dev: bool = False) -> str:  # fmt: skip
    """Apply every wall this machine allows; say which ones are up. `death_signal`: SIGKILL
    when the thread that started this process ends (not for a tool's target: sandbox.py);
    `private_dev`: see _read_only_filesystem."""
    if not sys.platform.startswith("linux"):
        return f"none: not Linux ({sys.platform})"
    libc = _libc()
    if death_signal:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    missing = _enter_namespaces(libc, network)
    if missing is None:
        own = f"/proc/{os.getpid()}"  # this process's own entries, no other process's
        missing = _read_only_filesystem(libc, [*(os.path.realpath(p) for p in writable), own], private_dev)
    _drop_capabilities(libc)
    reach = _no_reaching_out(libc)
    open_ = [f"the filesystem and network stay open ({missing})" if missing else "",
             f"other processes stay within reach ({reach})" if reach else ""]  # fmt: skip
    if missing or reach:
        return "partial: no capabilities, but " + "; ".join(filter(None, open_))
    return "full"


def _boot() -> None:
    start(json.loads(os.environ.pop("KPIPE_SANDBOX")))


def start(config: dict) -> None:
    """Lock down, then run what `config` names: from _boot in a fresh `python -c BOOT`, or
    in a process the zygote forked (pipeline/core/zygote.py) once it is a copy of no other."""
    isolation = lock_down(config["writable"], bool(config.get("network")), config.get("death_signal", True),
                          bool(config.get("private_dev")))  # fmt: skip
    if config.get("require") and isolation != "full":
        sys.stderr.write(f"kpipe sandbox: could not be set up here: {isolation}\n")
        sys.stderr.flush()
        os._exit(SANDBOX_FAILED)
    if config.get("walls_fd") is not None:  # the parent's word that they are up: an exit 97
        try:  # after this is the child's own (pipeline/core/sandbox.py, Child)
            os.write(config["walls_fd"], b"up")
            os.close(config["walls_fd"])
        except OSError:
            pass
    os.environ["KPIPE_ISOLATION"] = isolation
    sys.argv = [sys.argv[0], *config["argv"]]
    if config.get("code"):
        exec(compile(config["code"], "<kpipe child>", "exec"), {"__name__": "__main__"})
    else:
        import runpy

        runpy.run_module(config["module"], run_name="__main__", alter_sys=True)


if __name__ == "__kpipe_lockdown__":
    _boot()
