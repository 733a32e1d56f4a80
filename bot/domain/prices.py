"""`TANKA_BOT_PRICES`: dollars per million input/output tokens, per model, to show a turn's cost.

Format: `MODEL=IN/OUT,...`, e.g. `claude-opus-4-6=15/75,gpt-4o=2.5/10`. A model id may itself
hold `/` or `=` (OpenAI-compatible routers name models `vendor/model`), so each entry is split at
its last `=`. Pure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

FORMAT = "MODEL=IN/OUT (dollars per million tokens), comma-separated"


@dataclass(frozen=True, slots=True)
class Price:
    input: float  # dollars per million input tokens
    output: float  # dollars per million output tokens

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


def parse_prices(text: str) -> dict[str, Price]:
    """The price table; ValueError naming every bad entry."""
    prices: dict[str, Price] = {}
    bad: list[str] = []
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        model, sep, pair = entry.rpartition("=")
        inp, slash, out = pair.partition("/")
        numbers = [_number(inp), _number(out)] if slash else [None]
        if not sep or not model.strip() or any(n is None for n in numbers):
            bad.append(entry)
            continue
        prices[model.strip()] = Price(float(numbers[0] or 0.0), float(numbers[1] or 0.0))
    if bad:
        raise ValueError(f"entries not of the form {FORMAT}: {', '.join(repr(b) for b in bad)}")
    return prices


def _number(text: str) -> float | None:
    try:
        value = float(text.strip().removeprefix("$"))
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


def turn_cost(
    prices: Mapping[str, Price], model: str, input_tokens: int, output_tokens: int
) -> float | None:
    """Dollars for the tokens, or None when the model has no price."""
    price = prices.get(model)
    return None if price is None else price.cost(input_tokens, output_tokens)


def dollars(amount: float) -> str:
    """`$0.0123` below a cent, `$1.23` above: small turns still show something."""
    return f"${amount:.4f}" if amount < 0.01 else f"${amount:.2f}"
