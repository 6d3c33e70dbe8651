"""The seven domains. Each module ``NAME`` declares ``DOMAIN``, ``TABLES`` (read from data/NAME.json),
``POLICY`` (a short text the agent reads) and ``book`` (its tools); ``NAME_intents`` declares its
``PRIMITIVES``. Adding a domain is adding its name here."""

DOMAIN_MODULES: tuple[str, ...] = ("home", "information", "media", "shopping", "food", "communication", "time")
