"""Refunds against captured payments, in integer cents."""

from __future__ import annotations

from dataclasses import dataclass, field


class RefundError(ValueError):
    """The refund is not allowed."""


@dataclass
class Payment:
    id: str
    captured_cents: int
    refunds: list[int] = field(default_factory=list)

    @property
    def refundable_cents(self) -> int:
        return self.captured_cents - sum(self.refunds)


def refund(payment: Payment, amount_cents: int) -> int:
    """Refund part of a payment; returns what is still refundable."""
    if amount_cents <= 0:
        raise RefundError("a refund must be positive")
    if amount_cents > payment.refundable_cents:
        raise RefundError(f"only {payment.refundable_cents} cents left to refund")
    payment.refunds.append(amount_cents)
    return payment.refundable_cents
