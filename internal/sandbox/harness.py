# goeval's sandbox harness (internal/sandbox): runs one generated program
# the way lm-eval's code_eval metric does (exec in a fresh namespace, output
# swallowed, a wall-clock alarm, destructive functions disabled), after
# confining the process: mounts (in namespace mode), rlimits, Landlock,
# capabilities dropped, and last the seccomp filter the Go side sends.
#
# argv[1]: JSON settings. stdin: the program (UTF-8). fd 3: the result, one
# JSON object. fd 4: the seccomp filter (struct sock_filter array, may be
# empty). This file is trusted code; everything after exec() is not.
import builtins
import contextlib
import ctypes
import faulthandler
import io
import json
import os
import resource
import signal
import struct
import sys

RESULT_FD, FILTER_FD = 3, 4
applied = []
notes = []

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
PR_SET_DUMPABLE = 4
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 16384, 1 << 18
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY, MOUNT_ATTR_NOSUID, MOUNT_ATTR_NODEV = 0x1, 0x2, 0x4


def errno_text():
    return os.strerror(ctypes.get_errno())


def mount(src, target, fstype, flags, data):
    enc = lambda s: None if s is None else s.encode()  # noqa: E731
    if libc.mount(enc(src), enc(target), enc(fstype), flags, enc(data)) != 0:
        raise OSError(ctypes.get_errno(), f"mount {target}: {errno_text()}")


def confine_mounts(cfg):
    """Namespace mode (uid 0 of a fresh user namespace): every mount
    private and read-only, a fresh tmpfs at /tmp (the program's only
    writable place), a fresh /proc for the new pid namespace."""
    mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    attr = struct.pack("QQQQ", MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0, 0)
    buf = ctypes.create_string_buffer(attr)
    if libc.syscall(cfg["nr"]["mount_setattr"], -100, b"/", AT_RECURSIVE, buf, len(attr)) == 0:
        applied.append("read-only mounts")
    else:
        notes.append(f"mount_setattr: {errno_text()}: the host's mounts stay writable where the uid may write")
    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={cfg['tmpfs_bytes']},mode=1777")
    applied.append("tmpfs /tmp")
    try:
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
        applied.append("own /proc")
    except OSError as e:
        notes.append(f"{e}: the host's /proc stays visible")


def set_limits(lim):
    for name, value in lim.items():
        res = getattr(resource, "RLIMIT_" + name.upper())
        soft, hard = (value, value + 1) if name == "cpu" else (value, value)
        resource.setrlimit(res, (soft, hard))
    applied.append("rlimits")


# Landlock: what the program may read (beneath read roots) and write
# (beneath the work folder); TCP, abstract sockets and signals outside
# the sandbox are denied where the kernel's ABI has them.
LL_READ = 1 | 4 | 8  # execute, read_file, read_dir
LL_ABI_FS = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}


def landlock(cfg, workdir):
    nr = cfg["nr"]
    abi = libc.syscall(nr["landlock_create_ruleset"], None, 0, 1)  # LANDLOCK_CREATE_RULESET_VERSION
    if abi < 1:
        notes.append(f"landlock: {errno_text()}: reads and writes are confined by permissions only")
        return
    fs = LL_ABI_FS.get(abi, LL_ABI_FS[5])
    net = 3 if abi >= 4 else 0
    scoped = 3 if abi >= 6 else 0
    attr = struct.pack("QQQ", fs, net, scoped)[: 8 if abi < 4 else 16 if abi < 6 else 24]
    rs = libc.syscall(nr["landlock_create_ruleset"], ctypes.create_string_buffer(attr), len(attr), 0)
    if rs < 0:
        notes.append(f"landlock ruleset: {errno_text()}")
        return
    file_rights = 1 | 2 | 4 | (1 << 14 if abi >= 3 else 0)  # execute, write, read, truncate

    def allow(path, rights):
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return
        if not os.path.isdir(path):
            rights &= file_rights
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights & fs, fd))
        libc.syscall(nr["landlock_add_rule"], rs, 1, rule, 0)
        os.close(fd)

    for p in cfg["read_roots"] + sorted({os.path.realpath(x) for x in sys.path + [sys.prefix, sys.base_prefix] if x}):
        allow(p, LL_READ)
    for dev in ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"):
        allow(dev, 2 | 4)
    allow(workdir, fs)
    if libc.syscall(nr["landlock_restrict_self"], rs, 0) != 0:
        notes.append(f"landlock_restrict_self: {errno_text()}")
        return
    applied.append(f"landlock v{abi}" + (" (tcp denied)" if net else "") + (" (signals scoped)" if scoped else ""))


