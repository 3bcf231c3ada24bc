"""The exit codes of the headless commands, in one place (what each means: the package
docstring and the README's table)."""

from __future__ import annotations

EXIT_ERROR, EXIT_USAGE, EXIT_IN_USE, EXIT_CORRUPT, EXIT_ABORTED = 1, 2, 3, 4, 130
