"""What Gemini CLI (0.61) writes in place of an `@path` import reference when it inlines a
context file's imports (its `processImports`, tree format), so the reported bytes are the
bytes it sends. Every outcome leaves text: the imported file between two comments, or a
comment saying why nothing was imported. Node's own error message goes into the comment of
an import that cannot be read, with the absolute path the CLI tried.
"""

from __future__ import annotations

import errno
import os
import stat

#: libuv's wording of the errors reading an import can meet (Node puts it in `error.message`).
_UV_MESSAGES = {
    "ENOENT": "no such file or directory", "ENOTDIR": "not a directory", "EACCES": "permission denied",
    "EPERM": "operation not permitted", "ELOOP": "too many symbolic links encountered",
    "ENAMETOOLONG": "name too long",
}


def imported(ref: str) -> str:
    """The comments around an imported file's text (the text itself counts as that file's)."""
    return f"<!-- Imported from: {ref} -->\n\n<!-- End of import from: {ref} -->"


def outside(ref: str) -> str:
    """A URL, or a path resolving outside the importing file's project root."""
    return f"<!-- Import failed: {ref} - Path traversal attempt -->"


def repeated(ref: str) -> str:
    """A file already imported on the way down to this one (an import cycle)."""
    return f"<!-- File already processed: {ref} -->"


def unreadable(ref: str, full_path: str) -> str | None:
    """The comment for an import the CLI cannot read, or None when it can: `fs.access` then
    `fs.readFile`, each failing with Node's message."""
    try:
        info = os.stat(full_path)
    except OSError as error:
        return _failed(ref, _node_message(error, "access", full_path))
    if stat.S_ISDIR(info.st_mode):
        return _failed(ref, "EISDIR: illegal operation on a directory, read")
    try:
        with open(full_path, "rb"):
            return None
    except OSError as error:
        return _failed(ref, _node_message(error, "open", full_path))


def _failed(ref: str, message: str) -> str:
    return f"<!-- Import failed: {ref} - {message} -->"


def _node_message(error: OSError, syscall: str, full_path: str) -> str:
    code = errno.errorcode.get(error.errno or 0, "UNKNOWN")
    # An errno outside the table: the C library's wording, lower-cased like libuv's.
    text = _UV_MESSAGES.get(code) or (error.strerror or "unknown error").lower()
    return f"{code}: {text}, {syscall} '{full_path}'"
