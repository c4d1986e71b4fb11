"""Attacker-side instruments for the file-tool and store red-team suites
(``test_fs_redteam.py``, ``test_store_redteam.py``).

Nothing here knows how the tools or stores are built: :mod:`fs_redteam.kit` watches a
directory tree from the kernel's side (inotify), takes byte-exact snapshots of it and frees
anything blocked on a FIFO; :mod:`fs_redteam.swapper` is the helper process that swaps
directory entries for symlinks in a tight loop; :mod:`fs_redteam.device_probe` runs the file
tools on device nodes in a child process with a memory limit.
"""
