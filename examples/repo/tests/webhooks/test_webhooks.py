import json

import pytest

from shop.webhooks import WebhookInbox, sign

SECRET = b"test-only-secret"


def delivery(event_id: str, kind: str = "payment.captured") -> tuple[bytes, str]:
    payload = json.dumps({"id": event_id, "type": kind}).encode()
    return payload, sign(payload, SECRET)


def test_accepts_signed_event():
    inbox = WebhookInbox(SECRET)
    assert inbox.receive(*delivery("evt_1")) is True
    assert inbox.ledger == ["payment.captured:evt_1"]


def test_rejects_bad_signature():
    payload, _ = delivery("evt_2")
    with pytest.raises(PermissionError):
        WebhookInbox(SECRET).receive(payload, "0" * 64)
