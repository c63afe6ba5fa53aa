"""Hidden regression test: VAT is rounded half-up on exact decimals, never through floats."""

import sys
from decimal import Decimal
from pathlib import Path

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "src" / "shop").is_dir())
sys.path.insert(0, str(ROOT / "src"))

from shop.pricing import gross, tax_for  # noqa: E402


def test_half_cent_rounds_up():
    assert tax_for("2.50") == Decimal("0.48")
    assert gross("2.50") == Decimal("2.98")


def test_reduced_rate_half_cent():
    assert tax_for("7.50", "reduced") == Decimal("0.53")


def test_result_is_exact_decimal():
    assert tax_for("19.99") == Decimal("3.80")
