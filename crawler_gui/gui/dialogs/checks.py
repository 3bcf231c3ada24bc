"""What the seeds and hubs dialogs share: a refusal's sentence in the window's language and the
three-column table model their checked lines are shown in."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)

from crawler_gui.core.hublist import REASON_TEXT
from crawler_gui.core.i18n import REASONS_CONTEXT
from crawler_gui.core.urls import REASONS
from crawler_gui.engine.scope import REASONS as SCOPE_REASONS

_Index = QModelIndex | QPersistentModelIndex


def reason_text(reason: str) -> str:
    """The sentence for a refusal reason code, in the window's language."""
    text = REASON_TEXT.get(reason) or REASONS.get(reason) or SCOPE_REASONS.get(reason)
    return QCoreApplication.translate(REASONS_CONTEXT, text) if text else reason


class ThreeColumnModel(QAbstractTableModel):
    """The plumbing of the dialogs' small tables: three columns over ``self._rows``, with
    ``self._headers``; read-only rows unless a subclass says otherwise."""

    _rows: list[Any]
    _headers: tuple[str, str, str]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 3

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < 3
        ):
            return self._headers[section]
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemNeverHasChildren
        )
