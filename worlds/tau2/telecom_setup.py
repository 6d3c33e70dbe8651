"""What τ²'s telecom tasks do before the first turn and check after the last, on both sides: the functions their
``initialization_actions`` and ``env_assertions`` name (none of them a tool anyone may call in the conversation).

User side (the phone): who and where the user is, settings switched and things broken (the SIM taken out, the APN
broken, a slow VPN, a permission removed); the checks read the phone (is mobile data working, the speed test, can it
send MMS). Agent side (the database): data usage set, a line suspended for an unpaid bill; the checks read the
database.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from worlds.tau2.database import Database
from worlds.tau2.errors import refused
from worlds.tau2.telecom_phone import DEFAULT_VPN, Phone
from worlds.tau2.telecom_tools import TODAY, disable_roaming, enable_roaming, record, target_line
from worlds.tau2.telecom_user_tools import airplane_mode, flip, set_network_mode_preference

EPSILON = 1e-6


def _set_to(phone: Phone, setting: str, on: bool, search: bool = True) -> None:
    """τ²'s way: flip the switch, and flip it back if it was already so (the phone searches either way)."""
    if flip(phone, setting, search) != on:
        flip(phone, setting, search)


def _airplane(phone: Phone, on: bool) -> None:
    if airplane_mode(phone) != on:
        airplane_mode(phone)


def _lock_sim(phone: Phone, mode: str) -> None:
    phone.device["sim_card_status"] = {"pin": "locked_pin", "puk": "locked_puk"}[mode]
    phone.network_search()


def _break_apn(phone: Phone) -> None:
    phone.device["active_apn_settings"]["apn_name"] = "broken"
    phone.network_search()


def _break_vpn(phone: Phone) -> None:
    if not phone.device["vpn_connected"]:
        phone.device.update(vpn_connected=True, vpn_details=dict(DEFAULT_VPN))
    if phone.device["vpn_details"] is not None:
        phone.device["vpn_details"]["server_performance"] = "poor"


def _remove_permission(phone: Phone, app_name: str, permission: str) -> None:
    app = phone.device["app_statuses"].get(app_name)
    if app is not None and permission.lower() in app["permissions"]:
        app["permissions"][permission.lower()] = False


def _wifi_calling(phone: Phone, enabled: bool, mms_over_wifi: bool | None = None) -> None:
    phone.device["wifi_calling_enabled"] = enabled
    if mms_over_wifi is not None:
        phone.device["wifi_calling_mms_over_wifi"] = mms_over_wifi


USER_SETUP: MappingProxyType[str, Callable[..., Any]] = MappingProxyType({
    "set_user_info": lambda p, name, phone_number: p.around.update(name=name, phone_number=phone_number),
    "set_user_location": lambda p, abroad: p.around.update(is_abroad=abroad),
    "turn_airplane_mode_on": lambda p: _airplane(p, True),
    "turn_airplane_mode_off": lambda p: _airplane(p, False),
    "unseat_sim_card": lambda p: (p.device.update(sim_card_missing=True), p.network_search()),
    "lock_sim_card": _lock_sim,
    "turn_data_on": lambda p: p.device.update(data_enabled=True),
    "turn_data_off": lambda p: _set_to(p, "data_enabled", False),
    "turn_roaming_on": lambda p: _set_to(p, "roaming_enabled", True),
    "turn_roaming_off": lambda p: _set_to(p, "roaming_enabled", False),
    "turn_data_saver_mode_on": lambda p: _set_to(p, "data_saver_mode", True, search=False),
    "turn_data_saver_mode_off": lambda p: _set_to(p, "data_saver_mode", False, search=False),
    "break_apn_settings": _break_apn,
    "break_apn_mms_setting": lambda p: p.device["active_apn_settings"].update(mmsc_url=None),
    "break_vpn": _break_vpn,
    "remove_app_permission": _remove_permission,
    "set_wifi_calling": _wifi_calling,
    "simulate_network_search": lambda p: p.network_search(),
    "set_network_mode_preference": set_network_mode_preference,
})  # fmt: skip
"""τ²'s user-side initialization functions: name -> function(phone, **arguments)."""


def _speed_at_least(phone: Phone, expected_speed: float, expected_desc: str | None = None) -> bool:
    mbps, band = phone.speed()
    fast_enough = (mbps or 0.0) >= expected_speed
    return fast_enough if expected_desc is None else fast_enough and band.lower() == expected_desc.lower()


