"""Information intent primitives (see ``intents.py`` for the contract): weather, stocks, news, encyclopedia."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sim.core import GoldCall
from worlds.domains.multidomain.gold_calls import core, lookup_if_unknown, support
from worlds.domains.multidomain.intents import Answer, Focus, Intent, Primitive, pick_focus
from worlds.domains.multidomain.state import WorldState
from worlds.domains.multidomain.wording import said

SPOKEN = {
    "AAPL": "Apple",
    "MSFT": "Microsoft",
    "NVDA": "NVIDIA",
    "GOOGL": "Alphabet",
    "AMZN": "Amazon",
    "TSLA": "Tesla",
    "META": "Meta",
    "JPM": "JPMorgan",
    "HSBA.L": "HSBC",
    "BP.L": "BP",
    "AZN.L": "AstraZeneca",
    "SHEL.L": "Shell",
    "VOD.L": "Vodafone",
    "ULVR.L": "Unilever",
}
"""How a user names each company; each is a search_stocks query that finds exactly that stock."""
CURRENCY_WORDS = {"USD": "dollars", "GBP": "pounds"}


# weather ---------------------------------------------------------------------------------------------


def _city_paths(state: WorldState, city_id: str) -> tuple[list[GoldCall], list[list[GoldCall]]]:
    """The lookup a city needs (if any) and, for the user's own city, the profile lookup as another path."""
    name = state.row("cities", city_id)["name"]
    lookup = lookup_if_unknown(state, "city", city_id, support("find_cities", query=name))
    user = state.get("users", "u1")
    home = lookup and user is not None and user["city"] == name
    return lookup, [[support("get_user_location")]] if home else []


def _city_focus(state: WorldState, city_id: str) -> Focus:
    return Focus(key=f"city:{city_id}", name=str(state.row("cities", city_id)["name"]), pronoun="there")


def _weather_intent(
    state: WorldState, city_id: str, primitive: str, call: GoldCall, answer: Answer, **values: Any
) -> Intent:
    """The city found by any of its lookups (each a path of its own), then ``call``."""
    lookup, others = _city_paths(state, city_id)
    paths = tuple((*other, call) for other in others)
    return said(f"information.{primitive}", (*lookup, call), _city_focus(state, city_id), answer, paths, **values)


