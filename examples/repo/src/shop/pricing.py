"""Prices, VAT and how they are shown to customers."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
TAX_RATES = {"standard": Decimal("0.19"), "reduced": Decimal("0.07"), "zero": Decimal("0")}
SYMBOLS = {"EUR": "€", "USD": "$", "GBP": "£"}


def to_money(value: Decimal | str | int) -> Decimal:
    """A money amount rounded half-up to the cent."""
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def tax_for(net: Decimal | str | int, rate: str = "standard") -> Decimal:
    """VAT on a net amount, rounded half-up to the cent as the tax office requires."""
    return (Decimal(str(net)) * TAX_RATES[rate]).quantize(CENT, rounding=ROUND_HALF_UP)


def gross(net: Decimal | str | int, rate: str = "standard") -> Decimal:
    """Net amount plus its VAT."""
    return to_money(net) + tax_for(net, rate)


def format_price(amount: Decimal | str | int, currency: str = "EUR") -> str:
    """A price as customers see it: `12.50 €`, `$12.50`, `£12.50`."""
    value = to_money(amount)
    symbol = SYMBOLS[currency]
    if currency == "EUR":
        return f"{value:,.2f} {symbol}"
    return f"{symbol}{value:,.2f}"
