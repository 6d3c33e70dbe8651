"""The seven domains. Each module ``NAME`` declares ``DOMAIN``, ``TABLES`` (read from data/NAME.json) and
``POLICY`` (a short text the agent reads); the domain's tools are the functions marked with ``lookup`` /
``action`` in the modules ``TOOL_MODULES`` lists for it, its own module first (a second module may import the
first, never the reverse). ``NAME_intents`` declares its ``PRIMITIVES``. Adding a domain is adding it here."""

from types import MappingProxyType

TOOL_MODULES: MappingProxyType[str, tuple[str, ...]] = MappingProxyType(
    {
        "home": ("home",),
        "information": ("information", "information_stocks"),
        "media": ("media",),
        "shopping": ("shopping", "shopping_orders"),
        "food": ("food", "food_bookings"),
        "communication": ("communication",),
        "time": ("time", "time_timers"),
    }
)
"""Domain -> the modules holding its tools, in the order the world lists the tools."""

DOMAIN_MODULES: tuple[str, ...] = tuple(TOOL_MODULES)
