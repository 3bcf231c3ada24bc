"""The local control channel of a headless crawl: watch and steer ``crawler-gui crawl`` from
the window (``crawler-gui POOL``) or ``crawler-gui stats POOL`` while it runs.

A LevelDB pool can be open in one process only, so a second process cannot read it while a
crawl runs. Instead the crawl serves its pool and run control on a Unix domain socket
(:class:`ControlServer`), and the window talks to it through :class:`AttachedSession`, which
offers the same surface as a local :class:`~crawler_gui.engine.session.CrawlSession`
(``frontier.snapshot``, ``crawler.stats``, pause/resume/stop, seeds, hubs, settings, snapshot
save): the window has one code path for both.

Safety:

* the socket lives in the pool folder (``control.sock``), or, when that path is too long for
  ``sun_path`` (about 100 bytes), in a private runtime folder (``$XDG_RUNTIME_DIR`` or the temp
  folder, ``crawler-gui-<uid>/``, mode 0700) with a pointer file ``control.json`` in the pool
  folder;
* the socket is created with mode 0600 and the server checks each peer's uid with
  ``SO_PEERCRED`` (the client checks the server's the same way); there is no network listener;
* the protocol is JSON lines of plain data (``docs/control.md``): nothing is ever unpickled;
* every client has a bounded send queue: a client that does not read its replies is dropped,
  never waited for, so a frozen window cannot slow the crawl.

A socket left behind by a killed crawl is stale: whoever opens the pool itself (the next
crawl, a window, ``stats``) holds the pool's lock, knows no crawl serves it, and removes it.

The parts: ``wire.py`` (the protocol's constants, errors and JSON lines of plain data, shared
by both ends), ``address.py`` (where the socket is, stale sockets, the peer's uid),
``server.py`` (:class:`ControlServer`, in the crawl), ``client.py`` (:class:`ControlClient` and
the one-call reads of ``stats`` and ``report``) and ``attached.py`` (:class:`AttachedSession`:
the window's session over a client).
"""
