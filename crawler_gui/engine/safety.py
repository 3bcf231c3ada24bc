"""Keep the crawler off loopback, private and other special addresses (SSRF protection).

Three checks, because each alone has a hole:

* :meth:`AddressPolicy.check` filters what a host *name* resolves to (``engine.http1`` drops
  the blocked answers, and refuses a name with nothing left);
* :meth:`AddressPolicy.check_host` judges a URL host that is an IP literal (never resolved),
  and refuses legacy numeric forms such as ``127.1``, ``2130706433`` or ``0x7f.0.0.1``
  outright;
* :func:`transport_peer` reads the address a connection really reached, for a last check
  before a byte is sent.

Through a proxy (``--proxy``) only the first check is left, and in another form: the proxy
resolves the names and makes the connections, so neither what a name resolves to nor the
address a response came from can be seen. :meth:`AddressPolicy.check_proxied_host` then judges
the URL host alone, before anything is sent: an IP literal as above, and a name by its form
(``localhost``, one-label names and the suffixes of local and internal networks,
:data:`PRIVATE_NAME_SUFFIXES`). A public-looking name that the proxy resolves to a private
address cannot be caught here: that is the proxy's to refuse.
"""

from __future__ import annotations

import errno
import ipaddress
from collections.abc import Sequence
from typing import Any

from crawler_gui.errors import ConfigError

