"""Marks for texts the window translates but the core (which knows nothing of Qt) defines.

``QT_TRANSLATE_NOOP(context, text)`` returns ``text`` unchanged; Qt's ``lupdate`` finds the
call and puts the text in the translation file under ``context``, and the window shows it with
``QCoreApplication.translate(context, text)``. The command line prints the English text.
"""

from __future__ import annotations

__all__ = ["QT_TRANSLATE_NOOP", "REASONS_CONTEXT"]

#: The translation context of refusal reasons (URLs, scope, hub lines).
REASONS_CONTEXT = "reasons"


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """``text``, marked for translation in ``context`` (see the module docstring)."""
    del context
    return text
