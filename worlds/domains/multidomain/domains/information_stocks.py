"""Stocks, in the information domain: search, quotes, price history, and the user's watchlist with price alerts.
Prices are the last close when the market is shut (the clock's day is a Saturday)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from worlds.common.errors import ToolError
from worlds.common.tables import Row
from worlds.common.toolbook import action, integer, lookup, number, optional, string
from worlds.domains.multidomain.domains.information import QUERY, check_query, matches
from worlds.domains.multidomain.state import WorldState

FIND_STOCK = "search_stocks"
SYMBOL = string("Ticker symbol as returned by search_stocks or get_watchlist, e.g. 'AAPL' or 'HSBA.L'.")


def _stock(state: WorldState, symbol: str) -> Row:
    return state.require("stocks", symbol, "stock", f"{FIND_STOCK} or get_watchlist")


def _change(old: float, new: float) -> dict[str, float]:
    return {"change": round(new - old, 2), "change_percent": round((new - old) / old * 100, 2)}


def _market_status(state: WorldState) -> str:
    return "closed" if datetime.fromisoformat(state.now).weekday() >= 5 else "open"


def _quote(state: WorldState, symbol: str, row: Row) -> dict[str, Any]:
    return {
        "symbol": symbol,
        "name": row["name"],
        "exchange": row["exchange"],
        "currency": row["currency"],
        "price": row["price"],
        "previous_close": row["previous_close"],
        **_change(row["previous_close"], row["price"]),
        "open": row["open"],
        "day_high": row["day_high"],
        "day_low": row["day_low"],
        "volume": row["volume"],
        "market_cap_billion": row["market_cap_billion"],
        "market_status": _market_status(state),
        "as_of": row["history"][-1]["date"],
    }


def _entry(state: WorldState, symbol: str, row: Row) -> dict[str, Any]:
    stock = state.get("stocks", symbol)
    assert stock is not None
    return {
        "symbol": symbol,
        "name": stock["name"],
        "price": stock["price"],
        "currency": stock["currency"],
        **_change(stock["previous_close"], stock["price"]),
        "alert_above": row["alert_above"],
        "alert_below": row["alert_below"],
        "added_at": row["added_at"],
    }


@lookup("Find stocks by company name or ticker symbol; returns symbols, names, exchanges and currencies.", query=QUERY)
def search_stocks(state: WorldState, query: str) -> dict[str, Any]:
    check_query(query)
    found = [
        {"symbol": k, "name": r["name"], "exchange": r["exchange"], "currency": r["currency"]}
        for k, r in state.rows("stocks")
        if matches(query, k, r["name"])
    ]
    if not found:
        raise ToolError("not_found", "no_stock", f"No stock matches '{query}'. Try the company name or its ticker.")
    state.reveal("stock", *(s["symbol"] for s in found))
    return {"stocks": found}


@lookup(
    "A stock's latest quote: price, change since the previous close, day range, volume and market status.",
    requires=(FIND_STOCK,),
    symbol=SYMBOL,
)
def get_stock_quote(state: WorldState, symbol: str) -> dict[str, Any]:
    return _quote(state, symbol, _stock(state, symbol))


@lookup(
    "Daily closing prices over the most recent trading days, oldest first, and the change over the period.",
    requires=(FIND_STOCK,),
    symbol=SYMBOL,
    days=optional(integer("Number of trading days (default 5).", 2, 10)),
)
def get_stock_history(state: WorldState, symbol: str, days: int = 5) -> dict[str, Any]:
    row = _stock(state, symbol)
    closes = [{"date": h["date"], "close": h["close"]} for h in row["history"][-days:]]
    return {
        "symbol": symbol,
        "currency": row["currency"],
        "closes": closes,
        **_change(closes[0]["close"], closes[-1]["close"]),
    }


@lookup("The user's stock watchlist with current prices, daily change and any price alerts.")
def get_watchlist(state: WorldState) -> dict[str, Any]:
    entries = [_entry(state, k, r) for k, r in state.rows("watchlist")]
    state.reveal("stock", *(e["symbol"] for e in entries))
    return {"watchlist": entries}


@action("Add a stock to the user's watchlist.", requires=(FIND_STOCK,), symbol=SYMBOL)
def add_to_watchlist(state: WorldState, symbol: str) -> dict[str, Any]:
    row = _stock(state, symbol)
    if state.get("watchlist", symbol) is not None:
        raise ToolError("failed", "already_watched", f"{row['name']} ({symbol}) is already on the watchlist.")
    entry = {"added_at": state.now, "alert_above": None, "alert_below": None}
    state.put("watchlist", symbol, entry)
    return {"added": _entry(state, symbol, entry)}


@action(
    "Remove a stock from the user's watchlist (its price alerts go with it).",
    requires=("get_watchlist",),
    symbol=SYMBOL,
)
def remove_from_watchlist(state: WorldState, symbol: str) -> dict[str, Any]:
    row = _stock(state, symbol)
    if state.get("watchlist", symbol) is None:
        raise ToolError("not_found", "not_watched", f"{row['name']} ({symbol}) is not on the watchlist.")
    state.delete("watchlist", symbol)
    return {"removed": symbol, "watchlist": [k for k, _ in state.rows("watchlist")]}


@action(
    "Set a price alert on a watchlist stock: notify when the price rises above and/or falls below a level "
    "(in the stock's currency). The stock must be on the watchlist (add_to_watchlist); give at least one level; "
    "'above' must be over the current price and 'below' under it. A level not given is left as it was.",
    requires=(FIND_STOCK, "add_to_watchlist"),
    symbol=SYMBOL,
    above=optional(number("Alert when the price rises above this.", 0)),
    below=optional(number("Alert when the price falls below this.", 0)),
)
def set_price_alert(
    state: WorldState, symbol: str, above: float | None = None, below: float | None = None
) -> dict[str, Any]:
    row = _stock(state, symbol)
    entry = state.get("watchlist", symbol)
    if entry is None:
        raise ToolError(
            "failed", "not_watched", f"{row['name']} ({symbol}) is not on the watchlist: add it with add_to_watchlist."
        )
    if above is None and below is None:
        raise ToolError("invalid_arguments", "no_level", "Give 'above', 'below' or both.")
    price = row["price"]
    if above is not None and above <= price:
        raise ToolError("invalid_arguments", "level_not_above", f"'above' must be over the current price {price}.")
    if below is not None and below >= price:
        raise ToolError("invalid_arguments", "level_not_below", f"'below' must be under the current price {price}.")
    changes = {k: float(v) for k, v in (("alert_above", above), ("alert_below", below)) if v is not None}
    return {"alert": _entry(state, symbol, state.update("watchlist", symbol, **changes))}
