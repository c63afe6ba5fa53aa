"""The columns the code expects after every migration has been applied."""

COLUMNS = {
    "payments": ("id", "amount_cents", "captured_at", "currency"),
    "refunds": ("id", "payment_id", "amount_cents", "created_at"),
}
