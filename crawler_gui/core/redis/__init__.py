"""The URL pool on Redis, in parts (``docs/redis.md``).

* ``location`` — a pool's URL: parsing, checking (the one check of the session, the command
  line and the window), no redis-py needed;
* ``layout`` — key groups and the stored records, read back into rows;
* ``connection`` — the connection per event loop, the scripts, outages and errors;
* ``pool`` — :class:`~crawler_gui.core.redis.pool.RedisPool`: opening, and the operations
  that change the pool (add, pop, results, hubs, edits, migrate);
* ``views`` — what callers read: the snapshot and totals, a host's URLs, URL states;
* ``shared`` — what only a shared pool has: pause and control across workers, heartbeats,
  lease reclaim by worker, the shared scope, counters, change notices (``notices``);
* ``hubplan`` — the hub refresh plan, computed by the workers;
* ``snapshot_io`` — saving and loading snapshot files;
* ``scripts/`` — the Lua scripts, one ``.lua`` file each (package data).

Nothing is imported here: ``location`` is read without loading redis-py (the window checks a
URL as it is typed), so import the module you need.
"""
