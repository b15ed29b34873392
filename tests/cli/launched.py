"""Finds the processes a launcher (mpirun) started: shared by tests/cli/interrupt.py and
bench/soak, which signal and measure them directly (Python 3 standard library only)."""

import os


def processes_running(pid, binary):
    """The processes below pid running binary, in pid order. Any thread of the launcher may
    have started them, so every task's children are read (/proc/PID/task/*/children)."""
    binary = os.path.realpath(binary)
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            continue
        try:
            if p != pid and os.path.realpath(os.readlink(f"/proc/{p}/exe")) == binary:
                found.append(p)
        except OSError:
            pass
    return sorted(found)
