from decimal import Decimal

import pytest

from shop.pricing import format_price, gross, tax_for, to_money


def test_standard_rate():
    assert tax_for("100.00") == Decimal("19.00")


def test_reduced_rate():
    assert tax_for("10.00", "reduced") == Decimal("0.70")


def test_gross_adds_tax():
    assert gross("10.00") == Decimal("11.90")


def test_to_money_rounds_to_cents():
    assert to_money("1.005") == Decimal("1.01")


@pytest.mark.parametrize(("currency", "shown"), [("EUR", "1,234.50 €"), ("USD", "$1,234.50"), ("GBP", "£1,234.50")])
def test_format_price(currency, shown):
    assert format_price("1234.5", currency) == shown
