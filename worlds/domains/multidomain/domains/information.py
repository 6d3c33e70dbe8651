"""Information services: weather by city (the user's own city from their profile), news headlines and
articles, and an encyclopedia. Stocks and the watchlist live in ``information_stocks``, the same domain.
Tables: ``cities``, ``news_articles``, ``knowledge`` and ``stocks``, ``watchlist`` (data/information.json)."""

from __future__ import annotations

from typing import Any

from worlds.common.errors import ToolError
from worlds.common.tables import Row
from worlds.common.toolbook import integer, lookup, optional, string
from worlds.domains.multidomain.state import WorldState

DOMAIN = "information"
TABLES = ("cities", "stocks", "watchlist", "news_articles", "knowledge")
POLICY = """Information: city ids come from find_cities (or get_user_location for the user's own city), stock
symbols from search_stocks or get_watchlist, article ids from get_news_headlines or search_news, encyclopedia
entry ids from search_knowledge; ids not looked up in this session are refused. Temperatures are in degrees
Celsius. A price alert needs the stock on the watchlist, with 'above' over and 'below' under the current price."""

NEWS_TOPICS = ("world", "business", "technology", "science", "sports", "health", "entertainment")
FIND_CITY = "find_cities"
FIND_ARTICLE = "get_news_headlines"
FIND_ENTRY = "search_knowledge"

CITY_ID = string("City id as returned by find_cities or get_user_location, e.g. 'london'.")
QUERY = string("Words to search for, e.g. a name.")


def matches(query: str, *texts: str) -> bool:
    """Every word of the query appears somewhere in the texts (case-insensitive)."""
    haystack = " ".join(texts).lower()
    return all(word in haystack for word in query.lower().split())


def check_query(query: str) -> None:
    if not query.strip():
        raise ToolError("invalid_arguments", "empty_query", "The search query is empty: give at least one word.")


def _city_summary(key: str, row: Row) -> dict[str, Any]:
    return {"city_id": key, "name": row["name"], "country": row["country"]}


def _city(state: WorldState, city_id: str) -> Row:
    return state.require("cities", city_id, "city", f"{FIND_CITY} or get_user_location")


# weather ---------------------------------------------------------------------------------------------


@lookup("The user's home city from their profile, with its city id: use it for 'here' or 'my city'.")
def get_user_location(state: WorldState) -> dict[str, Any]:
    user = state.get("users", "u1")
    city = None if user is None else next((k for k, r in state.rows("cities") if r["name"] == user["city"]), None)
    if user is None or city is None:
        raise ToolError("unavailable", "no_location", "The user's location is not set: ask the user for their city.")
    row = state.get("cities", city)
    assert row is not None
    state.reveal("city", city)
    return _city_summary(city, row)


@lookup("Find cities with weather coverage by name or country; returns city ids.", query=QUERY)
def find_cities(state: WorldState, query: str) -> dict[str, Any]:
    check_query(query)
    found = [_city_summary(k, r) for k, r in state.rows("cities") if matches(query, r["name"], r["country"])]
    if not found:
        raise ToolError("not_found", "no_city", f"No covered city matches '{query}'. Try the city's English name.")
    state.reveal("city", *(c["city_id"] for c in found))
    return {"cities": found}


@lookup(
    "Current weather in a city (condition, temperature and feels-like in °C, humidity, wind).",
    requires=(FIND_CITY,),
    city_id=CITY_ID,
)
def get_current_weather(state: WorldState, city_id: str) -> dict[str, Any]:
    row = _city(state, city_id)
    return {"city_id": city_id, "city": row["name"], **row["current"]}


@lookup(
    "Daily forecast for a city from today: condition, high/low in °C and chance of precipitation in percent.",
    requires=(FIND_CITY,),
    city_id=CITY_ID,
    days=optional(integer("Number of days from today (default 3).", 1, 5)),
)
def get_weather_forecast(state: WorldState, city_id: str, days: int = 3) -> dict[str, Any]:
    row = _city(state, city_id)
    return {"city_id": city_id, "city": row["name"], "days": [dict(d) for d in row["forecast"][:days]]}


@lookup("Active severe-weather warnings for a city (may be an empty list).", requires=(FIND_CITY,), city_id=CITY_ID)
def get_weather_alerts(state: WorldState, city_id: str) -> dict[str, Any]:
    row = _city(state, city_id)
    return {"city_id": city_id, "city": row["name"], "alerts": [dict(a) for a in row["alerts"]]}


# news ------------------------------------------------------------------------------------------------


def _headline(key: str, row: Row) -> dict[str, Any]:
    return {
        "article_id": key,
        "title": row["title"],
        "topic": row["topic"],
        "source": row["source"],
        "published_at": row["published_at"],
    }


def _newest_first(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(found, key=lambda a: (a["published_at"], a["article_id"]), reverse=True)


@lookup(
    "Latest headlines for a news topic, newest first; returns article ids for get_article_details.",
    topic=string("News topic.", enum=NEWS_TOPICS),
    limit=optional(integer("Most headlines to return (default 5).", 1, 10)),
)
def get_news_headlines(state: WorldState, topic: str, limit: int = 5) -> dict[str, Any]:
    found = _newest_first([_headline(k, r) for k, r in state.rows("news_articles") if r["topic"] == topic])[:limit]
    state.reveal("article", *(a["article_id"] for a in found))
    return {"topic": topic, "headlines": found}


@lookup("Search news articles by words in their title or summary, newest first.", query=QUERY)
def search_news(state: WorldState, query: str) -> dict[str, Any]:
    check_query(query)
    found = _newest_first(
        [_headline(k, r) for k, r in state.rows("news_articles") if matches(query, r["title"], r["summary"])]
    )
    if not found:
        raise ToolError("not_found", "no_articles", f"No article matches '{query}'. Try fewer or other words.")
    state.reveal("article", *(a["article_id"] for a in found))
    return {"articles": found}


@lookup(
    "The full article: title, source, author, publication time, summary and body.",
    requires=(FIND_ARTICLE,),
    article_id=string("Article id from get_news_headlines or search_news."),
)
def get_article_details(state: WorldState, article_id: str) -> dict[str, Any]:
    row = state.require("news_articles", article_id, "article", f"{FIND_ARTICLE} or search_news")
    return {"article_id": article_id, **row}


# knowledge -------------------------------------------------------------------------------------------


@lookup(
    "Search the encyclopedia by name (people, places, landmarks, science); returns entry ids and summaries.",
    query=QUERY,
)
def search_knowledge(state: WorldState, query: str) -> dict[str, Any]:
    check_query(query)
    found = [
        {"entry_id": k, "title": r["title"], "category": r["category"], "summary": r["summary"]}
        for k, r in state.rows("knowledge")
        if matches(query, r["title"], *r["aliases"])
    ]
    if not found:
        raise ToolError("not_found", "no_entry", f"No encyclopedia entry matches '{query}'. Try the subject's name.")
    state.reveal("entry", *(e["entry_id"] for e in found))
    return {"entries": found}


@lookup(
    "An encyclopedia entry in full: summary and key facts (dates, sizes, people).",
    requires=(FIND_ENTRY,),
    entry_id=string("Entry id from search_knowledge."),
)
def get_knowledge_entry(state: WorldState, entry_id: str) -> dict[str, Any]:
    row = state.require("knowledge", entry_id, "entry", FIND_ENTRY)
    return {"entry_id": entry_id, "title": row["title"], "summary": row["summary"], "facts": dict(row["facts"])}
