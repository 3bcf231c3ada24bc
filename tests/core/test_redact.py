"""Credentials never survive ``redact_url``: user info, secret query keys, malformed URLs."""

import pytest

from crawler_gui.core.redact import redact_url


@pytest.mark.parametrize(
    ("url", "secret"),
    [
        ("redis://user:hunter2@127.0.0.1:6379/0?name=news", "hunter2"),
        ("redis://:hunter2@127.0.0.1:6379/0", "hunter2"),
        ("redis://127.0.0.1:6379/0?name=news&password=hunter2", "hunter2"),
        ("redis://127.0.0.1/0?username=alice&password=hunter2", "alice"),
        ("http://proxyuser:hunter2@127.0.0.1:3128", "hunter2"),
        ("socks5://u:hunter2@[::1]:1080", "hunter2"),
        ("redis://127.0.0.1/0?api_token=hunter2&name=x", "hunter2"),
    ],
)
def test_secrets_are_hidden(url: str, secret: str) -> None:
    shown = redact_url(url)
    assert secret not in shown
    assert "***" in shown


def test_urls_without_secrets_are_unchanged() -> None:
    url = "redis://127.0.0.1:6379/0?name=news&groups=4"
    assert redact_url(url) == url


def test_the_host_and_the_other_query_keys_stay_readable() -> None:
    shown = redact_url("redis://u:pw@10.1.2.3:6380/2?name=news&password=pw")
    assert "10.1.2.3:6380/2" in shown
    assert "name=news" in shown


def test_an_unparsable_url_is_not_echoed() -> None:
    assert redact_url("http://u:hunter2@[::1") == "<unparsable URL>"
