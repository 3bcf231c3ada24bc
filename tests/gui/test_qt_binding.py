"""The Qt binding itself: PySide6 6.12.0 drops a reference to None on every widget repaint
(on Python 3.11, where None is not immortal), so a window that stays open crashes with
"Fatal Python error: none_dealloc" after some thousands of paints: an attached window in
minutes. pyproject.toml excludes that version; this test catches any other that does it."""

from __future__ import annotations

import sys

import pytest
from PySide6.QtWidgets import QWidget

pytestmark = pytest.mark.gui


def test_repainting_a_widget_keeps_the_references_to_none(qapp):
    widget = QWidget()
    widget.resize(50, 50)
    widget.show()
    try:
        before = sys.getrefcount(None)
        for _ in range(2000):
            widget.repaint()
        lost = before - sys.getrefcount(None)
        assert lost < 200, f"{lost} references to None lost in 2000 repaints"
    finally:
        widget.close()
        widget.deleteLater()
