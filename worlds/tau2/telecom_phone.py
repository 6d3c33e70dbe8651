"""The telecom user's phone and surroundings (τ²'s user-side state), written for squall from τ²'s documented behaviour.

``Phone.data`` is plain JSON: ``device`` (airplane mode, SIM, signal, mobile data, roaming, APN, Wi-Fi, VPN, apps)
and ``surroundings`` (who and where the user is, what the carrier allows: kept in step with the agent's database by
``worlds.tau2.telecom_world``). The rules every user tool shares live here: the network search a setting change
triggers, whether mobile data works, the speed test, whether MMS can be sent, the status bar.
"""

from __future__ import annotations

import copy
from typing import Any

APN_DEFAULTS: dict[str, Any] = {
    "apn_name": "internet",
    "reset_at_reboot": False,
    "mms_apn": "mms",
    "mmsc_url": "http://mms.carrier.com/mms/wapenc",
    "mms_proxy": None,
    "mms_port": None,
}
PERMISSIONS = ("sms", "storage", "phone", "network")
DEVICE_DEFAULTS: dict[str, Any] = {
    "sim_card_status": "active",
    "sim_card_missing": False,
    "airplane_mode": False,
    "network_signal_strength": "good",
    "network_technology_connected": "5G",
    "network_connection_status": "connected",
    "battery_level": 80,
    "data_enabled": True,
    "roaming_enabled": False,
    "network_mode_preference": "4g_5g_preferred",
    "active_apn_settings": APN_DEFAULTS,
    "wifi_enabled": False,
    "wifi_connected": False,
    "wifi_ssid": None,
    "wifi_signal_strength": "none",
    "wifi_calling_enabled": False,
    "wifi_calling_mms_over_wifi": False,
    "data_saver_mode": False,
    "vpn_enabled_setting": False,
    "vpn_connected": False,
    "vpn_details": None,
    "app_statuses": {},
}
SURROUNDINGS_DEFAULTS: dict[str, Any] = {
    "name": None,
    "phone_number": None,
    "is_abroad": False,
    "roaming_allowed": False,
    "signal_strength": {"2G": "poor", "3G": "fair", "4G": "good", "5G": "excellent"},
    "mobile_data_usage_exceeded": False,
    "line_active": True,
    "payment_request": None,
}
DEFAULT_VPN = {"server_address": "192.168.1.1", "protocol": "OpenVPN", "server_performance": "excellent"}
MODE_TECHNOLOGY = {"4g_only": "4G", "3g_only": "3G", "2g_only": "2G"}
SPEED_RANGE = {"2G": (0.1, 0.4), "3G": (1.0, 5.0), "4G": (10.0, 100.0), "5G": (50.0, 500.0)}
SIGNAL_FACTOR = {"poor": 0.2, "fair": 0.5, "good": 0.8, "excellent": 1.0}
SPEED_BANDS = ((1, "Very Poor"), (5, "Poor"), (25, "Fair"), (100, "Good"))
SIGNAL_ICON = {"poor": "📶¹ Poor", "fair": "📶² Fair", "good": "📶³ Good", "excellent": "📶⁴ Excellent"}


def base_phone(user_db: dict[str, Any]) -> dict[str, Any]:
    """The phone as τ²'s ``user_db.toml`` describes it, every field the file leaves out at its default."""
    device = copy.deepcopy(DEVICE_DEFAULTS) | copy.deepcopy(user_db.get("device") or {})
    device["active_apn_settings"] = APN_DEFAULTS | device["active_apn_settings"]
    device["app_statuses"] = {
        name: {"app_name": app.get("app_name", name), "permissions": {p: False for p in PERMISSIONS}
               | dict(app.get("permissions") or {})}
        for name, app in device["app_statuses"].items()
    }  # fmt: skip
    surroundings = copy.deepcopy(SURROUNDINGS_DEFAULTS) | copy.deepcopy(user_db.get("surroundings") or {})
    return {"device": device, "surroundings": surroundings}


