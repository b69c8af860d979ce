"""Runs a command of a submission's grading in the sandbox of grader/class/sandbox.sh (bubblewrap: no
network, read-only but for the folders named, its own process tree; setrlimit limits), counting
its wall time here and keeping a bounded part of its output (the rest is read and dropped).

`available()` says whether a bubblewrap sandbox can be made on this machine, and why not; where
none can, `environment()` turns it off and the limits alone apply. Run as root, student code
runs as a user of its own, STUDENT (`student()` makes it), who owns nothing else on the machine.
"""
import dataclasses
import functools
import itertools
import os
import pathlib
import pwd
import selectors
import shutil
import signal
import subprocess
import threading
import time

OUTPUT_KEPT = 256 * 1024          # bytes of output kept from one command
STUDENT = "andrea-student"        # the user student code runs as, when the grader is root


SCRIPT = pathlib.Path(__file__).resolve().parent / "sandbox.sh"


@dataclasses.dataclass
class Limits:
    wall_s: float = 600.0             # the whole command
    memory_bytes: int = 8 << 30       # address space of each process
    resident_bytes: int = 0           # resident memory of all its processes together (0: not watched)
    processes: int = 64               # processes and threads
    file_bytes: int = 1 << 30         # the largest file a process may write
    tmp_bytes: int = 256 << 20        # the sandbox's private /tmp
    disk_bytes: int = 0               # bytes the watched folder may grow by (0: not watched)
    disk_files: int = 0               # files it may gain


@dataclasses.dataclass
class Result:
    returncode: int
    output: str
    timed_out: bool
    seconds: float
    output_bytes: int                 # all the command wrote, kept or not
    disk: str = ""                    # why it was stopped for what it wrote into the watched folder
    memory: str = ""                  # why it was stopped for the memory its processes held

    @property
    def flooded(self) -> bool:
        return self.output_bytes > OUTPUT_KEPT


_PROBE = None


def available() -> tuple:
    """(True, "") when a bubblewrap sandbox can be made here, else (False, the reason)."""
    global _PROBE
    if _PROBE is None:
        if not shutil.which("bwrap"):
            _PROBE = (False, "bubblewrap is not installed (apt-get install bubblewrap)")
        else:
            done = subprocess.run([str(SCRIPT), "--", "true"], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, check=False,
                                  env={**os.environ, "ANDREA_SANDBOX": "on"})
            _PROBE = (True, "") if done.returncode == 0 else (
                False, f"bubblewrap cannot make a sandbox here: {done.stdout.strip()[:200]}")
    return _PROBE


_MODE = None


def set_mode(mode: str) -> None:
    """"bwrap", "user" (no bubblewrap: the user STUDENT and the limits; what STUDENT may not read
    is the caller's to hide, by its permissions) or "off" (the limits alone)."""
    global _MODE
    _MODE = mode


def mode() -> str:
    """The sandbox in use: set_mode()'s, else bubblewrap where it works, else the limits alone."""
    return _MODE or ("bwrap" if available()[0] else "off")


_WORKER = threading.local()


def set_worker(number: int) -> None:
    """The worker of grade_class.py -P that this thread grades for (1, 2, ...). From the second
    on, student code runs as a user of that worker's own (STUDENT-2, ...): the process limit
    then counts one submission's processes, never another's graded at the same time."""
    _WORKER.number = number


def student_name() -> str:
    """STUDENT, or this thread's worker's own user (set_worker)."""
    number = getattr(_WORKER, "number", 1)
    return STUDENT if number <= 1 else f"{STUDENT}-{number}"


def student() -> tuple:
    """(uid, gid) of the user student code runs as when the grader is root (student_name()), made
    the first time (useradd --system: no home, no login shell). It owns nothing else, so the
    process limit counts the submission's processes alone, and sweep() may end every process of
    it. Raises RuntimeError, with useradd's reason, when the user cannot be made."""
    return _user(student_name())


