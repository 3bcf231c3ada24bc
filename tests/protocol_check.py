"""Whether a class keeps a Protocol: every method with its parameters (names, kinds,
defaults, annotations), its return annotation and its kind (plain, coroutine, async
iterator), not only its name as ``isinstance`` of a runtime_checkable protocol does."""

from __future__ import annotations

import inspect
from typing import Any


def _members(protocol: type) -> dict[str, Any]:
    """The protocol's own members and its protocol bases' (not ``object``'s / Protocol's)."""
    found: dict[str, Any] = {}
    for base in reversed(protocol.__mro__):
        if base is object or not getattr(base, "_is_protocol", False):
            continue
        if base.__name__ in ("Protocol", "Generic"):
            continue
        for name, value in vars(base).items():
            if not name.startswith("_"):
                found[name] = value
        for name in getattr(base, "__annotations__", {}):
            if not name.startswith("_"):
                found.setdefault(name, None)
    return found


def _kind(fn: Any) -> str:
    if inspect.isasyncgenfunction(fn):
        return "async iterator"
    if inspect.iscoroutinefunction(fn):
        return "coroutine"
    return "plain"


def _expected_kind(fn: Any) -> str:
    if inspect.iscoroutinefunction(fn):
        return "coroutine"
    if str(inspect.signature(fn).return_annotation).startswith("AsyncIterator"):
        return "async iterator"  # (a protocol declares an async generator this way)
    return "plain"


def _params(fn: Any) -> list[tuple[str, Any, Any, str]]:
    sig = inspect.signature(fn)
    return [
        (p.name, p.kind, p.default, str(p.annotation))
        for p in list(sig.parameters.values())[1:]  # (self)
    ]


def protocol_mismatches(cls: type, protocol: type) -> list[str]:
    """Every way ``cls`` differs from ``protocol`` (empty: it keeps it)."""
    problems: list[str] = []
    for name, member in sorted(_members(protocol).items()):
        data = member is None or isinstance(member, property)
        if not hasattr(cls, name):
            # A data attribute (or a read-only property a plain attribute may keep) set in
            # __init__ is seen on an instance only: isinstance of a runtime_checkable protocol
            # checks it there. A method must be on the class.
            if not data:
                problems.append(f"{name}: missing")
            continue
        if member is None:
            continue  # a data attribute the class has
        actual = inspect.getattr_static(cls, name)
        if isinstance(member, property):
            if not isinstance(actual, property) and callable(actual):
                problems.append(f"{name}: a method where the protocol has a property")
            continue
        if not callable(actual):
            problems.append(f"{name}: not a method")
            continue
        if _kind(actual) != _expected_kind(member):
            problems.append(f"{name}: {_kind(actual)}, the protocol says {_expected_kind(member)}")
        want, got = _params(member), _params(actual)
        if want != got:
            problems.append(f"{name}: parameters {got}, the protocol says {want}")
        want_ret = str(inspect.signature(member).return_annotation)
        got_ret = str(inspect.signature(actual).return_annotation)
        if want_ret != got_ret:
            problems.append(f"{name}: returns {got_ret}, the protocol says {want_ret}")
    return problems
