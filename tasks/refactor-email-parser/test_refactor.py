"""Hidden check: the helper exists, behaves, and parse_address still delegates to it."""

import inspect
import sys
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "src" / "shop").is_dir())
sys.path.insert(0, str(ROOT / "src"))

from shop import email_parser  # noqa: E402


def test_helper_splits_display_name():
    assert email_parser._split_display_name('"Doe, Jane" <jane@example.com>') == ("Doe, Jane", "jane@example.com")
    assert email_parser._split_display_name("jane@example.com") == ("", "jane@example.com")


def test_parse_address_uses_helper():
    assert "_split_display_name" in inspect.getsource(email_parser.parse_address)
