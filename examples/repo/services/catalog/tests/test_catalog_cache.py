from decimal import Decimal

from catalog.cache import PriceCache, cache_key

PRICES = {("AB-12", "EUR"): Decimal("10.00"), ("AB-12", "USD"): Decimal("11.00")}


def backend(sku, locale, currency):
    return PRICES[(sku.upper(), currency)]


def test_key_is_case_insensitive_in_sku():
    assert cache_key("ab-12", locale="de_DE", currency="EUR") == cache_key("AB-12", locale="de_DE", currency="EUR")


def test_second_lookup_is_cached():
    cache = PriceCache(backend)
    cache.price("AB-12", locale="de_DE", currency="EUR")
    cache.price("AB-12", locale="de_DE", currency="EUR")
    assert cache.misses == 1


def test_currencies_do_not_collide():
    cache = PriceCache(backend)
    assert cache.price("AB-12", locale="de_DE", currency="EUR") == Decimal("10.00")
    assert cache.price("AB-12", locale="de_DE", currency="USD") == Decimal("11.00")
