"""Product catalog: products and a per-locale, per-currency price cache."""
