"""Directories an agent wrote, made safe to reset or remove: nothing it made is followed.

An agent can leave a symlink where git or the harness expects a directory (`.git`, `src`), a
named pipe that blocks whoever opens it, a socket, a device node, or a directory locked with
`chmod 000`. Git's own reset does not follow links in tracked paths, but it never removes a
FIFO or socket (it does not see them) and the harness writes `.git` itself. So before a
workspace is reset this removes what git would keep or the harness would follow, walking with
`lstat` only (no link is ever opened) and with an explicit stack (no recursion limit).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

#: Owner permissions a directory needs to be listed and emptied by the runner.
_OWNER_ALL = stat.S_IRWXU


def sweep(root: Path) -> int:
    """Remove from `root` every symlink, FIFO, socket and device node, and `.git` whatever it is;
    give every directory back its owner's rwx. Returns how many entries were removed."""
    if not stat.S_ISDIR(os.lstat(root).st_mode):
        raise NotADirectoryError(f"{root}: not a directory")  # the caller rebuilds it
    removed = 0
    dot_git = root / ".git"
    if os.path.lexists(dot_git):
        remove(dot_git)
        removed += 1
    pending = [str(root)]
    while pending:
        directory = pending.pop()
        with os.scandir(directory) as entries:
            listed = list(entries)
        for entry in listed:
            if entry.is_dir(follow_symlinks=False):
                _unlock(entry)
                pending.append(entry.path)
            elif not entry.is_file(follow_symlinks=False):  # a symlink, FIFO, socket or device
                os.unlink(entry.path)
                removed += 1
    return removed


def remove(path: Path) -> None:
    """Remove `path` whatever it is (directory, file, link, FIFO), following no link, even when
    the agent locked directories inside it."""
    if not os.path.lexists(path):
        return
    if not stat.S_ISDIR(os.lstat(path).st_mode):
        os.unlink(path)
        return
    pending = [str(path)]
    os.chmod(path, os.lstat(path).st_mode | _OWNER_ALL)
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    _unlock(entry)
                    pending.append(entry.path)
    shutil.rmtree(path)  # its fd-based walk never follows a link


def _unlock(entry: os.DirEntry) -> None:
    mode = entry.stat(follow_symlinks=False).st_mode
    if mode & _OWNER_ALL != _OWNER_ALL:
        # Through a descriptor opened without following links (chmod by name would follow one
        # swapped in since the listing); O_PATH needs no permission on the directory itself.
        fd = os.open(entry.path, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            os.chmod(f"/proc/self/fd/{fd}", mode | _OWNER_ALL)
        finally:
            os.close(fd)