__all__ = [
    "AddressPolicy",
    "BlockedAddressError",
    "is_blocked_ip",
    "is_numeric_host",
    "is_private_name",
    "transport_peer",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Name suffixes of local and internal networks (RFC 6761 ``localhost``, RFC 6762 ``local``,
#: RFC 8375 ``home.arpa``, ICANN's ``internal``, and names commonly used inside organisations).
PRIVATE_NAME_SUFFIXES = (
    "localhost",
    "localdomain",
    "local",
    "internal",
    "intranet",
    "lan",
    "home.arpa",
    "corp",
    "home",
    "private",
)

_SHARED = ipaddress.IPv4Network("100.64.0.0/10")  # carrier-grade NAT
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")


class BlockedAddressError(OSError):
    """A host resolved only to addresses the crawler may not connect to."""

    def __init__(self, host: str, detail: str = "") -> None:
        self.host = host
        message = f"{host}: {detail or 'resolves only to blocked addresses'}"
        super().__init__(errno.EACCES, message)


def _parse(ip: str) -> IPAddress | None:
    if "%" in ip:  # fe80::1%eth0
        ip = ip.split("%", 1)[0]
    try:
        return ipaddress.ip_address(ip)
    except ValueError:
        return None


def _v4_blocked(addr: ipaddress.IPv4Address) -> bool:
    return (
        addr.is_loopback
        or addr.is_private
        or addr.is_link_local
        or addr.is_multicast
        or addr.is_reserved
        or addr.is_unspecified
        or addr in _SHARED
        or not addr.is_global
    )


def _embedded_v4(addr: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv4-mapped, 6to4 or NAT64 address stands for."""
    if addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    if addr.sixtofour is not None:
        return addr.sixtofour
    if addr in _NAT64:
        return ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    return None


def _blocked(addr: IPAddress) -> bool:
    if isinstance(addr, ipaddress.IPv4Address):
        return _v4_blocked(addr)
    embedded = _embedded_v4(addr)
    if embedded is not None:
        return _v4_blocked(embedded)
    if addr.teredo is not None and _v4_blocked(addr.teredo[1]):
        return True
    return (
        addr in _NAT64_LOCAL
        or addr.is_loopback
        or addr.is_private
        or addr.is_link_local
        or addr.is_site_local
        or addr.is_multicast
        or addr.is_reserved
        or addr.is_unspecified
        or not addr.is_global
    )


def is_blocked_ip(ip: str) -> bool:
    """True for loopback, private, link-local, multicast, reserved, unspecified, shared
    (100.64/10) and other non-global addresses, including their IPv4-mapped, 6to4, NAT64 and
    Teredo IPv6 forms. Text that is not an IP address is blocked too."""
    addr = _parse(ip)
    return True if addr is None else _blocked(addr)


def is_numeric_host(host: str) -> bool:
    """True when a URL host would be read as an IPv4 address (WHATWG: the last label is a
    number, decimal or ``0x`` hex), whether in canonical dotted-quad form or not."""
    host = host.rstrip(".")
    if not host:
        return False
    last = host.rsplit(".", 1)[-1].lower()
    if last.isdigit():
        return True
    return last.startswith("0x") and all(c in "0123456789abcdef" for c in last[2:])


def is_private_name(host: str) -> bool:
    """True for a host *name* of a local or internal network: ``localhost``, a name of one
    label (resolved by the search domains of whoever resolves it), or one ending in
    :data:`PRIVATE_NAME_SUFFIXES`."""
    name = host.rstrip(".").lower()
    if not name or "." not in name:
        return True
    return any(name == s or name.endswith("." + s) for s in PRIVATE_NAME_SUFFIXES)


def _is_canonical_ipv4(host: str) -> bool:
    parts = host.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if not part.isdigit() or (len(part) > 1 and part[0] == "0") or int(part) > 255:
            return False
    return True


class AddressPolicy:
    """Which addresses may be connected to.

    ``allow_networks`` (CIDR strings) are always allowed; ``allow_private`` allows every
    address except unspecified (``0.0.0.0``, ``::``) and multicast ones.
    """

    def __init__(self, allow_private: bool = False, allow_networks: Sequence[str] = ()) -> None:
        self.allow_private = allow_private
        networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for text in allow_networks:
            try:
                networks.append(ipaddress.ip_network(text.strip(), strict=False))
            except ValueError as exc:
                raise ConfigError(f"invalid allowed network {text!r}: {exc}") from exc
        self.allow_networks = tuple(networks)
        self._cache: dict[str, bool] = {}
        self._host_cache: dict[str, bool | None] = {}

    def check(self, ip: str) -> bool:
        """True when connecting to ``ip`` is allowed."""
        cached = self._cache.get(ip)
        if cached is not None:
            return cached
        addr = _parse(ip)
        if addr is None:
            allowed = False
        elif any(addr.version == net.version and addr in net for net in self.allow_networks):
            allowed = True
        elif self.allow_private:
            allowed = not (addr.is_unspecified or addr.is_multicast)
        else:
            allowed = not _blocked(addr)
        if len(self._cache) > 4096:
            self._cache.clear()
        self._cache[ip] = allowed
        return allowed

    def check_host(self, host: str) -> bool | None:
        """Judge a URL host before connecting: ``None`` for a name (the resolver decides),
        True/False for an IP literal. A non-canonical numeric IPv4 form is always refused.
        Judged once per host (asked before every request)."""
        if host in self._host_cache:
            return self._host_cache[host]
        verdict = self._judge_host(host)
        if len(self._host_cache) > 4096:
            self._host_cache.clear()
        self._host_cache[host] = verdict
        return verdict

    def _judge_host(self, host: str) -> bool | None:
        if host.startswith("["):
            host = host[1:].split("]", 1)[0]
        if ":" in host:
            return self.check(host)
        if not is_numeric_host(host):
            return None
        if not _is_canonical_ipv4(host.rstrip(".")):
            return False
        return self.check(host.rstrip("."))

    def check_proxied_host(self, host: str) -> bool:
        """Judge a URL host that a proxy will resolve and connect to (nothing else can be
        checked): an IP literal by its address, a name by its form (:func:`is_private_name`),
        both allowed when private addresses are."""
        verdict = self.check_host(host)
        if verdict is not None:
            return verdict
        return self.allow_private or not is_private_name(host)


def transport_peer(transport: Any) -> str | None:
    """The peer IP of an asyncio transport (``None`` when closed or unknown)."""
    if transport is None:
        return None
    peer = transport.get_extra_info("peername")
    if not peer:
        return None
    return str(peer[0])
