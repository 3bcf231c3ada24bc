"""The durable URL pool on LevelDB (plyvel), in parts.

=================  ===============================================================================
``layout.py``      key prefixes, packed records and their codecs; the in-memory records that
                   mirror stored ones (``Host``, ``Hub``, ``Retry``)
``db.py``          opening the database (never over a damaged one), LevelDB errors as ours
``scheduler.py``   what is kept in memory to pick the next URL: hosts and their read-ahead
                   buffers, the queues by time (ready hosts, politeness waits, leases, retries,
                   hubs, hubs held for their host), ``next_due``, the hubs' refresh plan
``database.py``    ``PoolDatabase``: load, write (a failed write blocks writes until
                   ``recover``), rebuild, close; what a dead process's leases become
``pool.py``        ``LevelDBPool``: the ``Frontier`` operations (add, pop, results, hubs, retries,
                   hosts, views)
``views.py``       rows for the window and reports (snapshot, queues, failures, outcomes,
                   counters), read without changing anything
``snapshot.py``    snapshot files: save from a consistent view, load by staging and swapping
``invariants.py``  the pool's invariants restored from its URL records
``repair.py``      ``crawler-gui repair``: LevelDB's repair into a copy, then the invariants
``migrate.py``     the keys of an older pool moved to the current URL form (``crawler-gui
                   migrate``, or on open)
``rekey.py``       the resumable, batch-atomic loop that moves URL-keyed records to their
                   canonical keys (the pool's migration and the page store's share it)
=================  ===============================================================================

The key layout is documented in ``docs/storage.md``; the semantics every backend keeps in
``docs/frontier.md``. Nothing here imports the Redis pool (an import contract says so).
"""

from crawler_gui.core.leveldb.db import database_state
from crawler_gui.core.leveldb.invariants import RepairReport
from crawler_gui.core.leveldb.layout import DB_DIRNAME, SCHEMA_VERSION
from crawler_gui.core.leveldb.pool import LevelDBPool
from crawler_gui.core.leveldb.repair import repair_pool

__all__ = [
    "DB_DIRNAME",
    "SCHEMA_VERSION",
    "LevelDBPool",
    "RepairReport",
    "database_state",
    "repair_pool",
]
