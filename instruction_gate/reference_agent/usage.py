"""Simulated model usage: what a real agent would have paid for the same trajectory.

A real agent re-sends its whole context at every step, so every byte of instructions read at
the start is paid again at each tool call: a bloated AGENTS.md costs more on every task.
The part sent before counts as cached input (prefix caching), billed at a tenth.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Bytes per token, the usual rule of thumb for English text and code.
BYTES_PER_TOKEN = 4
#: Prices in USD per million tokens (a mid-range model; only ratios matter to the gate).
INPUT_USD_PER_MTOK = 3.0
CACHED_INPUT_USD_PER_MTOK = 0.3
OUTPUT_USD_PER_MTOK = 15.0


def tokens(byte_count: int) -> int:
    return -(-byte_count // BYTES_PER_TOKEN)


@dataclass
class Usage:
    """Accumulates context and per-step token usage."""

    context_bytes: int = 0  #: what the model has seen so far
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    steps: int = 0
    _sent_tokens: int = 0  #: context tokens already sent once (cacheable prefix)

    def read(self, byte_count: int) -> None:
        """Something entered the context (an instruction file, a prompt, command output)."""
        self.context_bytes += byte_count

    def step(self, output_bytes: int) -> None:
        """One model call: the whole context goes in, `output_bytes` come out."""
        context = tokens(self.context_bytes)
        self.input_tokens += context
        self.cached_input_tokens += min(self._sent_tokens, context)
        self._sent_tokens = context
        produced = tokens(output_bytes)
        self.output_tokens += produced
        self.context_bytes += output_bytes
        self.steps += 1

    @property
    def cost_usd(self) -> float:
        fresh = self.input_tokens - self.cached_input_tokens
        cost = (fresh * INPUT_USD_PER_MTOK + self.cached_input_tokens * CACHED_INPUT_USD_PER_MTOK
                + self.output_tokens * OUTPUT_USD_PER_MTOK) / 1_000_000
        return round(cost, 6)