USER_CHECKS: MappingProxyType[str, Callable[..., bool]] = MappingProxyType({
    "assert_airplane_mode_status": lambda p, expected_status: p.device["airplane_mode"] == expected_status,
    "assert_service_status": lambda p, expected_status: p.device["network_connection_status"] == expected_status,
    "assert_mobile_data_status": lambda p, expected_status: p.mobile_data_working() == expected_status,
    "assert_mobile_roaming_status": lambda p, expected_status: p.device["roaming_enabled"] == expected_status,
    "assert_mobile_data_saver_mode_status": lambda p, expected_status: p.device["data_saver_mode"] == expected_status,
    "assert_internet_speed": _speed_at_least,
    "assert_internet_not_excellent": lambda p: p.speed()[1].lower() != "excellent",
    "assert_can_send_mms": lambda p, expected_status: p.can_send_mms() == expected_status,
    "assert_mobile_data_usage_exceeded": lambda p, expected_status: (
        p.around["mobile_data_usage_exceeded"] == expected_status),
})  # fmt: skip
"""τ²'s user-side assertions: name -> check(phone, **arguments)."""


def _set_data_usage(db: Database, customer_id: str, line_id: str, data_used_gb: float) -> str:
    target_line(db, customer_id, line_id)
    db.edit("lines", line_id)["data_used_gb"] = data_used_gb
    return f"Data usage set to {data_used_gb} GB for line {line_id}"


def _suspend_for_overdue_bill(
    db: Database, customer_id: str, line_id: str, new_bill_id: str, contract_ended: bool
) -> str:
    line = record(db, "lines", line_id)
    if line["status"] != "Active":
        raise refused("Line must be active to suspend for unpaid bill")
    amount = record(db, "plans", line["plan_id"])["price_per_month"]
    customer = record(db, "customers", customer_id)
    if any(record(db, "bills", b)["status"] == "Overdue" for b in customer["bill_ids"]):
        raise refused("Customer already has an overdue bill")
    last_month_end = TODAY.replace(day=1) - datetime.timedelta(days=1)
    last_month_start = last_month_end.replace(day=1)
    db.insert("bills", new_bill_id, {
        "bill_id": new_bill_id, "customer_id": customer_id, "period_start": last_month_start.isoformat(),
        "period_end": last_month_end.isoformat(), "issue_date": last_month_start.isoformat(), "total_due": amount,
        "due_date": (last_month_start + datetime.timedelta(days=14)).isoformat(), "status": "Overdue",
        "line_items": [{"description": f"Charge for line {line_id}", "amount": amount, "date": TODAY.isoformat(),
                        "item_type": "Charge"}],
    })  # fmt: skip
    db.edit("customers", customer_id)["bill_ids"].append(new_bill_id)
    line = db.edit("lines", line_id)
    line.update(status="Suspended", suspension_start_date=TODAY.isoformat())
    if contract_ended:
        line["contract_end_date"] = last_month_end.isoformat()
    return f"Line {line_id} suspended for unpaid bill {new_bill_id}. Contract ended: {contract_ended}"


AGENT_SETUP: MappingProxyType[str, Callable[..., Any]] = MappingProxyType({
    "set_data_usage": _set_data_usage,
    "suspend_line_for_overdue_bill": _suspend_for_overdue_bill,
    "enable_roaming": enable_roaming,
    "disable_roaming": disable_roaming,
})  # fmt: skip
"""τ²'s agent-side initialization functions: name -> function(database, **arguments)."""


def _no_overdue_bill(db: Database, overdue_bill_id: str) -> bool:
    bill = db.row("bills", overdue_bill_id)
    return bill is None or bill["status"] == "Paid"


AGENT_CHECKS: MappingProxyType[str, Callable[..., bool]] = MappingProxyType({
    "assert_data_refueling_amount": lambda db, customer_id, line_id, expected_amount: abs(
        target_line(db, customer_id, line_id)["data_refueling_gb"] - expected_amount) < EPSILON,
    "assert_line_status": lambda db, customer_id, line_id, expected_status: (
        target_line(db, customer_id, line_id)["status"] == expected_status),
    "assert_no_overdue_bill": _no_overdue_bill,
})  # fmt: skip
"""τ²'s agent-side assertions: name -> check(database, **arguments)."""