@functools.cache
def _user(name: str) -> tuple:
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        done = subprocess.run(["useradd", "--system", "--user-group", "--no-create-home",
                               "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
                               name], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"cannot make the user {name}, whom student code runs as: "
                               f"useradd: {done.stderr.strip() or done.returncode}") from None
        entry = pwd.getpwnam(name)
    return entry.pw_uid, entry.pw_gid


def as_student() -> bool:
    """Does student code run as STUDENT? When the grader is root, in a sandbox of any kind."""
    return os.geteuid() == 0 and mode() != "off"


def environment(limits: Limits) -> dict:
    """The environment sandbox.sh reads its limits from (its children inherit it: ctest, then
    the test programs it starts through sandbox.sh), and the user it runs student code as."""
    processes = limits.processes
    if os.geteuid() != 0:  # the limit counts every process of this user, not only the sandbox's
        processes += sum(1 for p in pathlib.Path("/proc").iterdir()
                         if p.name.isdigit() and _owner(p) == os.geteuid())
    user = {}
    if as_student():
        uid, gid = student()
        user = {"ANDREA_SANDBOX_UID": str(uid), "ANDREA_SANDBOX_GID": str(gid)}
    return {**os.environ, **user, "ANDREA_SANDBOX": {"bwrap": "on"}.get(mode(), mode()),
            "ANDREA_SANDBOX_MEMORY": str(limits.memory_bytes),
            "ANDREA_SANDBOX_PROCESSES": str(processes),
            "ANDREA_SANDBOX_FILE": str(limits.file_bytes),
            "ANDREA_SANDBOX_TMP": str(limits.tmp_bytes)}


def _owner(path: pathlib.Path) -> int:
    try:
        return path.stat().st_uid
    except OSError:
        return -1


def prepare(folder: pathlib.Path) -> None:
    """Makes a folder writable inside the sandbox (owned by STUDENT when running as root)."""
    if as_student():
        uid, gid = student()
        for path in [folder, *folder.rglob("*")]:
            if not path.is_symlink():
                os.chown(path, uid, gid)


def usage(folder: pathlib.Path) -> tuple:
    """(bytes on disk, files) under folder."""
    size = files = 0
    for top, _, names in os.walk(folder):
        for name in names:
            try:
                size += os.lstat(os.path.join(top, name)).st_blocks * 512
                files += 1
            except OSError:
                pass
    return size, files


CGROUPS = pathlib.Path("/sys/fs/cgroup")
_GROUPS = itertools.count(1)


class MemoryGroup:
    """A memory cgroup of one command's student code, made by root where the kernel has the
    memory controller (cgroup v2, else v1's memory hierarchy): sandbox.sh puts each process of
    student code in it before it runs (ANDREA_SANDBOX_CGROUP), and the kernel holds them to
    `limit` bytes together, ending one of them (an OOM kill) past it, however short the burst.
    make() returns None where no such group can be made: resident() is looked at instead."""

    def __init__(self, folder: pathlib.Path, oom_file: str):
        self.folder, self.oom_file = folder, oom_file

    @staticmethod
    def make(limit: int):
        if os.geteuid() != 0:
            return None
        if "memory" in _read(CGROUPS / "cgroup.controllers").split():  # v2, one hierarchy
            parent, files = CGROUPS, {"memory.max": limit, "memory.swap.max": 0}
            _write(CGROUPS / "cgroup.subtree_control", "+memory")  # its children may have it
            oom_file = "memory.events"
        elif (CGROUPS / "memory" / "memory.limit_in_bytes").exists():  # v1
            parent, oom_file = CGROUPS / "memory", "memory.oom_control"
            files = {"memory.limit_in_bytes": limit, "memory.memsw.limit_in_bytes": limit}
        else:
            return None
        folder = parent / f"andrea-grader-{os.getpid()}-{next(_GROUPS)}"
        try:
            folder.mkdir()
        except OSError:
            return None
        for name, value in files.items():  # (memsw and swap.max: only where swap is counted)
            _write(folder / name, str(value))
        group = MemoryGroup(folder, oom_file)
        held = _read(folder / next(iter(files))).strip()  # the limit, rounded to a page
        if not held.isdigit() or int(held) >= limit + os.sysconf("SC_PAGE_SIZE"):
            group.close()
            return None
        return group

    def procs(self) -> str:
        return str(self.folder / "cgroup.procs")

    def oom_killed(self) -> bool:
        """Whether the kernel ended one of its processes for the group's limit."""
        for line in _read(self.folder / self.oom_file).splitlines():
            words = line.split()
            if len(words) == 2 and words[0] == "oom_kill":
                return words[1] != "0"
        return False

    def close(self) -> None:
        """Ends every process left in it, then removes it."""
        for _ in range(50):
            left = _read(self.folder / "cgroup.procs").split()
            if not left:
                break
            for pid in left:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (OSError, ValueError):
                    pass
            time.sleep(0.01)
        try:
            self.folder.rmdir()
        except OSError:
            pass


