"""Attacks on the kernel sandbox through native code: each route as a determined student
would write it (ctypes system calls from the graded function), its outcome read in the
grader's results. Each failed on the grader before the seccomp allowlist, the private /proc
and the tmpfs over protected folders (checked against that grader), and passes now.
"""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path

import pytest
from support.grading_results import by_exercise, needs_sandbox
from support.grader_attacks import FILE01, KEY_LINE, LESSON01, REFERENCE, attack, grade, only_01_1_lost

from minigrad.cli import main as cli_main
from minigrad.exercises.authoring.generate import python_file_text

x86_64 = pytest.mark.skipif(platform.machine() != "x86_64",
                            reason="the attacks use x86-64 system-call numbers")
#: glibc's pthread_create flags: CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|
#: PARENT_SETTID|CHILD_CLEARTID
THREAD = 0x003D0F00
NAMESPACES = 0x40000000 | 0x08000000 | 0x04000000 | 0x02000000  # net, ipc, uts, cgroup


def attempts(output: str) -> list[str]:
    """What each attempt of the attack returned, in order."""
    return output.splitlines()[0].split("ValueError: ", 1)[1].split(" | ")


@needs_sandbox
@x86_64
def test_a_thread_cannot_bring_namespaces(tmp_path: Path) -> None:
    """The old filter checked that clone's flags held CLONE_THREAD, never the rest: a raw
    clone of a thread with five new namespaces succeeded (300 namespace sets a second slowed
    the host). Now clone takes exactly glibc's thread flags; anything else is EPERM."""
    output = only_01_1_lost(grade(attack(tmp_path / "work", f"""
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        stack = ctypes.create_string_buffer(1 << 16)
        top = ctypes.c_void_p(ctypes.addressof(stack) + (1 << 16) - 256)
        # VM|FILES|SIGHAND|THREAD and four namespaces (a thread on the old filter); glibc's
        # thread flags with namespaces, with a user namespace, with an exit signal; vfork; fork
        for flags in ({0x10D00 | NAMESPACES}, {THREAD | NAMESPACES}, {THREAD | 0x10000000},
                      {THREAD | 0x11}, 0x4111, 0x11):
            found.append(_try(lambda: (libc.syscall(56, flags, top, 0, 0, 0), ctypes.get_errno())))
        found.append(_try(lambda: (libc.unshare(0x08000000), ctypes.get_errno())))  # ipc ns
        found.append(_try(lambda: (libc.syscall(308, 0, 0), ctypes.get_errno())))  # setns
        """), tmp_path))
    assert attempts(output) == ["(-1, 1)"] * 8, output


@needs_sandbox
@x86_64
def test_no_shared_memory_or_message_queues_beyond_the_memory_limit(tmp_path: Path) -> None:
    """With --memory 300, System V shared memory (attached, filled, detached) held 600 MB the
    address-space limit never counted, and message queues 500 MB of kernel memory. Every IPC
    object is refused now (and would live in the child's own IPC namespace); POSIX shared
    memory in /dev/shm is not writable."""
    output = only_01_1_lost(grade(attack(tmp_path / "work", """
        libc = ctypes.CDLL(None, use_errno=True)
        libc.shmat.restype = ctypes.c_void_p
        held = []
        for _ in range(3):
            ident = libc.shmget(0, 150 << 20, 0o1600)          # IPC_PRIVATE, IPC_CREAT | 0600
            if ident < 0:
                held.append(("shmget", ctypes.get_errno()))
                break
            address = libc.shmat(ident, None, 0)
            ctypes.memset(address, 1, 150 << 20)
            libc.shmdt(ctypes.c_void_p(address))
            held.append(ident)
        found.append(repr(held))
        found.append(_try(lambda: (libc.msgget(0, 0o1600), ctypes.get_errno())))
        found.append(_try(lambda: (libc.semget(0, 1, 0o1600), ctypes.get_errno())))
        found.append(_try(lambda: (libc.syscall(240, b"/q", 0o100 | 2, 0o600, None),
                                   ctypes.get_errno())))            # mq_open
        found.append(_try(lambda: open("/dev/shm/hold", "wb").write(b"x" * (1 << 20))))
        """), tmp_path, "--memory", "300"))
    assert attempts(output) == ["[('shmget', 1)]", "(-1, 1)", "(-1, 1)", "(-1, 1)",
                                "PermissionError[13]"], output