def drop_capabilities(cfg):
    """No capabilities left, in the user namespace either."""
    hdr = ctypes.create_string_buffer(struct.pack("Ii", 0x20080522, 0))
    data = ctypes.create_string_buffer(bytes(24))
    if libc.syscall(cfg["nr"]["capset"], hdr, data) == 0:
        applied.append("no capabilities")
    else:
        notes.append(f"capset: {errno_text()}")


def install_seccomp(filt):
    if not filt:
        notes.append("seccomp: no filter for this architecture")
        return
    n = len(filt) // 8
    prog = ctypes.create_string_buffer(filt)
    fprog = ctypes.create_string_buffer(struct.pack("HxxxxxxP", n, ctypes.addressof(prog)))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"seccomp: {errno_text()}")
    applied.append("seccomp")


def read_all(fd):
    chunks = []
    while True:
        b = os.read(fd, 65536)
        if not b:
            return b"".join(chunks)
        chunks.append(b)


# code_eval's execution, reproduced so that a program passes or fails here
# exactly when it does there.


class TimeoutException(Exception):
    pass


class WriteOnlyStringIO(io.StringIO):
    """Swallows output; reading it fails (as code_eval's)."""

    def read(self, *args, **kwargs):
        raise OSError

    def readline(self, *args, **kwargs):
        raise OSError

    def readlines(self, *args, **kwargs):
        raise OSError

    def readable(self, *args, **kwargs):
        return False


def disable_destructive():
    """The functions code_eval's reliability_guard sets to None, so a
    program that calls them fails here as it does there."""
    faulthandler.disable()
    builtins.exit = None
    builtins.quit = None
    os.environ["OMP_NUM_THREADS"] = "1"
    for name in ("kill", "system", "putenv", "remove", "removedirs", "rmdir", "fchdir", "setuid", "fork",
                 "forkpty", "killpg", "rename", "renames", "truncate", "replace", "unlink", "fchmod", "fchown",
                 "chmod", "chown", "chroot", "lchflags", "lchmod", "lchown", "getcwd", "chdir"):
        setattr(os, name, None)
    import shutil
    import subprocess

    shutil.rmtree = shutil.move = shutil.chown = None
    subprocess.Popen = None
    builtins.help = None
    for mod in ("ipdb", "joblib", "resource", "psutil", "tkinter"):
        sys.modules[mod] = None


def run_program(program, timeout):
    def alarm(signum, frame):
        raise TimeoutException("Timed out!")

    sink = WriteOnlyStringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            old_stdin, sys.stdin = sys.stdin, sink
            try:
                signal.setitimer(signal.ITIMER_REAL, timeout)
                signal.signal(signal.SIGALRM, alarm)
                try:
                    exec(program, {})
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
            finally:
                sys.stdin = old_stdin
        return "passed"
    except TimeoutException:
        return "timed out"
    except BaseException as e:  # noqa: BLE001 (as code_eval: SystemExit and KeyboardInterrupt fail too)
        return f"failed: {e}"


def main():
    cfg = json.loads(sys.argv[1])
    program = read_all(0).decode("utf-8", "surrogateescape")
    filt = read_all(FILTER_FD)
    os.close(FILTER_FD)
    write, exit_now = os.write, os._exit
    try:
        workdir = cfg["workdir"]
        if cfg["namespaces"]:
            confine_mounts(cfg)
            workdir = "/tmp"
        os.chdir(workdir)
        set_limits(cfg["limits"])
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "no_new_privs")
        landlock(cfg, workdir)
        if cfg["namespaces"]:
            drop_capabilities(cfg)
        libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
        install_seccomp(filt)
    except OSError as e:
        write(RESULT_FD, json.dumps({"error": str(e), "applied": applied, "notes": notes}).encode())
        exit_now(3)
    if cfg.get("probe"):
        write(RESULT_FD, json.dumps({"result": "passed", "applied": applied, "notes": notes}).encode())
        exit_now(0)
    disable_destructive()
    status = run_program(program, cfg["timeout"])
    write(RESULT_FD, json.dumps({"result": status}).encode())
    exit_now(0)


main()
