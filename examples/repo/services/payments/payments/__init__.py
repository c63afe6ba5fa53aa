"""Payments: captures, refunds and the payments database schema."""
