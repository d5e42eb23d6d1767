"""List prices of the hosted models we know, for estimates made before anything is sent.

US dollars per million input and output tokens, as the providers publish them; a model is
matched by the longest known prefix of its name (so dated snapshots share their family's
price). The mock, `script:` and local servers have no price: an estimate then says so rather
than guessing. Only an estimate: cached input, batch discounts and tiers are not modelled.
"""

from __future__ import annotations

from mini_letta.structs import Struct


class ModelPrice(Struct, frozen=True):
    input_per_million: float
    output_per_million: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (
            input_tokens * self.input_per_million + output_tokens * self.output_per_million
        ) / 1_000_000


_PRICES: dict[str, tuple[float, float]] = {
    "openai/gpt-4o-mini": (0.15, 0.60),
    "openai/gpt-4o": (2.50, 10.00),
    "openai/gpt-4.1-nano": (0.10, 0.40),
    "openai/gpt-4.1-mini": (0.40, 1.60),
    "openai/gpt-4.1": (2.00, 8.00),
    "openai/gpt-5-nano": (0.05, 0.40),
    "openai/gpt-5-mini": (0.25, 2.00),
    "openai/gpt-5": (1.25, 10.00),
    "openai/o4-mini": (1.10, 4.40),
    "openai/o3": (2.00, 8.00),
    "anthropic/claude-3-5-haiku": (0.80, 4.00),
    "anthropic/claude-haiku-4-5": (1.00, 5.00),
    "anthropic/claude-3-7-sonnet": (3.00, 15.00),
    "anthropic/claude-sonnet-4": (3.00, 15.00),
    "anthropic/claude-sonnet-4-5": (3.00, 15.00),
    "anthropic/claude-sonnet-5-5": (2.00, 10.00),
    "anthropic/claude-opus-4": (15.00, 75.00),
    "anthropic/claude-opus-4-5": (5.00, 25.00),
    "anthropic/claude-opus-5-5": (4.00, 20.00),
}


def price_of(handle: str) -> ModelPrice | None:
    """The list price for a model handle (`openai/<model>`, `anthropic/<model>`), or None."""
    key = price_key(handle)
    return None if key is None else ModelPrice(*_PRICES[key])


def price_key(handle: str) -> str | None:
    """The row whose price applies to `handle`: the longest known prefix of it."""
    return max((key for key in _PRICES if handle.startswith(key)), key=len, default=None)


def priced_handles() -> tuple[str, ...]:
    """Every model (or family prefix) with a price row."""
    return tuple(_PRICES)
