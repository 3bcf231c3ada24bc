"""Shared test configuration: strict about leftovers."""

from __future__ import annotations

import os

# Qt, if any test imports it, never needs a screen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