def _read(path: pathlib.Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _write(path: pathlib.Path, text: str) -> None:
    try:
        path.write_text(text)
    except OSError:
        pass


def run(argv: list, *, writable: list = (), limits: Limits = Limits(), cwd=None,
        sandboxed: bool = True, extra_env: dict = None, watch: pathlib.Path = None,
        watch_base: tuple = None) -> Result:
    """Runs argv in the sandbox (with the limits alone when none can be made, or not sandboxed:
    trusted commands such as cmake --build, whose compilers write anywhere), killing its
    whole process group at limits.wall_s, or when the folder watch (its build folder) grows by
    more than limits.disk_bytes or limits.disk_files since watch_base (bytes, files; default: what
    it held at the start), looked at every 2 s: no file system quota is needed; or when its
    student code's processes hold more than limits.resident_bytes of memory together
    (as root, a memory cgroup the kernel holds them to, MemoryGroup; else resident(), looked at
    every 0.5 s). Returns its status and its first OUTPUT_KEPT bytes of
    output (stdout and stderr together)."""
    command = [str(SCRIPT), *(["-n"] if not sandboxed else []),
               *[a for path in writable for a in ("-w", str(path))], "--", *argv]
    env = {**environment(limits), **(extra_env or {})}
    group = MemoryGroup.make(limits.resident_bytes) if limits.resident_bytes else None
    if group:
        env["ANDREA_SANDBOX_CGROUP"] = group.procs()
    start = time.monotonic()
    process = _start(command, cwd, env, group)
    kept, total, timed_out, disk, memory = bytearray(), 0, False, "", ""
    base = watch_base or (usage(watch) if watch else (0, 0))
    looked = weighed = start
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while True:
            left = limits.wall_s - (time.monotonic() - start)
            if left <= 0:
                timed_out = True
                break
            if watch and time.monotonic() - looked >= 2:
                looked = time.monotonic()
                size, files = usage(watch)
                disk = over(size - base[0], files - base[1], limits)
                if disk:
                    break
            if limits.resident_bytes and time.monotonic() - weighed >= 0.5:
                weighed = time.monotonic()
                if (group.oom_killed() if group else
                        resident(process.pid, trusted=not sandboxed) > limits.resident_bytes):
                    memory = (f"held more than {limits.resident_bytes >> 20:,} MiB of memory "
                              "together")
                    break
            if not selector.select(timeout=min(left, 0.5)):
                continue
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:  # every writer closed the pipe: the command has ended, or is ending
                break
            total += len(chunk)
            kept += chunk[:max(0, OUTPUT_KEPT - len(kept))]
    if not timed_out and not disk and not memory:
        try:
            process.wait(timeout=max(0.1, limits.wall_s - (time.monotonic() - start)))
        except subprocess.TimeoutExpired:
            timed_out = True
    _kill(process)  # the command's whole process group, and whatever it left behind
    if group:
        if not memory and group.oom_killed():  # ended by the kernel between two looks
            memory = f"held more than {limits.resident_bytes >> 20:,} MiB of memory together"
        group.close()
    sweep()
    returncode = process.wait()
    process.stdout.close()
    return Result(returncode, kept.decode(errors="replace"), timed_out,
                  time.monotonic() - start, total, disk, memory)


def _start(command: list, cwd, env: dict, group) -> subprocess.Popen:
    """The command in a session of its own, its output and errors on one pipe; its memory group
    removed if it cannot start."""
    try:
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, cwd=cwd, env=env, start_new_session=True)
    except OSError:
        if group:
            group.close()
        raise


