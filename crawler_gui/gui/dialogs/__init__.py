"""The window's dialogs, one module each: ``running`` opens any dialog from a coroutine (each
dialog has an async ``ask()`` classmethod built on it, so tests drive it directly),
``redis_url``, ``seeds``, ``hubs``, ``settings`` and ``article`` are the dialogs, ``checks``
what the seeds and hubs dialogs share."""
