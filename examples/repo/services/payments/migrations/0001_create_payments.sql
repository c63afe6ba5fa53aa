CREATE TABLE payments (
    id TEXT PRIMARY KEY,
    amount_cents INTEGER NOT NULL,
    captured_at TEXT
);
CREATE TABLE refunds (
    id TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL REFERENCES payments(id),
    amount_cents INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