@needs_sandbox
def test_protected_files_have_no_metadata(tmp_path: Path) -> None:
    """Landlock refuses to open the private sources, a classmate's file or the results, but
    stat, readlink and getxattr showed their sizes, times and names. In the child's mount
    namespace an empty tmpfs covers them: they are not there at all."""
    private = tmp_path / "private"
    private.mkdir()
    for suffix in ("", "_checks"):
        (private / f"lesson01{suffix}.py").write_text(
            Path(REFERENCE.replace(".py", f"{suffix}.py")).read_text())
    klass = tmp_path / "class"
    bob = klass / "bob" / FILE01
    bob.parent.mkdir(parents=True)
    bob.write_text(python_file_text(LESSON01, solutions=True))
    (klass / "bob" / "link").symlink_to(private / "lesson01.py")
    out = tmp_path / "grades"
    targets = [str(private / "lesson01.py"), str(private / "lesson01_checks.py"), str(bob),
               str(klass / "bob"), str(out / "bob.json"), REFERENCE]
    attack(klass / "mallory", f"""
        for target in {targets!r}:
            found.append(_try(lambda: (os.stat(target).st_size, os.stat(target).st_mtime)))
        found.append(_try(lambda: os.readlink({str(klass / "bob" / "link")!r})))
        found.append(_try(lambda: os.getxattr({str(bob)!r}, "user.mark")))
        found.append(_try(lambda: os.stat({str(klass)!r}).st_nlink))   # the tmpfs itself
        libc = ctypes.CDLL(None, use_errno=True)                        # take the tmpfs off
        found.append(_try(lambda: (libc.umount2({str(klass).encode()!r}, 2), ctypes.get_errno())))
        found.append(_try(lambda: os.stat({str(bob)!r}).st_size))
        frame, seen = sys._getframe(), ""                    # the grader's config, up the stack
        while frame is not None:
            seen += repr(frame.f_locals)[:100000]
            frame = frame.f_back
        needle = "'hid" + "den': "        # (the source itself holds the protected paths)
        found.append(repr([needle in seen, needle in repr(sys.argv)]))
        """)
    assert cli_main(["grade", str(klass), "--lesson", "1", "--jobs", "1", "--timeout", "5",
                     "--out", str(out), "--csv", str(tmp_path / "scores.csv"),
                     "--exercises", str(private)]) == 0
    assert by_exercise(json.loads((out / "bob.json").read_text()))["01.1"][0] == 2
    output = only_01_1_lost(json.loads((out / "mallory.json").read_text()))
    assert attempts(output) == (["FileNotFoundError[2]"] * 8 + ["2", "(-1, 1)"]
                                + ["FileNotFoundError[2]", "[False, False]"]), output


@needs_sandbox
def test_graded_code_sees_only_its_own_processes(tmp_path: Path) -> None:
    """/proc was the host's: graded code counted 67 host PIDs (and could stat the grader's).
    The child mounts its own /proc, for its own PID namespace."""
    output = only_01_1_lost(grade(attack(tmp_path / "work", f"""
        found.append(_try(lambda: sum(os.path.exists(f"/proc/{{n}}") for n in range(1, 1 << 16))))
        found.append(_try(lambda: os.path.exists("/proc/{os.getpid()}")))
        found.append(_try(lambda: os.getpid()))
        found.append(_try(lambda: os.stat("/proc/1/exe").st_size))
        found.append(_try(lambda: open("/proc/1/status").read()))
        """), tmp_path))
    visible, grader, pid, _, status = attempts(output)
    assert int(visible) <= 3 and pid == "1", output  # itself (and at most its threads)
    assert grader == ("True" if os.getpid() <= int(visible) else "False"), output
    assert status == "PermissionError[13]", output  # and Landlock still refuses to read it


