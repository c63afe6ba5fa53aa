"""Hidden check: prices in Swiss francs are shown as `CHF 12.50` (the agent's own test of it is restored)."""

import sys
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "src" / "shop").is_dir())
sys.path.insert(0, str(ROOT / "src"))

from shop.pricing import format_price  # noqa: E402


def test_swiss_francs_lead_with_the_code():
    assert format_price("1234.5", "CHF") == "CHF 1,234.50"
    assert format_price("12.5", "CHF") == "CHF 12.50"


def test_other_currencies_unchanged():
    assert format_price("1234.5", "EUR") == "1,234.50 €"
    assert format_price("1234.5", "USD") == "$1,234.50"
