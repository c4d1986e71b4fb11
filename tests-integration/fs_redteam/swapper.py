"""Red-team helper process: swap pairs of directory entries as fast as it can.

Usage: ``python swapper.py --mode exchange|dance --seconds S --ready FILE A1 B1 [A2 B2 ...]``

In each pair ``A`` is a real directory (or file) inside the workspace and ``B`` the bait: a
symlink to a place outside it, or a FIFO. ``exchange`` swaps the two names atomically with
``renameat2(RENAME_EXCHANGE)`` (the path always exists, alternately real and bait); ``dance``
does it with three ``os.rename`` calls through a stash name (the path is briefly missing).

The attack keeps going whatever the tools do: when a tool renames a regular file over the bait
(an atomic write), the bait is made again; when a tool creates ``A`` again while it is missing
(``mkdir`` of a parent during the dance), that new entry is thrown away. The loop runs until
``S`` seconds have passed or SIGTERM arrives, then puts every pair back (``A`` real, ``B`` the
bait) and prints ``{"swaps": n, "rebaits": m, "evicted": k}``. ``FILE`` is written once the
loop is about to start.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import shutil
import signal
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path

AT_FDCWD = -100
RENAME_EXCHANGE = 2


@dataclass(kw_only=True, slots=True)
class Pair:
    real: str
    bait: str
    link_target: str | None  # None: the bait is a FIFO

    def is_bait(self, path: str) -> bool:
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return False
        return stat.S_ISLNK(mode) if self.link_target is not None else stat.S_ISFIFO(mode)

    def make_bait(self, path: str) -> None:
        if self.link_target is not None:
            os.symlink(self.link_target, path)
        else:
            os.mkfifo(path, 0o600)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("exchange", "dance"), required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--ready", required=True)
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    paths: list[str] = args.paths
    if len(paths) % 2:
        parser.error("paths come in pairs")
    pairs = [
        Pair(real=a, bait=b, link_target=os.readlink(b) if os.path.islink(b) else None)
        for a, b in zip(paths[0::2], paths[1::2], strict=True)
    ]
    libc = ctypes.CDLL(None, use_errno=True)
    mode: str = args.mode
    counts = {"swaps": 0, "rebaits": 0, "evicted": 0}

    def exchange(a: str, b: str) -> None:
        if libc.renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE):
            error = ctypes.get_errno()
            raise OSError(error, os.strerror(error), a)

    def evict(path: str) -> None:
        """A tool made ``path`` again while the pair was mid-dance: throw it away (the tool
        may still be writing into it, hence no error is fatal here)."""
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        counts["evicted"] += 1

    def dance(a: str, b: str) -> None:
        stash = a + ".stash"
        os.rename(a, stash)
        for _attempt in range(1000):
            try:
                os.rename(b, a)
                break
            except OSError:
                if not os.path.lexists(b):
                    raise
                evict(a)
        else:
            raise RuntimeError(f"could not move {b} to {a}: a tool keeps making it")
        os.rename(stash, b)

    swap = exchange if mode == "exchange" else dance

    def rebait(pair: Pair) -> None:
        """Neither name holds the bait any more (a tool renamed a regular file over it)."""
        if pair.is_bait(pair.real) or pair.is_bait(pair.bait):
            return
        if os.path.lexists(pair.bait):
            os.unlink(pair.bait)
        pair.make_bait(pair.bait)
        counts["rebaits"] += 1

    stop = False

    def on_term(_signum: int, _frame: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, on_term)
    Path(args.ready).write_text(str(os.getpid()))
    end = time.monotonic() + float(args.seconds)
    while not stop and time.monotonic() < end:
        for pair in pairs:
            try:
                swap(pair.real, pair.bait)
                counts["swaps"] += 1
            except FileNotFoundError:
                pass
            rebait(pair)
    for pair in pairs:
        rebait(pair)
        if pair.is_bait(pair.real):
            swap(pair.real, pair.bait)
    sys.stdout.write(json.dumps(counts) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
