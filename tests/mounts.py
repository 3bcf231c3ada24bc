"""A tmpfs mounted for a test (root only): a small disk to fill, or a folder even root cannot
write into."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def tmpfs(where: Path, options: str) -> Iterator[Path]:
    """Mount a tmpfs with ``options`` on the folder ``where`` until the block ends; skips the
    test where mounting is not allowed (not root, or a container without the capability)."""
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


@contextlib.contextmanager
def read_only(where: Path) -> Iterator[Path]:
    """The tmpfs mounted on ``where`` (by :func:`tmpfs`) made read-only until the block ends,
    its files as they were: a read-only disk, which root cannot write either."""
    subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
    try:
        yield where
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(where)], check=True)
