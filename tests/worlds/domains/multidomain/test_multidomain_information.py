"""Information domain of the multidomain world: every tool's success and refusal paths (a refusal leaves the
state as it was), and every intent primitive executed against fresh worlds."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.support import tool_coverage
from tests.support.intent_checks import propose_and_check
from tests.support.tool_coverage import ToolCoverage
from worlds.domains.multidomain.domains.information_intents import PRIMITIVES
from worlds.domains.multidomain.pack import MultiDomainPack
from worlds.domains.multidomain.world import MultiDomainWorld


@pytest.fixture(scope="module")
def pack() -> MultiDomainPack:
    return MultiDomainPack()


@pytest.fixture
def world(pack: MultiDomainPack) -> MultiDomainWorld:
    return pack.new_world(0)


PACK = MultiDomainPack(tasks=[])
call = tool_coverage.call
coverage = ToolCoverage(PACK, "information")
ok, refused, covers = coverage.ok, coverage.refused, coverage.covers
DOMAIN_TOOLS, SUCCESS_TESTED, FAILURE_TESTED = coverage.tools, coverage.success, coverage.failure


# weather ---------------------------------------------------------------------------------------------


@covers(success=("get_current_weather", "get_user_location"))
async def test_user_location_reveals_the_home_city(world: MultiDomainWorld) -> None:
    assert await ok(world, "get_user_location") == {"city_id": "london", "name": "London", "country": "United Kingdom"}
    assert (await ok(world, "get_current_weather", city_id="london"))["condition"] == "light rain"


@covers(failure=("get_user_location",))
async def test_user_location_unavailable_for_an_uncovered_city(world: MultiDomainWorld) -> None:
    world.state.update("users", "u1", city="Reykjavik")
    await refused(world, "unavailable", "no_location", "get_user_location")


@covers(success=("find_cities",), failure=("find_cities",))
async def test_find_cities(world: MultiDomainWorld) -> None:
    found = await ok(world, "find_cities", query="united kingdom")
    assert [c["city_id"] for c in found["cities"]] == ["london", "manchester", "edinburgh"]
    await refused(world, "not_found", "no_city", "find_cities", query="Atlantis")
    await refused(world, "invalid_arguments", "empty_query", "find_cities", query="  ")


@covers(success=("find_cities", "get_current_weather"), failure=("get_current_weather",))
async def test_current_weather_needs_a_lookup(world: MultiDomainWorld) -> None:
    await refused(world, "failed", "not_looked_up", "get_current_weather", city_id="paris")
    await refused(world, "not_found", "unknown_city", "get_current_weather", city_id="narnia")
    await ok(world, "find_cities", query="Paris")
    weather = await ok(world, "get_current_weather", city_id="paris")
    assert (weather["city"], weather["temperature_c"]) == ("Paris", 10)


@covers(success=("find_cities", "get_weather_forecast"), failure=("get_weather_forecast",))
async def test_forecast(world: MultiDomainWorld) -> None:
    await ok(world, "find_cities", query="Tokyo")
    assert len((await ok(world, "get_weather_forecast", city_id="tokyo"))["days"]) == 3
    days = (await ok(world, "get_weather_forecast", city_id="tokyo", days=5))["days"]
    assert days[0]["date"] == "2026-03-14" and len(days) == 5
    await refused(world, "invalid_arguments", "out_of_range", "get_weather_forecast", city_id="tokyo", days=6)


@covers(success=("find_cities", "get_user_location", "get_weather_alerts"), failure=("get_weather_alerts",))
async def test_weather_alerts(world: MultiDomainWorld) -> None:
    await refused(world, "failed", "not_looked_up", "get_weather_alerts", city_id="london")
    await ok(world, "get_user_location")
    assert (await ok(world, "get_weather_alerts", city_id="london"))["alerts"][0]["type"] == "wind"
    await ok(world, "find_cities", query="Paris")
    assert (await ok(world, "get_weather_alerts", city_id="paris"))["alerts"] == []


# news and encyclopedia -------------------------------------------------------------------------------


@covers(success=("get_news_headlines",), failure=("get_news_headlines",))
async def test_headlines_newest_first(world: MultiDomainWorld) -> None:
    found = (await ok(world, "get_news_headlines", topic="sports"))["headlines"]
    assert [h["article_id"] for h in found] == ["news_six_nations", "news_marathon", "news_league_cup"]
    assert len((await ok(world, "get_news_headlines", topic="sports", limit=1))["headlines"]) == 1
    await refused(world, "invalid_arguments", "invalid_value", "get_news_headlines", topic="gossip")


@covers(success=("search_news",), failure=("search_news",))
async def test_search_news(world: MultiDomainWorld) -> None:
    found = (await ok(world, "search_news", query="quantum chip"))["articles"]
    assert [a["article_id"] for a in found] == ["news_quantum_chip"]
    await refused(world, "not_found", "no_articles", "search_news", query="zeppelin")


@covers(success=("get_article_details", "get_news_headlines"), failure=("get_article_details",))
async def test_article_details_needs_a_lookup(world: MultiDomainWorld) -> None:
    await refused(world, "failed", "not_looked_up", "get_article_details", article_id="news_marathon")
    await ok(world, "get_news_headlines", topic="sports")
    article = await ok(world, "get_article_details", article_id="news_marathon")
    assert article["author"] == "Priya Natarajan" and "60,000" in article["body"]


@covers(success=("search_knowledge",), failure=("search_knowledge",))
async def test_search_knowledge_by_alias(world: MultiDomainWorld) -> None:
    found = (await ok(world, "search_knowledge", query="Elizabeth Tower"))["entries"]
    assert [e["entry_id"] for e in found] == ["big_ben"]
    await refused(world, "not_found", "no_entry", "search_knowledge", query="Atlantis")


@covers(success=("get_knowledge_entry", "search_knowledge"), failure=("get_knowledge_entry",))
async def test_knowledge_entry(world: MultiDomainWorld) -> None:
    await refused(world, "not_found", "unknown_entry", "get_knowledge_entry", entry_id="atlantis")
    await refused(world, "failed", "not_looked_up", "get_knowledge_entry", entry_id="mount_everest")
    await ok(world, "search_knowledge", query="Everest")
    entry = await ok(world, "get_knowledge_entry", entry_id="mount_everest")
    assert entry["facts"]["height"] == "8,849 metres"


# stocks ----------------------------------------------------------------------------------------------


@covers(success=("search_stocks",), failure=("search_stocks",))
async def test_search_stocks(world: MultiDomainWorld) -> None:
    assert (await ok(world, "search_stocks", query="hsbc"))["stocks"][0]["symbol"] == "HSBA.L"
    assert [s["symbol"] for s in (await ok(world, "search_stocks", query="TSLA"))["stocks"]] == ["TSLA"]
    await refused(world, "not_found", "no_stock", "search_stocks", query="Initech")


@covers(success=("get_stock_quote", "search_stocks"), failure=("get_stock_quote",))
async def test_quote(world: MultiDomainWorld) -> None:
    await refused(world, "failed", "not_looked_up", "get_stock_quote", symbol="AAPL")
    await ok(world, "search_stocks", query="Apple")
    quote = await ok(world, "get_stock_quote", symbol="AAPL")
    assert quote["market_status"] == "closed" and quote["as_of"] == "2026-03-13"
    assert quote["change"] == round(quote["price"] - quote["previous_close"], 2)


@covers(success=("get_stock_history", "search_stocks"), failure=("get_stock_history",))
async def test_history(world: MultiDomainWorld) -> None:
    await ok(world, "search_stocks", query="Tesla")
    history = await ok(world, "get_stock_history", symbol="TSLA", days=10)
    assert len(history["closes"]) == 10 and history["closes"][-1]["date"] == "2026-03-13"
    assert history["change_percent"] < 0
    await refused(world, "invalid_arguments", "out_of_range", "get_stock_history", symbol="TSLA", days=1)


@covers(success=("get_stock_quote", "get_watchlist"), failure=("get_watchlist",))
async def test_watchlist_reveals_its_symbols(world: MultiDomainWorld) -> None:
    entries = (await ok(world, "get_watchlist"))["watchlist"]
    assert [e["symbol"] for e in entries] == ["AAPL", "NVDA", "HSBA.L", "SHEL.L"]
    assert (await ok(world, "get_stock_quote", symbol="NVDA"))["symbol"] == "NVDA"
    await refused(world, "invalid_arguments", "unexpected_argument", "get_watchlist", user="u1")


@covers(success=("add_to_watchlist", "search_stocks"), failure=("add_to_watchlist",))
async def test_add_to_watchlist(world: MultiDomainWorld) -> None:
    await refused(world, "failed", "not_looked_up", "add_to_watchlist", symbol="BP.L")
    await ok(world, "search_stocks", query="BP")
    assert (await ok(world, "add_to_watchlist", symbol="BP.L"))["added"]["alert_above"] is None
    assert world.state.get("watchlist", "BP.L") == {
        "added_at": world.state.now,
        "alert_above": None,
        "alert_below": None,
    }
    await refused(world, "failed", "already_watched", "add_to_watchlist", symbol="BP.L")


@covers(success=("get_watchlist", "remove_from_watchlist"), failure=("remove_from_watchlist",))
async def test_remove_from_watchlist(world: MultiDomainWorld) -> None:
    await ok(world, "get_watchlist")
    assert "SHEL.L" not in (await ok(world, "remove_from_watchlist", symbol="SHEL.L"))["watchlist"]
    assert world.state.get("watchlist", "SHEL.L") is None
    await refused(world, "not_found", "not_watched", "remove_from_watchlist", symbol="SHEL.L")


@covers(success=("get_watchlist", "search_stocks", "set_price_alert"), failure=("set_price_alert",))
async def test_price_alert(world: MultiDomainWorld) -> None:
    await ok(world, "search_stocks", query="Vodafone")
    await refused(world, "failed", "not_watched", "set_price_alert", symbol="VOD.L", above=1)
    await ok(world, "get_watchlist")
    await refused(world, "invalid_arguments", "no_level", "set_price_alert", symbol="NVDA")
    await refused(world, "invalid_arguments", "level_not_above", "set_price_alert", symbol="NVDA", above=100)
    await refused(world, "invalid_arguments", "level_not_below", "set_price_alert", symbol="NVDA", below=200)
    await ok(world, "set_price_alert", symbol="NVDA", below=120)
    row = world.state.get("watchlist", "NVDA")
    assert row is not None and (row["alert_above"], row["alert_below"]) == (160.0, 120.0)


def test_every_information_tool_has_both_paths_tested() -> None:
    information = {
        name for name, tool in MultiDomainPack(tasks=[]).toolkit.tools.items() if tool.domain == "information"
    }
    assert information == SUCCESS_TESTED
    assert information == FAILURE_TESTED


# intent primitives -----------------------------------------------------------------------------------


@pytest.mark.parametrize("primitive", PRIMITIVES, ids=lambda p: p.__name__)
async def test_primitive_on_fresh_worlds(pack: MultiDomainPack, primitive: Any) -> None:
    produced = 0
    for seed in range(40):
        produced += await propose_and_check(pack.new_world(0), primitive, random.Random(seed), None) is not None
    assert produced > 0


async def test_primitives_chained_with_follow_ups(pack: MultiDomainPack) -> None:
    """A conversation's worth of turns on one world, each offered the previous turn's focus."""
    for seed in range(8):
        world, rng, focus = pack.new_world(0), random.Random(seed), None
        for _ in range(25):
            intent = await propose_and_check(world, rng.choice(PRIMITIVES), rng, focus)
            focus = intent.focus if intent is not None else None


def test_primitives_do_not_mutate(pack: MultiDomainPack) -> None:
    world = pack.new_world(0)
    before = world.snapshot()
    for seed, primitive in enumerate(PRIMITIVES):
        primitive(world.state, random.Random(seed), None)
    assert world.snapshot() == before
