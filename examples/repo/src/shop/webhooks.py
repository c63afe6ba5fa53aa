"""Payment-provider webhooks: signature check and at-most-once processing."""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass, field


def sign(payload: bytes, secret: bytes) -> str:
    return hmac.new(secret, payload, hashlib.sha256).hexdigest()


def verify(payload: bytes, signature: str, secret: bytes) -> bool:
    return hmac.compare_digest(sign(payload, secret), signature)


@dataclass
class WebhookInbox:
    """Receives provider events; the provider retries, so an event id is processed once."""

    secret: bytes
    processed: dict[str, dict] = field(default_factory=dict)
    ledger: list[str] = field(default_factory=list)

    def receive(self, payload: bytes, signature: str) -> bool:
        """Process one delivery; True when it was new, False for a repeated delivery."""
        if not verify(payload, signature, self.secret):
            raise PermissionError("bad webhook signature")
        event = json.loads(payload)
        if event["id"] in self.processed:
            return False
        self.processed[event["id"]] = event
        self.ledger.append(f"{event['type']}:{event['id']}")
        return True