def over(grown_bytes: int, new_files: int, limits: Limits) -> str:
    """Why a folder that grew this much is over the limits, or ""."""
    if limits.disk_bytes and grown_bytes > limits.disk_bytes:
        return f"wrote more than {limits.disk_bytes >> 20:,} MiB into its build folder"
    if limits.disk_files and new_files > limits.disk_files:
        return f"made more than {limits.disk_files:,} files in its build folder"
    return ""


def resident(pid: int, trusted: bool) -> int:
    """Bytes of resident memory (RSS, /proc/PID/statm) of student code started by the command
    pid: when the command is itself trusted (a test program, which starts sandboxed runners),
    only what runs below it in a sandbox; else the command and everything below it. As root,
    student code is what runs as STUDENT (below pid; in "user" mode, one submission at a time,
    every process of STUDENT: a daemon that left the tree too). Not root, under bubblewrap: the
    trees below each `bwrap` (a runner's sandbox). Shared pages count once per process that maps
    them: the sum errs high, never low."""
    parent, owner, name = {}, {}, {}
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                process = int(entry.name)
                name[process] = stat[stat.index("(") + 1:stat.rindex(")")]
                parent[process] = int(stat.rsplit(")", 1)[1].split()[1])
                owner[process] = entry.stat().st_uid
            except (OSError, IndexError, ValueError):
                pass

    def below(roots: set) -> set:
        found = set(roots)
        for _ in range(len(parent)):  # a process is below a root when its parent is
            grown = {p for p, up in parent.items() if up in found} - found
            if not grown:
                break
            found |= grown
        return found

    tree = below({pid})
    if as_student():
        uid = student()[0]
        counted = {p for p, u in owner.items() if u == uid and (mode() == "user" or p in tree)}
    elif trusted:
        counted = below({p for p in tree if name.get(p) == "bwrap"})
    else:
        counted = tree
    total = 0
    for p in counted:
        try:
            total += int(pathlib.Path(f"/proc/{p}/statm").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return total * os.sysconf("SC_PAGE_SIZE")


SWEPT = (pathlib.Path("/tmp"), pathlib.Path("/var/tmp"), pathlib.Path("/dev/shm"))


def sweep(folders=SWEPT) -> None:
    """In "user" mode (root, no bubblewrap: student code runs as the user STUDENT, one submission
    at a time), what the command left behind outside its process group: every process of
    STUDENT (a double fork and setsid() leave the group) killed, and what STUDENT made at the
    top of the shared folders (/tmp, /var/tmp, /dev/shm) removed, so that nothing of one program
    reaches the next, a hidden one included. STUDENT owns nothing else on the machine, so
    whatever it owns there was the submission's. Under bubblewrap, the sandbox's process tree
    and its /tmp end with it: nothing to do."""
    if mode() != "user" or os.geteuid() != 0:
        return
    uid = student()[0]
    for _ in range(10):  # a process may fork between the look and the kill: look again
        left = [int(p.name) for p in pathlib.Path("/proc").iterdir()
                if p.name.isdigit() and _owner(p) == uid]
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.01)
    for folder in folders:
        for path in folder.iterdir() if folder.is_dir() else []:  # dot files too
            try:
                if path.lstat().st_uid != uid:
                    continue
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink()
            except OSError:
                pass


def _kill(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