class Phone:
    """One episode's phone: ``data`` is this episode's own copy."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = copy.deepcopy(data)

    @property
    def device(self) -> dict[str, Any]:
        return self.data["device"]

    @property
    def around(self) -> dict[str, Any]:
        return self.data["surroundings"]

    def sim_status(self) -> str:
        return "missing" if self.device["sim_card_missing"] else str(self.device["sim_card_status"])

    def network_search(self) -> None:
        """What the phone connects to after a change: by SIM, mode preference and the signal around it; nothing in
        airplane mode, with a broken APN or on a line that is not active."""
        device, signal = self.device, self.around["signal_strength"]
        if self.sim_status() == "active":
            device["network_connection_status"] = "connected"
            technology = MODE_TECHNOLOGY.get(device["network_mode_preference"], "4G")
            if device["network_mode_preference"] == "4g_5g_preferred" and signal.get("5G", "none") != "none":
                technology = "5G"
            device["network_technology_connected"] = technology
            device["network_signal_strength"] = signal.get(technology, "none")
        else:
            self._no_service()
        if device["airplane_mode"] or device["active_apn_settings"]["apn_name"] == "broken":
            self._no_service()
        if not self.around["line_active"]:
            self._no_service()

    def _no_service(self) -> None:
        self.device.update(
            network_connection_status="no_service", network_technology_connected="none", network_signal_strength="none"
        )

    def mobile_data_working(self) -> bool:
        device, around = self.device, self.around
        if device["airplane_mode"] or device["network_signal_strength"] == "none":
            return False
        if device["network_connection_status"] == "no_service":
            return False
        if around["is_abroad"] and not (device["roaming_enabled"] and around["roaming_allowed"]):
            return False
        return bool(device["data_enabled"]) and not around["mobile_data_usage_exceeded"]

    def speed(self) -> tuple[float | None, str]:
        """(Mbps, its band) of a speed test, or (None, 'No Connection')."""
        if not self.mobile_data_working():
            return None, "No Connection"
        device = self.device
        factor = 1.0
        vpn = device["vpn_details"]
        if device["vpn_connected"] and vpn and vpn.get("server_performance") == "poor":
            factor = 0.1
        if device["data_saver_mode"]:
            factor *= 0.2
        low, high = SPEED_RANGE.get(device["network_technology_connected"], (0.0, 0.0))
        mbps = round((low + high) / 2.0 * SIGNAL_FACTOR.get(device["network_signal_strength"], 0.0) * factor, 2)
        band = next((name for limit, name in SPEED_BANDS if mbps < limit), "Excellent")
        return mbps, band

    def can_send_mms(self) -> bool:
        device = self.device
        if not self.mobile_data_working() or device["network_technology_connected"] == "2G":
            return False
        if device["wifi_calling_enabled"] and device["wifi_calling_mms_over_wifi"]:
            return False
        if device["active_apn_settings"]["mmsc_url"] is None:
            return False
        app = device["app_statuses"].get("messaging")
        return app is not None and bool(app["permissions"]["storage"] and app["permissions"]["sms"])

    def status_bar(self) -> str:
        device = self.device
        shown: list[str] = []
        if device["airplane_mode"]:
            shown.append("✈️ Airplane Mode")
        else:
            shown.append(SIGNAL_ICON.get(device["network_signal_strength"], "📵 No Signal"))
            connected = device["network_technology_connected"] != "none"
            if connected:
                shown.append(device["network_technology_connected"])
            if device["data_enabled"] and connected:
                shown.append("📱 Data Enabled")
                if device["data_saver_mode"]:
                    shown.append("🔽 Data Saver")
            else:
                shown.append("📵 Data Disabled")
        if device["wifi_enabled"] and device["wifi_connected"]:
            shown.append(f"📡 Connected to {device['wifi_ssid']}" if device["wifi_ssid"] else "📡 Enabled")
        if device["vpn_connected"]:
            shown.append("🔒 VPN Connected")
        shown.append(f"🔋 {device['battery_level']}%")
        return " | ".join(shown)

    def with_bar(self, text: str) -> str:
        return f"{text}\nStatus Bar: {self.status_bar()}"
