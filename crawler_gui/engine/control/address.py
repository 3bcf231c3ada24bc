"""Where the control socket of a pool's crawl is: in the pool folder, or (a path too long for
``sun_path``) in a private runtime folder with a pointer file in the pool folder; stale sockets
of killed crawls; the uid of the process at the other end."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import socket
import struct
import tempfile
from pathlib import Path

from crawler_gui.engine.control.wire import ControlError

log = logging.getLogger(__name__)

SOCKET_NAME = "control.sock"
POINTER_NAME = "control.json"
#: Longest socket path used in the pool folder (``sun_path`` is 108 bytes on Linux, 104 on
#: the BSDs, with the final NUL): longer ones go to the runtime folder.
MAX_SOCKET_PATH = 100


def _runtime_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR") or ""
    root = Path(base) if base and Path(base).is_dir() else Path(tempfile.gettempdir())
    return root / f"crawler-gui-{os.geteuid()}"


def private_dir(path: Path) -> Path:
    """The runtime folder: created 0700, and refused unless it is ours and private."""
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700, parents=True)
    st = path.lstat()
    if not path.is_dir() or path.is_symlink() or st.st_uid != os.geteuid() or st.st_mode & 0o077:
        raise ControlError(f"{path} is not a private folder of this user; not using it")
    return path


def socket_path(pool_dir: Path) -> Path:
    """Where the crawl of ``pool_dir`` puts its socket: in the pool folder when the path is
    short enough, else in the runtime folder (named by a hash of the pool's path)."""
    root = pool_dir.expanduser().absolute()
    here = root / SOCKET_NAME
    if len(os.fsencode(here)) <= MAX_SOCKET_PATH:
        return here
    return _runtime_dir() / _runtime_name(root)


def _runtime_name(root: Path) -> str:
    return hashlib.sha256(os.fsencode(root)).hexdigest()[:24] + ".sock"


def find_socket(pool_dir: Path) -> Path | None:
    """The socket a crawl of ``pool_dir`` announced (in the folder, or through the pointer
    file), or None."""
    root = pool_dir.expanduser().absolute()
    here = root / SOCKET_NAME
    if here.is_socket():
        return here
    with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
        data = json.loads((root / POINTER_NAME).read_text(encoding="utf-8"))
        there = Path(str(data["socket"]))
        # Only a socket named for this pool in a runtime folder of this user (the crawl may
        # have had another $XDG_RUNTIME_DIR): a pointer never leads anywhere else.
        if (
            there.is_absolute()
            and there.name == _runtime_name(root)
            and there.parent.name == f"crawler-gui-{os.geteuid()}"
            and there.is_socket()
        ):
            return there
    return None


def remove_stale(pool_dir: Path) -> bool:
    """Remove the socket (and pointer) of a crawl that no longer runs. Call it only while
    holding the pool open: then no crawl can be serving it. True when something was removed."""
    root = pool_dir.expanduser().absolute()
    removed = False
    for candidate in (find_socket(root), root / SOCKET_NAME, root / POINTER_NAME):
        if candidate is not None and (candidate.is_socket() or candidate.name == POINTER_NAME):
            with contextlib.suppress(FileNotFoundError):
                candidate.unlink()
                removed = True
    if removed:
        log.info("removed the stale control socket of %s (its crawl is gone)", root)
    return removed


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket (Linux ``SO_PEERCRED``)."""
    opt = getattr(socket, "SO_PEERCRED", None)
    if opt is None:  # pragma: no cover - not Linux
        return None
    creds = sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])