def current_weather(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    city_id = pick_focus(state, focus, "city", [k for k, _ in state.rows("cities")], rng)
    name = state.row("cities", city_id)["name"]

    def answer(results: Sequence[Any]) -> str:
        w = results[-1]
        return f"In {name} it is {w['condition']}, {w['temperature_c']}°C (feels like {w['feels_like_c']}°C)."

    call = core("get_current_weather", city_id=city_id)
    return _weather_intent(state, city_id, "current_weather", call, answer, name=name)


def forecast(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    city_id = pick_focus(state, focus, "city", [k for k, _ in state.rows("cities")], rng)
    name = state.row("cities", city_id)["name"]
    days = rng.choice([2, 3, 4, 5])

    def answer(results: Sequence[Any]) -> str:
        parts = [f"{d['date']}: {d['condition']}, {d['low_c']} to {d['high_c']}°C" for d in results[-1]["days"]]
        return f"Forecast for {name}: " + "; ".join(parts) + "."

    call = core("get_weather_forecast", city_id=city_id, days=days)
    return _weather_intent(state, city_id, "forecast", call, answer, name=name, days=days)


def weather_alerts(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    city_id = pick_focus(state, focus, "city", [k for k, _ in state.rows("cities")], rng)
    name = state.row("cities", city_id)["name"]

    def answer(results: Sequence[Any]) -> str:
        alerts = results[-1]["alerts"]
        if not alerts:
            return f"There are no weather warnings for {name}."
        return f"Warnings for {name}: " + "; ".join(f"{a['severity']} {a['type']}: {a['headline']}" for a in alerts)

    call = core("get_weather_alerts", city_id=city_id)
    return _weather_intent(state, city_id, "weather_alerts", call, answer, name=name)


# stocks ----------------------------------------------------------------------------------------------


def _stocks(state: WorldState) -> list[str]:
    return [k for k, _ in state.rows("stocks") if k in SPOKEN]


def _stock_lookup(state: WorldState, symbol: str) -> list[GoldCall]:
    return lookup_if_unknown(state, "stock", symbol, support("search_stocks", query=SPOKEN[symbol]))


def _watch_paths(state: WorldState, symbol: str, then: Sequence[GoldCall]) -> tuple[tuple[GoldCall, ...], ...]:
    """A watched stock the conversation has not looked up can also be found on the watchlist."""
    if state.is_known("stock", symbol) or state.get("watchlist", symbol) is None:
        return ()
    return ((support("get_watchlist"), *then),)


def _stock_focus(symbol: str) -> Focus:
    return Focus(key=f"stock:{symbol}", name=SPOKEN[symbol])


def stock_quote(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    symbol = pick_focus(state, focus, "stock", _stocks(state), rng)
    name = SPOKEN[symbol]

    def answer(results: Sequence[Any]) -> str:
        q = results[-1]
        return f"{name} ({symbol}) is at {q['price']} {q['currency']}, {q['change_percent']:+}% on the day."

    call = core("get_stock_quote", symbol=symbol)
    calls = (*_stock_lookup(state, symbol), call)
    paths = _watch_paths(state, symbol, [call])
    return said("information.stock_quote", calls, _stock_focus(symbol), answer, alternatives=paths, name=name)


def stock_history(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    symbol = pick_focus(state, focus, "stock", _stocks(state), rng)
    name, days = SPOKEN[symbol], rng.choice([5, 10])

    def answer(results: Sequence[Any]) -> str:
        h = results[-1]
        first, last = h["closes"][0], h["closes"][-1]
        return (
            f"{name} went from {first['close']} on {first['date']} to {last['close']} {h['currency']} on "
            f"{last['date']} ({h['change_percent']:+}%)."
        )

    call = core("get_stock_history", symbol=symbol, days=days)
    calls = (*_stock_lookup(state, symbol), call)
    paths = _watch_paths(state, symbol, [call])
    return said(
        "information.stock_history", calls, _stock_focus(symbol), answer, alternatives=paths, name=name, days=days
    )


def watch_stock(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    unwatched = [s for s in _stocks(state) if state.get("watchlist", s) is None]
    if not unwatched:
        return None
    symbol = pick_focus(state, focus, "stock", unwatched, rng)
    name = SPOKEN[symbol]
    calls = (*_stock_lookup(state, symbol), core("add_to_watchlist", symbol=symbol))
    return said("information.watch_stock", calls, _stock_focus(symbol), name=name)


def unwatch_stock(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    watched = [s for s in _stocks(state) if state.get("watchlist", s) is not None]
    if not watched:
        return None
    symbol = pick_focus(state, focus, "stock", watched, rng)
    name = SPOKEN[symbol]
    remove = core("remove_from_watchlist", symbol=symbol)
    unknown = not state.is_known("stock", symbol)
    calls = (*([support("get_watchlist")] if unknown else []), remove)
    paths = ((support("search_stocks", query=name), remove),) if unknown else ()
    return said("information.unwatch_stock", calls, _stock_focus(symbol), alternatives=paths, name=name)


def price_alert(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    symbol = pick_focus(state, focus, "stock", _stocks(state), rng)
    stock, entry, name = state.row("stocks", symbol), state.get("watchlist", symbol), SPOKEN[symbol]
    side = rng.choice(["above", "below"])
    factor = rng.choice([1.05, 1.1, 1.2] if side == "above" else [0.8, 0.9, 0.95])
    level = round(stock["price"] * factor, 2 if stock["price"] < 10 else 0)
    if entry is not None and entry[f"alert_{side}"] == level:
        return None
    move = "rises above" if side == "above" else "drops below"
    add = [] if entry is not None else [core("add_to_watchlist", symbol=symbol)]
    money = f"{level:g} {CURRENCY_WORDS.get(stock['currency'], stock['currency'])}"
    ask = f"alert me if {name} {move} {money}"
    opening = ("Please " if entry is not None else f"Watch {name} for me and ") + ask + "."
    calls = (*_stock_lookup(state, symbol), *add, core("set_price_alert", symbol=symbol, **{side: level}))
    return said(
        "information.price_alert", calls, _stock_focus(symbol), opening=opening, move=move, money=money, name=name
    )


# news and encyclopedia -------------------------------------------------------------------------------


def headlines(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    topics = sorted({str(r["topic"]) for _, r in state.rows("news_articles")})
    topic = rng.choice(topics)

    def answer(results: Sequence[Any]) -> str:
        return f"Top {topic} headlines: " + "; ".join(h["title"] for h in results[-1]["headlines"]) + "."

    return said("information.headlines", (core("get_news_headlines", topic=topic),), answer=answer, topic=topic)


def article_details(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    article_id = pick_focus(state, focus, "article", [k for k, _ in state.rows("news_articles")], rng)
    row = state.row("news_articles", article_id)
    title = str(row["title"])
    details = core("get_article_details", article_id=article_id)
    unknown = not state.is_known("article", article_id)

    def answer(results: Sequence[Any]) -> str:
        a = results[-1]
        return f"'{a['title']}' ({a['source']}, by {a['author']}): {a['summary']}"

    calls = (*([support("search_news", query=title)] if unknown else []), details)
    paths = ((support("get_news_headlines", topic=row["topic"]), details),) if unknown else ()
    about = Focus(key=f"article:{article_id}", name=title)
    return said("information.article_details", calls, about, answer, alternatives=paths, title=title)


def knowledge_fact(state: WorldState, rng: random.Random, focus: Focus | None) -> Intent | None:
    entry_id = pick_focus(state, focus, "entry", [k for k, _ in state.rows("knowledge")], rng)
    row = state.row("knowledge", entry_id)
    title = str(row["title"])
    fact = rng.choice(sorted(row["facts"]))

    def answer(results: Sequence[Any]) -> str:
        return f"{title} — {fact}: {results[-1]['facts'][fact]}."

    calls = (
        *lookup_if_unknown(state, "entry", entry_id, support("search_knowledge", query=title)),
        core("get_knowledge_entry", entry_id=entry_id),
    )
    return said(
        "information.knowledge_fact", calls, Focus(key=f"entry:{entry_id}", name=title), answer, title=title, fact=fact
    )


PRIMITIVES: tuple[Primitive, ...] = (
    current_weather,
    forecast,
    weather_alerts,
    stock_quote,
    stock_history,
    watch_stock,
    unwatch_stock,
    price_alert,
    headlines,
    article_details,
    knowledge_fact,
)
