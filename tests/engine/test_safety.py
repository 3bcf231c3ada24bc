"""Address safety: blocked IP ranges, the policy, numeric host forms, the safe resolver."""

from __future__ import annotations

import asyncio
import time

import pytest

from crawler_gui.engine.http1 import Http1Client
from crawler_gui.engine.safety import (
    AddressPolicy,
    BlockedAddressError,
    is_blocked_ip,
    is_numeric_host,
)
from crawler_gui.errors import ConfigError

BLOCKED = [
    "127.0.0.1",
    "127.255.0.9",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "100.127.255.254",
    "0.0.0.0",
    "224.0.0.1",
    "239.1.1.1",
    "240.0.0.1",
    "255.255.255.255",
    "192.0.2.1",
    "198.18.0.1",
    "::1",
    "::",
    "fe80::1",
    "fe80::1%eth0",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "2002:7f00:1::",
    "2002:c0a8:0101::1",
    "64:ff9b::a00:1",
    "not-an-ip",
]
PUBLIC = [
    "8.8.8.8",
    "93.184.216.34",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "2002:0808:0808::1",
    "100.128.0.1",
]


@pytest.mark.parametrize("ip", BLOCKED)
def test_blocked_addresses(ip: str) -> None:
    assert is_blocked_ip(ip) is True


@pytest.mark.parametrize("ip", PUBLIC)
def test_public_addresses_not_blocked(ip: str) -> None:
    assert is_blocked_ip(ip) is False


def test_policy_allow_networks_and_allow_private() -> None:
    strict = AddressPolicy()
    assert strict.check("127.0.0.1") is False and strict.check("8.8.8.8") is True
    narrow = AddressPolicy(allow_networks=["127.0.0.1/32", "10.0.0.0/8"])
    assert narrow.check("127.0.0.1") is True
    assert narrow.check("127.0.0.2") is False
    assert narrow.check("10.9.9.9") is True
    assert narrow.check("::1") is False
    loose = AddressPolicy(allow_private=True)
    assert loose.check("192.168.0.1") is True and loose.check("::1") is True
    assert loose.check("0.0.0.0") is False and loose.check("224.0.0.1") is False


def test_policy_bad_network_is_config_error() -> None:
    with pytest.raises(ConfigError, match="not-a-network"):
        AddressPolicy(allow_networks=["not-a-network"])


def test_numeric_host_forms() -> None:
    for host in ("127.0.0.1", "127.1", "2130706433", "0x7f000001", "0x7f.0.0.1", "1.2.3.4."):
        assert is_numeric_host(host), host
    for host in ("example.com", "1.2.3.example", "0xzz.com", "cafe"):
        assert not is_numeric_host(host), host
    policy = AddressPolicy(allow_networks=["127.0.0.1/32"])
    assert policy.check_host("127.0.0.1") is True
    assert policy.check_host("127.1") is False  # the same address, in a form refused outright
    assert policy.check_host("0177.0.0.1") is False
    assert policy.check_host("127.0.0.2") is False
    assert policy.check_host("example.com") is None
    assert policy.check_host("[::1]") is False
    assert AddressPolicy().check_host("8.8.8.8") is True


def _client(policy: AddressPolicy) -> Http1Client:
    return Http1Client(policy, headers=(), connect_timeout=5, read_timeout=5, limit=4, per_host=1)


def test_a_name_resolving_only_to_loopback_is_refused() -> None:
    async def main() -> None:
        client = _client(AddressPolicy())
        deadline = time.monotonic() + 30
        with pytest.raises(BlockedAddressError, match="localhost"):
            await client.resolve("localhost", 80, deadline=deadline)
        with pytest.raises(BlockedAddressError):
            await client.resolve("0x7f.1", 80, deadline=deadline)
        with pytest.raises(BlockedAddressError):
            await client.resolve("127.0.0.1", 80, deadline=deadline)

    asyncio.run(main())


def test_a_name_resolves_to_its_allowed_addresses_only() -> None:
    async def main() -> tuple[list[str], list[str]]:
        client = _client(AddressPolicy(allow_networks=["127.0.0.1/32"]))
        deadline = time.monotonic() + 30
        return (
            await client.resolve("localhost", 80, deadline=deadline),
            await client.resolve("127.0.0.1", 80, deadline=deadline),
        )

    hosts, literal = asyncio.run(main())
    assert hosts == ["127.0.0.1"]  # (::1, if the name has it, is left out)
    assert literal == ["127.0.0.1"]


def test_blocked_address_error_is_an_oserror_with_message() -> None:
    exc = BlockedAddressError("internal.example", "resolves only to blocked addresses (10.0.0.1)")
    assert isinstance(exc, OSError)
    assert "internal.example" in str(exc) and "10.0.0.1" in str(exc)
