"""Time, injected. Everything in the core asks a :class:`Clock` instead of calling ``time``.

Times are POSIX seconds (``time.time()``), because they are persisted and must mean the
same thing after a restart.
"""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Current wall-clock time in POSIX seconds."""
        ...


class SystemClock:
    """The real clock."""

    __slots__ = ()

    def now(self) -> float:
        return time.time()


class ManualClock:
    """A clock that moves only when told to: exact tests without sleeping."""

    __slots__ = ("_t",)

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._t = float(start)

    def now(self) -> float:
        return self._t

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock does not go back")
        self._t += seconds

    def set(self, t: float) -> None:
        self._t = float(t)