@needs_sandbox
@x86_64
def test_a_fresh_round_of_kernel_interfaces(tmp_path: Path) -> None:
    """Kernel interfaces honest graded code never needs: each refused by the allowlist (EPERM;
    ENOSYS where glibc needs it to fall back; EACCES for the ones listed so before), and
    /proc/self/mem and /dev/shm are not writable (Landlock)."""
    calls = [  # (name, number, arguments, errno)
        ("io_uring_setup", 425, (8, 0), 38), ("userfaultfd", 323, (0,), 13),
        ("ptrace TRACEME", 101, (0, 0, 0, 0), 1), ("perf_event_open", 298, (0, 0, -1, -1, 0), 13),
        ("keyctl", 250, (0, -3), 13), ("bpf", 321, (0, 0, 0), 13),
        ("personality READ_IMPLIES_EXEC", 135, (0x0400000,), 1),
        ("prctl PR_SET_MM", 157, (35, 8, 0, 0, 0), 1), ("prctl PR_SET_DUMPABLE", 157, (4, 0), 1),
        ("prctl PR_SET_PDEATHSIG", 157, (1, 0), 1),
        ("process_vm_writev", 311, (1, 0, 0, 0, 0, 0), 1), ("mount", 165, (0, 0, 0, 0, 0), 1),
        ("fsopen", 430, (0, 0), 1), ("open_tree", 428, (-100, 0, 0), 1),
        ("move_mount", 429, (0, 0, 0, 0, 0), 1), ("chroot", 161, (0,), 1),
        ("open_by_handle_at", 304, (0, 0, 0), 1), ("name_to_handle_at", 303, (0, 0, 0, 0, 0), 1),
        ("memfd_secret", 447, (0,), 1), ("pidfd_open", 434, (1, 0), 1),
        ("seccomp", 317, (0, 0, 0), 1), ("kcmp", 312, (1, 1, 0, 0, 0), 1),
        ("sched_setattr", 314, (0, 0, 0), 1), ("mlock", 149, (0, 4096), 1),
        ("ioprio_set", 251, (1, 0, 0), 1), ("setpriority", 141, (0, 0, -20), 1),
        ("io_setup", 206, (1, 0), 1), ("add_key", 248, (0, 0, 0, 0, 0), 13),
        ("execve", 59, (0, 0, 0), 1), ("vfork", 58, (), 1), ("fork", 57, (), 1),
        ("clone3", 435, (0, 0), 38), ("sync", 162, (), 1), ("acct", 163, (0,), 1),
        ("timer_create", 222, (1, 0, 0), 1),  # kernel memory, without a limit on the count
    ]
    output = only_01_1_lost(grade(attack(tmp_path / "work", f"""
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        for name, number, arguments, _ in {calls!r}:
            found.append(_try(lambda: (libc.syscall(number, *arguments), ctypes.get_errno())))
        found.append(_try(lambda: open("/proc/self/mem", "r+b")))
        found.append(_try(lambda: open("/dev/shm/x", "wb")))
        found.append(_try(lambda: libc.prctl(15, b"renamed", 0, 0, 0)))  # allowed: PR_SET_NAME
        # A file-system ioctl on a file opened read-only (its flags set to what they are):
        # Landlock governs ioctls on device files only.
        module = os.open(os.__file__, os.O_RDONLY)
        flags = ctypes.c_long(0)
        for command in (0x80086601, 0x40086602):  # FS_IOC_GETFLAGS, FS_IOC_SETFLAGS
            found.append(_try(lambda: (libc.ioctl(module, command, ctypes.byref(flags)),
                                       ctypes.get_errno())))
        found.append(_try(lambda: (libc.ioctl(1, 0x5401, ctypes.byref(flags)),
                                   ctypes.get_errno())))  # TCGETS: allowed (not a terminal)
        import fcntl
        _, pipe = os.pipe()
        found.append(_try(lambda: fcntl.fcntl(pipe, 1031, 1 << 20)))  # F_SETPIPE_SZ
        found.append(_try(lambda: fcntl.fcntl(pipe, 8, 1)))  # F_SETOWN
        found.append(_try(lambda: fcntl.fcntl(pipe, fcntl.F_GETFL) > 0))  # allowed
        """), tmp_path))
    expected = [f"(-1, {errno})" for *_, errno in calls]
    got = attempts(output)
    wrong = {calls[i][0]: got[i] for i in range(len(calls)) if got[i] != expected[i]}
    assert not wrong, wrong
    assert got[len(calls):] == ["PermissionError[13]", "PermissionError[13]", "0", "(-1, 1)",
                                "(-1, 1)", "(-1, 25)", "PermissionError[1]",
                                "PermissionError[1]", "True"], output


@needs_sandbox
def test_strict_mode_kills_on_a_call_outside_the_allowlist(tmp_path: Path, monkeypatch) -> None:
    """The mode the honest-solution tests run in: a call outside the allowlist kills the child
    (SIGSYS) instead of failing quietly, so a library that starts needing one fails loudly."""
    monkeypatch.setenv("MINIGRAD_STRICT_SECCOMP", "1")
    output = only_01_1_lost(grade(attack(tmp_path / "work", """
        found.append(_try(lambda: (ctypes.CDLL(None).sync(), 0)))
        """), tmp_path))
    assert "SIGSYS" in output, output


