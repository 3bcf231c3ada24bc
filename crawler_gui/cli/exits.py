"""The exit codes of the headless commands (one place; the package docstring says what each
means, and ``docs/server.md`` and the README list them for operators)."""

from __future__ import annotations

EXIT_ERROR, EXIT_USAGE, EXIT_IN_USE, EXIT_CORRUPT, EXIT_ABORTED = 1, 2, 3, 4, 130
