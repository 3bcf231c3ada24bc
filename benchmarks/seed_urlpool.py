"""A faithful copy of the seed's in-memory UrlPool and its LevelDB UrlDB
(shared/seeds/000_*, 003_*), for the frontier benchmark only.

Kept as the seed wrote it, with three changes: plyvel instead of the old ``leveldb`` binding,
no ``print`` calls (they would dominate the timing), and no pickle cache (crawler-gui never
pickles; the cache is only written at exit and is not part of the measured workload).
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlparse

import plyvel


class UrlDB:
    status_failure = b"0"
    status_success = b"1"

    def __init__(self, db_name: str) -> None:
        self.name = db_name + ".urldb"
        self.db = plyvel.DB(self.name, create_if_missing=True)

    def set_success(self, url: str) -> bool:
        try:
            self.db.put(url.encode("utf8"), self.status_success)
            return True
        except Exception:
            return False

    def set_failure(self, url: str) -> bool:
        try:
            self.db.put(url.encode("utf8"), self.status_failure)
            return True
        except Exception:
            return False

    def has(self, url: str) -> Any:
        try:
            attr = self.db.get(url.encode("utf8"))
            return attr if attr is not None else False
        except Exception:
            return False


class UrlPool:
    def __init__(self, pool_name: str) -> None:
        self.name = pool_name
        self.db = UrlDB(pool_name)
        self.waiting: dict[str, set[str]] = {}
        self.pending: dict[str, float] = {}
        self.failure: dict[str, int] = {}
        self.failure_threshold = 3
        self.pending_threshold = 10
        self.waiting_count = 0
        self.max_hosts: list[Any] = ["", 0]
        self.hub_pool: dict[str, float] = {}
        self.hub_refresh_span = 0

    def set_hubs(self, urls: list[str], hub_refresh_span: int) -> None:
        self.hub_refresh_span = hub_refresh_span
        self.hub_pool = {url: 0 for url in urls}

    def set_status(self, url: str, status_code: int) -> None:
        if url in self.pending:
            self.pending.pop(url)
        if status_code == 200:
            self.db.set_success(url)
        elif status_code == 404:
            self.db.set_failure(url)
        elif url in self.failure:
            self.failure[url] += 1
            if self.failure[url] > self.failure_threshold:
                self.db.set_failure(url)
                self.failure.pop(url)
            else:
                self.add(url)
        else:
            self.failure[url] = 1
            self.add(url)

    def push_to_pool(self, url: str) -> bool:
        host = urlparse(url).netloc
        if not host or "." not in host:
            return False
        if host in self.waiting:
            if url in self.waiting[host]:
                return True
            self.waiting[host].add(url)
            if len(self.waiting[host]) > self.max_hosts[1]:
                self.max_hosts = [host, len(self.waiting[host])]
        else:
            self.waiting[host] = {url}
        self.waiting_count += 1
        return True

    def add(self, url: str, always: bool = False) -> Any:
        if always:
            return self.push_to_pool(url)
        pended_time = self.pending.get(url, 0)
        if time.time() - pended_time < self.pending_threshold:
            return None
        if self.db.has(url):
            return None
        if pended_time:
            self.pending.pop(url)
        return self.push_to_pool(url)

    def addmany(self, urls: list[str], always: bool = False) -> None:
        for url in urls:
            self.add(url, always)

    def pop(self, count: int, hub_percent: int = 50) -> dict[str, int]:
        url_attr_url = 0
        url_attr_hub = 1
        hubs = {}
        hub_count = count * hub_percent // 100
        for hub in list(self.hub_pool.keys()):
            span = time.time() - self.hub_pool[hub]
            if span >= self.hub_refresh_span:
                hubs[hub] = url_attr_hub
                self.hub_pool[hub] = time.time()
            if len(hubs) >= hub_count:
                break
        left_count = count - len(hubs)
        urls = {}
        for host in list(self.waiting.keys()):
            if not self.waiting[host]:
                continue
            url = self.waiting[host].pop()
            urls[url] = url_attr_url
            self.pending[url] = time.time()
            if host == self.max_hosts[0]:
                self.max_hosts[1] -= 1
                if self.max_hosts[1] == 0:
                    self.max_hosts[0] = ""
            if len(urls) >= left_count:
                break
        self.waiting_count -= len(urls)
        urls.update(hubs)
        return urls

    def size(self) -> int:
        return self.waiting_count

    def empty(self) -> bool:
        return self.waiting_count == 0
