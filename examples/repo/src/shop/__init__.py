"""Shop core: pricing and tax, inbound order emails, payment-provider webhooks."""
