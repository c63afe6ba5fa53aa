"""A small price cache in front of the pricing backend."""

from __future__ import annotations

from decimal import Decimal
from typing import Callable


def cache_key(sku: str, *, locale: str, currency: str) -> str:
    """Prices differ by locale (tax display) and currency, so both are part of the key."""
    return f"price:{sku.upper()}:{locale}:{currency}"


class PriceCache:
    def __init__(self, backend: Callable[[str, str, str], Decimal]):
        self.backend = backend
        self.entries: dict[str, Decimal] = {}
        self.misses = 0

    def price(self, sku: str, *, locale: str, currency: str) -> Decimal:
        key = cache_key(sku, locale=locale, currency=currency)
        if key not in self.entries:
            self.misses += 1
            self.entries[key] = self.backend(sku, locale, currency)
        return self.entries[key]
