import pytest

from shop.email_parser import parse_address, parse_order_lines


def test_plain_address():
    assert parse_address("jane@example.com") == ("", "jane@example.com")


def test_display_name():
    assert parse_address("Jane Doe <Jane@Example.com>") == ("Jane Doe", "jane@example.com")


def test_quoted_display_name():
    assert parse_address('"Doe, Jane" <jane@example.com>') == ("Doe, Jane", "jane@example.com")


def test_rejects_garbage():
    with pytest.raises(ValueError):
        parse_address("not an address")


def test_order_lines_ignore_chatter():
    body = "Hello,\nAB-12 x 2\nzz-9 x 1\nThanks!"
    assert parse_order_lines(body) == [("AB-12", 2), ("ZZ-9", 1)]
