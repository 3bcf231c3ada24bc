"""crawler-gui: a desktop crawl monitor for long-running, polite news crawls."""

__version__ = "0.1.0"
