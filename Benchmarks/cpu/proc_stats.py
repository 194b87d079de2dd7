"""What a server process tree spent, read from /proc (Benchmarks/cpu/bench_cpu.py): its processes,
their CPU time and how often their threads slept waiting for work."""
import os


def tree_pids(root):
    """root and every descendant (nginx's workers, anything h2o forks)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        todo.extend(children.get(pid, []))
    return pids


def usage(root):
    """(utime, stime, voluntary context switches, ticks per thread) of root and its descendants,
    from one walk of the process tree."""
    pids = tree_pids(root)
    return (*cpu_ticks(root, pids), voluntary_switches(pids), thread_ticks(pids))


def tasks_of(pids):
    """(pid, tid) of every thread of `pids` still running."""
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            yield pid, int(task)


def thread_ticks(pids):
    """utime+stime of every thread of `pids`, by (pid, tid)."""
    ticks = {}
    for pid, task in tasks_of(pids):
        try:
            with open(f"/proc/{pid}/task/{task}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks[pid, task] = int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return ticks


def busy_threads(before, after, share=0.1):
    """How many threads did at least `share` of the work between two `thread_ticks` readings:
    1 when one event loop (or nginx worker) carried every connection, 2 when they were split."""
    spent = {key: after[key] - before.get(key, 0) for key in after}
    total = sum(spent.values())
    return sum(1 for value in spent.values() if total and value >= share * total)


def cpu_ticks(root, pids):
    """(utime, stime) of `pids` (root and its descendants: all threads, exited ones too), plus the
    cutime and cstime root reaped (a worker that exited during the run)."""
    user = system = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        user += int(fields[11])
        system += int(fields[12])
        if pid == root:
            user += int(fields[13])
            system += int(fields[14])
    return user, system


def voluntary_switches(pids):
    """Voluntary context switches of every thread of `pids`: how often the server's threads went
    to sleep waiting for work (an event loop that always has a ready socket never does)."""
    total = 0
    for pid, task in tasks_of(pids):
        try:
            with open(f"/proc/{pid}/task/{task}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total