@needs_sandbox
def test_honest_heavy_code_runs_under_the_strict_filter(tmp_path: Path, monkeypatch) -> None:
    """Threads, a thread pool, numpy's linear algebra and FFT, minigrad's numba conv and pool
    kernels forward and backward, a freshly jitted numba function, files in its folder, sleep,
    printing: all within the allowlist (strict mode: any other call would kill the child)."""
    monkeypatch.setenv("MINIGRAD_STRICT_SECCOMP", "1")
    path = tmp_path / "honest" / FILE01
    path.parent.mkdir()
    path.write_text(python_file_text(LESSON01, solutions=True) + """

_reference = composite_derivative


def composite_derivative(x):
    import concurrent.futures, gc, os, pickle, tempfile, threading, time
    import numba
    import numpy as np
    import minigrad as mg
    import minigrad.nn.functional as F
    out = []
    worker = threading.Thread(target=lambda: out.append(np.linalg.inv(np.eye(50) * 2).sum()))
    worker.start(); worker.join()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        out += list(pool.map(lambda v: v * 2, range(8)))
    rng = np.random.default_rng(0)
    a = mg.Tensor(rng.standard_normal((2, 3, 12, 12)), requires_grad=True)
    w = mg.Tensor(rng.standard_normal((4, 3, 3, 3)), requires_grad=True)
    F.max_pool2d(F.conv2d(a, w, padding=1), 2).sum().backward()
    big = np.ones((1500, 1500)); big @ big[:, :10]; del big; gc.collect()
    np.linalg.svd(rng.random((60, 40))); np.fft.fft(np.arange(64.0))
    with open("scratch.bin", "wb") as handle:
        handle.write(pickle.dumps(out))
    with tempfile.NamedTemporaryFile(dir=".") as handle:
        handle.write(b"x")
    time.sleep(0.01); print("pid", os.getpid(), time.time())
    jitted = numba.njit(lambda v: v * 3.0)
    assert jitted(1.0) == 3.0 and a.grad is not None
    return _reference(x)
""")
    table = by_exercise(grade(path, tmp_path, "--timeout", "60"))
    assert all(score == most for score, most, _ in table.values()), table
    assert KEY_LINE  # (the reference's own answer is what is returned)


def test_a_protected_folder_holding_what_the_child_needs_is_covered_around_it(
        tmp_path: Path) -> None:
    """A checkout with its virtualenv inside: the tmpfs covers every entry but the way to the
    interpreter, which the child must still reach."""
    from minigrad.grading.sandbox.runtime import hidden_paths

    checkout = tmp_path / "checkout"
    for folder in (".git", ".venv/lib", "tests"):
        (checkout / folder).mkdir(parents=True)
    (checkout / "notes.txt").write_text("x")
    (checkout / "link").symlink_to(tmp_path)
    hidden = hidden_paths([checkout], [checkout / ".venv" / "lib"])
    mine = sorted(path for path in hidden if path.startswith(str(checkout)))
    assert mine == [str(checkout / name) for name in (".git", "notes.txt", "tests")]


@needs_sandbox
def test_the_work_folder_and_rlimits_hold_what_the_readme_says(tmp_path: Path) -> None:
    """The README's table, checked from graded code: 2 048 inodes in its own folder (one is the
    folder), 256 open files, no core files, no locked memory, 4 MB per file, and no raising."""
    output = only_01_1_lost(grade(attack(tmp_path / "work", """
        import resource
        made = 0
        try:
            while made < 5000:
                open(f"f{made}", "w").close()
                made += 1
        except OSError as error:
            found.append(f"files {made} {error.errno}")
        held = []
        try:
            while len(held) < 5000:
                held.append(os.open(".", os.O_RDONLY))
        except OSError as error:
            found.append(f"descriptors {len(held) + 5} {error.errno}")  # 0-4 were open
        for fd in held:
            os.close(fd)
        found.append(repr([resource.getrlimit(getattr(resource, name)) for name in
                           ("RLIMIT_CORE", "RLIMIT_MEMLOCK", "RLIMIT_FSIZE", "RLIMIT_NOFILE")]))
        found.append(_try(lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (257, 257))))
        """), tmp_path))
    assert attempts(output) == [
        "files 2047 28", "descriptors 256 24",  # ENOSPC, EMFILE
        "[(0, 0), (0, 0), (4000000, 4000000), (256, 256)]", "ValueError"], output
