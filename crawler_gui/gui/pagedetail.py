"""The Page detail window: everything the crawl knows of one fetch, read-only.

The data is read from the page store in a worker thread (:func:`load_page`) and handed to the
dialog as plain values. The body is shown as plain text, decoded as the crawl decoded it: it is
never rendered, so no script, style or remote resource of the page is ever run or loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from crawler_gui.engine.decode import decode_body
from crawler_gui.engine.store import PageRecord, PageStore
from crawler_gui.gui import fmt

__all__ = ["BODY_CHARS", "PageDetailDialog", "PageView", "load_page"]

#: Characters of the body shown (a bigger body is cut, and says so).
BODY_CHARS = 2_000_000


@dataclass(frozen=True, slots=True)
class PageView:
    """One fetch as the dialog shows it."""

    seq: int
    record: PageRecord
    detail: dict[str, Any] | None  #: None: not recorded (a page stored before schema 4)
    extraction: dict[str, Any] | None
    referrers: list[str]  #: URLs of stored pages that link here (newest first)
    body_text: str | None  #: None: the body was not stored


def load_page(store: PageStore, seq: int) -> PageView | None:
    """Read one fetch and what links to it (worker thread)."""
    record = store.record_at(seq)
    if record is None:
        return None
    referrers: list[str] = []
    seen: set[str] = set()
    for url in {record.url, record.final_url}:
        for ref_seq in store.referrers(url):
            ref = store.record_at(ref_seq, with_body=False)
            if ref is not None and ref.final_url not in seen:
                seen.add(ref.final_url)
                referrers.append(ref.final_url)
    body = record.body
    if body is None and store.store_bodies:
        # A hub refreshed with the same body again: the body it had then is an earlier one.
        body = store.hub_body_as_of(record.url, seq)
    body_text = None
    if body is not None:
        text, _enc = decode_body(body, record.content_type)
        body_text = text
    return PageView(
        seq=seq,
        record=record,
        detail=store.detail(seq),
        extraction=store.extraction(seq),
        referrers=referrers,
        body_text=body_text,
    )


class PageDetailDialog(QDialog):
    """Tabs: Summary, Headers, Redirects, Article, Out-links, Linked from, Body."""

    def __init__(self, page: PageView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("page-detail")
        self.page = page
        r = page.record
        self.setWindowTitle(r.title or r.final_url)
        self.resize(860, 620)
        not_recorded = self.tr("not recorded (stored before this version)")
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("page-detail-tabs")

        # Summary
        summary = QWidget(self)
        form = QFormLayout(summary)
        decided = (page.detail or {}).get("decided_by", "")
        encoding = r.encoding or "—"
        if page.detail is None:
            encoding += " · " + not_recorded
        elif decided:
            encoding += " · " + self.decided_text(decided)
        kind = (page.extraction or {}).get("kind") or self.tr("not extracted")
        rows = [
            (self.tr("URL"), r.url),
            (self.tr("Final URL"), r.final_url),
            (self.tr("Status"), str(r.status)),
            (self.tr("Fetched"), fmt.clock(r.fetched_at)),
            (self.tr("Response time"), fmt.seconds(r.elapsed)),
            (self.tr("Size"), fmt.data_size(r.size)),
            (self.tr("Depth"), str(r.depth)),
            (self.tr("Content type"), r.content_type or "—"),
            (self.tr("Encoding"), encoding),
            (self.tr("Kind"), str(kind)),
            (self.tr("Found on"), r.referrer or "—"),
        ]
        self.fields: dict[str, QLabel] = {}
        for name, value in rows:
            label = QLabel(value, summary)
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setWordWrap(True)
            form.addRow(name, label)
            self.fields[name] = label
        self.tabs.addTab(summary, self.tr("Summary"))

        # Headers
        self.headers = self._text_tab("page-headers")
        if page.detail is None:
            self.headers.setPlainText(not_recorded)
        else:
            lines = [self.tr("Request")]
            lines += [f"{k}: {v}" for k, v in page.detail.get("request_headers", [])]
            lines += ["", self.tr("Response")]
            lines += [f"{k}: {v}" for k, v in page.detail.get("response_headers", [])]
            self.headers.setPlainText("\n".join(lines))
        self.tabs.addTab(self.headers, self.tr("Headers"))

        # Redirects
        self.redirects = self._text_tab("page-redirects")
        if r.redirect_chain:
            chain = [f"{status}  {url}" for url, status in r.redirect_chain]
            chain.append(f"{r.status}  {r.final_url}")
            self.redirects.setPlainText("\n".join(chain))
        else:
            self.redirects.setPlainText(self.tr("No redirect."))
        self.tabs.addTab(self.redirects, self.tr("Redirects"))

        # Article
        self.article = self._text_tab("page-article")
        art = (page.extraction or {}).get("article")
        if isinstance(art, dict):
            head = [str(art.get("title") or "")]
            if art.get("published"):
                head.append(self.tr("Published") + ": " + str(art["published"]))
            kind = str((page.extraction or {}).get("kind") or "")
            if kind and kind != "article":
                # (Its content is kept; the judgement says it is not an article.)
                head.append(self.tr("Not judged an article: %1").replace("%1", kind))
            self.article.setPlainText("\n".join(head) + "\n\n" + str(art.get("text") or ""))
        elif page.extraction is None:
            self.article.setPlainText(self.tr("Not extracted."))
        else:
            why = str(page.extraction.get("why") or "")
            self.article.setPlainText(self.tr("Not an article.") + (f" ({why})" if why else ""))
        self.tabs.addTab(self.article, self.tr("Article"))

        # Out-links
        links_tab = QWidget(self)
        links_lay = QVBoxLayout(links_tab)
        self.links_note = QLabel(links_tab)
        self.links_note.setTextFormat(Qt.TextFormat.PlainText)
        self.links = QTableWidget(0, 3, links_tab)
        self.links.setObjectName("page-links")
        self.links.setHorizontalHeaderLabels(
            [self.tr("URL"), self.tr("What happened"), self.tr("Why")]
        )
        self.links.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.links.verticalHeader().setVisible(False)
        self.links.horizontalHeader().setStretchLastSection(True)
        self.links.setColumnWidth(0, 420)
        if page.detail is None:
            self.links_note.setText(not_recorded)
        else:
            items = page.detail.get("links", [])
            total = int(page.detail.get("links_total", len(items)))
            self.links.setRowCount(len(items))
            for i, (url, outcome, why) in enumerate(items):
                for c, text in enumerate((url, self.outcome_text(outcome), why)):
                    self.links.setItem(i, c, QTableWidgetItem(text))
            note = self.tr("%1 links").replace("%1", fmt.count(total))
            if total > len(items):
                note += " · " + self.tr("the first %1 are listed").replace(
                    "%1", fmt.count(len(items))
                )
            self.links_note.setText(note)
        links_lay.addWidget(self.links_note)
        links_lay.addWidget(self.links, 1)
        self.tabs.addTab(links_tab, self.tr("Out-links"))

        # Linked from
        self.referrers = QListWidget(self)
        self.referrers.setObjectName("page-referrers")
        self.referrers.addItems(page.referrers)
        if not page.referrers:
            self.referrers.addItem(self.tr("No stored page links here (or not recorded)."))
        self.tabs.addTab(self.referrers, self.tr("Linked from"))

        # Body
        self.body = self._text_tab("page-body")
        if page.body_text is None:
            self.body.setPlainText(self.tr("The body was not stored."))
        elif len(page.body_text) > BODY_CHARS:
            self.body.setPlainText(
                page.body_text[:BODY_CHARS] + "\n\n" + self.tr("(cut: the body is longer)")
            )
        else:
            self.body.setPlainText(page.body_text)
        self.tabs.addTab(self.body, self.tr("Body"))

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.open_button = QPushButton(self.tr("Open in browser"), self)
        self.open_button.setObjectName("page-open")
        target = fmt.web_url(r.final_url)  # http(s) only
        self.open_button.setEnabled(target is not None)
        if target is not None:
            self.open_button.clicked.connect(lambda: QDesktopServices.openUrl(target))
        self.copy_button = QPushButton(self.tr("Copy URL"), self)
        self.copy_button.setObjectName("page-copy")
        self.copy_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(r.final_url))
        buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs, 1)
        lay.addWidget(buttons)

    def _text_tab(self, name: str) -> QPlainTextEdit:
        edit = QPlainTextEdit(self)
        edit.setObjectName(name)
        edit.setReadOnly(True)
        edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        return edit

    def decided_text(self, how: str) -> str:
        return {
            "empty": self.tr("empty body"),
            "ascii": self.tr("plain ASCII"),
            "header": self.tr("from the HTTP Content-Type header"),
            "bom": self.tr("from a byte-order mark"),
            "meta": self.tr("from the <meta> tag"),
            "utf-8": self.tr("valid UTF-8"),
            "guess": self.tr("guessed from the bytes"),
            "fallback": self.tr("nothing fit: UTF-8 with replacements"),
        }.get(how, how)

    def outcome_text(self, outcome: str) -> str:
        return {
            "queued": self.tr("queued"),
            "known": self.tr("already known"),
            "queued_or_known": self.tr("queued or already known"),
            "off_scope": self.tr("off-scope"),
            "refused": self.tr("refused"),
            "robots": self.tr("disallowed by robots.txt"),
            "not_followed": self.tr("not followed (depth limit)"),
        }.get(outcome, outcome)
