"""Change notices between the workers of one Redis pool: PUBLISH/SUBSCRIBE on its channel.

A best-effort nudge (``frontier.ChangeNotices``): a worker waiting for work looks at the pool as
soon as another worker has changed it, instead of at its next poll.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import redis.asyncio as aredis

from crawler_gui.errors import PoolError

log = logging.getLogger(__name__)

#: A worker sends at most one change notice per this many seconds (the notices of the changes
#: in between are folded into the next one): bounds the pub/sub traffic of a busy pool.
NOTICE_SECONDS = 0.05
#: Seconds to wait for the change-notice connections: to connect, to confirm the subscription,
#: and at the end of a run to send the last notice.
NOTICE_TIMEOUT = 5.0


class RedisChangeNotices:
    """Change notices between the workers of one Redis pool (``frontier.ChangeNotices``).

    After each change (results committed, URLs given back, seeds added) a worker PUBLISHes its
    id on the pool's channel ``cg:<name>:changed``, at most once per :data:`NOTICE_SECONDS`;
    a SUBSCRIBE connection hears the other workers. A worker with nothing in flight and
    nothing to pop (with ``--until-idle``: waiting for the others' fetches to end) thus looks
    at the pool as soon as another worker has changed it, instead of at its next poll up to
    a second later.

    Two connections of their own (redis-py's pool: one publishes, one listens), opened for one
    run of the crawl. Best effort: a notice lost in a reconnect, or never sent by a worker of
    an older version, only delays that look until the next poll. Plain PUBLISH/SUBSCRIBE, so
    it works on a single server and across a Redis Cluster alike.
    """

    def __init__(self, redis_url: str, channel: str, worker: str) -> None:
        self.redis_url = redis_url
        self.channel = channel
        self.worker = worker
        self._client: aredis.Redis | None = None
        self._pubsub: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._publisher: asyncio.Task[None] | None = None
        self._pending = False  # a notice announced and not yet sent
        self._closing = asyncio.Event()

    async def start(self, on_change: Callable[[], None]) -> None:
        self._closing = asyncio.Event()
        self._pending = False
        client = aredis.Redis.from_url(
            self.redis_url, decode_responses=True, socket_connect_timeout=NOTICE_TIMEOUT
        )
        pubsub: Any = client.pubsub()  # (its methods are not all typed)
        try:
            await pubsub.subscribe(self.channel)
            # From the confirmation on, no notice is missed.
            reply = await pubsub.get_message(timeout=NOTICE_TIMEOUT)
            if not reply or reply.get("type") != "subscribe":
                raise PoolError(f"no confirmation of SUBSCRIBE {self.channel} ({reply!r})")
        except BaseException:
            await pubsub.aclose()
            await client.aclose()
            raise
        self._client = client
        self._pubsub = pubsub
        self._reader = asyncio.get_running_loop().create_task(
            self._listen(pubsub, on_change), name="pool notices"
        )

    async def _listen(self, pubsub: Any, on_change: Callable[[], None]) -> None:
        try:
            while not self._closing.is_set():
                try:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=None)
                except Exception as exc:
                    if self._closing.is_set():
                        return
                    log.warning("change notices interrupted (%s); reconnecting", exc)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._closing.wait(), 1.0)
                    on_change()  # something may have changed meanwhile: look
                    continue
                if (
                    message is not None
                    and message.get("type") == "message"
                    and message.get("data") != self.worker
                ):
                    on_change()
        finally:
            await pubsub.aclose()

    def notify(self) -> None:
        if self._client is None or self._closing.is_set():
            return
        self._pending = True
        if self._publisher is None or self._publisher.done():
            self._publisher = asyncio.get_running_loop().create_task(
                self._publish(self._client), name="pool notice"
            )

    async def _publish(self, client: aredis.Redis) -> None:
        while self._pending:
            self._pending = False
            try:
                await client.publish(self.channel, self.worker)
            except Exception as exc:
                log.warning("cannot send a change notice to the other workers: %s", exc)
                return
            if self._closing.is_set():
                continue  # send what is pending at once, without the pause
            with contextlib.suppress(TimeoutError):  # the pause that folds notices together
                await asyncio.wait_for(self._closing.wait(), NOTICE_SECONDS)

    async def close(self) -> None:
        """Send the pending notice, then close both connections."""
        self._closing.set()
        client, self._client = self._client, None
        publisher, reader, pubsub = self._publisher, self._reader, self._pubsub
        self._publisher = self._reader = self._pubsub = None
        if (
            publisher is not None
            and not (await asyncio.wait({publisher}, timeout=NOTICE_TIMEOUT))[0]
        ):
            publisher.cancel()
        if reader is not None:
            reader.cancel()
            if not (await asyncio.wait({reader}, timeout=1.0))[0] and pubsub is not None:
                await pubsub.aclose()  # the cancellation was swallowed: end its read
                await asyncio.wait({reader}, timeout=1.0)
        if client is not None:
            await client.aclose()
