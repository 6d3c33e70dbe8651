"""τ²'s telecom user tools (dual control): what the user can check and do on its own phone, written for squall from
τ²'s documented behaviour. The agent never calls these; the user simulator does (``worlds.tau2.telecom_world``).

Each runs on the episode's ``Phone``; a setting that changes what the phone connects to triggers a network search,
and the answer ends with the status bar, as τ²'s do.
"""

from __future__ import annotations

from typing import Any

from worlds.common.toolbook import action, lookup, string
from worlds.tau2.telecom_phone import APN_DEFAULTS, DEFAULT_VPN, Phone

MODES = ("4g_5g_preferred", "4g_only", "3g_only", "2g_only")
SPEED_ADVICE = {
    "Very Poor": "Connection is very slow. Basic web browsing might be difficult.",
    "Poor": "Connection is slow. Web browsing may be sluggish, streaming difficult.",
    "Fair": "Connection is okay for web browsing and some standard definition streaming.",
    "Good": "Connection is good for most activities, including HD streaming.",
    "Excellent": "Connection is very fast.",
}
_APP = string("The app's name, such as 'messaging'.")
ON = {True: "ON", False: "OFF"}


@lookup("Show the icons in your phone's status bar: signal, mobile data, Wi-Fi, battery.")
def check_status_bar(phone: Phone) -> Any:
    return f"Status Bar: {phone.status_bar()}"


@lookup("Check your phone's connection to cellular networks and Wi-Fi.")
def check_network_status(phone: Phone) -> Any:
    device = phone.device
    lines = [
        f"Airplane Mode: {ON[device['airplane_mode']]}",
        f"SIM Card Status: {phone.sim_status()}",
        f"Cellular Connection: {device['network_connection_status']}",
        f"Cellular Signal: {device['network_signal_strength']}",
        f"Cellular Network Type: {device['network_technology_connected']}",
        f"Mobile Data Enabled: {'Yes' if device['data_enabled'] else 'No'}",
        f"Data Roaming Enabled: {'Yes' if device['roaming_enabled'] else 'No'}",
        f"Wi-Fi Radio: {ON[device['wifi_enabled']]}",
        f"Wi-Fi Connected: {'Yes' if device['wifi_connected'] else 'No'}",
    ]
    if device["wifi_connected"]:
        lines.append(f"Connected Wi-Fi Network: {device['wifi_ssid']}")
    return "\n".join(lines)


@lookup("Show the current network mode preference.")
def check_network_mode_preference(phone: Phone) -> Any:
    return f"Network Mode Preference: {phone.device['network_mode_preference']}"


@action("Change the type of cellular network your phone prefers (5G, 4G, 3G, 2G).", mode=string("The mode.", MODES))
def set_network_mode_preference(phone: Phone, mode: str) -> Any:
    phone.device["network_mode_preference"] = mode
    phone.network_search()
    return phone.with_bar(f"Preferred Network Mode set to: {mode}")


@lookup("Measure your current internet download speed.")
def run_speed_test(phone: Phone) -> Any:
    mbps, band = phone.speed()
    if mbps is None:
        return f"Speed test failed: {band}."
    return f"Speed Test Result: {mbps:.2f} Mbps ({band}). {SPEED_ADVICE[band]}"


def airplane_mode(phone: Phone) -> bool:
    """Flip airplane mode; the new state. Turning it on drops Wi-Fi and the VPN; either way the phone searches."""
    device = phone.device
    was_on = device["airplane_mode"]
    device["airplane_mode"] = not was_on
    if was_on:
        device["network_connection_status"] = "searching"
    if not was_on or device["wifi_enabled"]:
        device.update(wifi_connected=False, wifi_ssid=None, wifi_signal_strength="none")
    if not was_on and device["vpn_connected"]:
        device.update(vpn_connected=False, vpn_details=None)
    phone.network_search()
    return bool(device["airplane_mode"])


@action("Turn Airplane Mode ON or OFF (when ON, every wireless connection is off).")
def toggle_airplane_mode(phone: Phone) -> Any:
    return phone.with_bar(f"Airplane Mode is now {ON[airplane_mode(phone)]}.")


@lookup("Check whether your SIM card works: active, missing, or locked with a PIN or PUK.")
def check_sim_status(phone: Phone) -> Any:
    return {
        "active": "Your SIM card is active and working.",
        "missing": "No SIM card detected in the phone.",
        "locked_pin": "The SIM card is locked with a PIN code.",
        "locked_puk": "The SIM card is locked with a PUK code.",
    }[phone.sim_status()]


@action("Take your SIM card out and put it back in.")
def reseat_sim_card(phone: Phone) -> Any:
    phone.device["sim_card_missing"] = False
    phone.network_search()
    return phone.with_bar("SIM card re-seated successfully.")


def flip(phone: Phone, setting: str, search: bool = True) -> bool:
    """Flip a device switch; the new state."""
    phone.device[setting] = not phone.device[setting]
    if search:
        phone.network_search()
    return bool(phone.device[setting])


@action("Turn mobile data ON or OFF.")
def toggle_data(phone: Phone) -> Any:
    return phone.with_bar(f"Mobile Data is now {ON[flip(phone, 'data_enabled')]}.")


@action("Turn Data Roaming ON or OFF (using data networks outside your carrier's coverage).")
def toggle_roaming(phone: Phone) -> Any:
    return phone.with_bar(f"Data Roaming is now {ON[flip(phone, 'roaming_enabled')]}.")


@lookup("Check whether a data-limiting feature (Data Saver) is on.")
def check_data_restriction_status(phone: Phone) -> Any:
    return (
        "Data Saver mode is ON (limits data usage)." if phone.device["data_saver_mode"] else "Data Saver mode is OFF."
    )


@action("Turn Data Saver mode ON or OFF (it reduces data usage and may slow data).")
def toggle_data_saver_mode(phone: Phone) -> Any:
    return phone.with_bar(f"Data Saver Mode is now {ON[flip(phone, 'data_saver_mode', search=False)]}.")


@lookup("Check the APN settings your phone uses for mobile data and picture messages.")
def check_apn_settings(phone: Phone) -> Any:
    apn = phone.device["active_apn_settings"]
    return (
        f"Current APN Name: {apn['apn_name'] or 'Not Set'}\nMMSC URL (for picture messages): "
        f"{apn['mmsc_url'] or 'Not Set'}\n(These are technical settings, usually best left unchanged.)"
    )


@action(
    "Set your phone's APN settings.",
    apn_settings={
        "type": "object",
        "description": "The APN settings: apn_name ('internet'), mms_apn, mmsc_url, mms_proxy, mms_port.",
    },
)
def set_apn_settings(phone: Phone, apn_settings: dict[str, Any]) -> Any:
    phone.device["active_apn_settings"] = APN_DEFAULTS | dict(apn_settings)
    phone.network_search()
    return phone.with_bar(f"APN settings set to: {phone.device['active_apn_settings']['apn_name']}")


@action("Reset your APN settings to the defaults (applied at the next reboot).")
def reset_apn_settings(phone: Phone) -> Any:
    phone.device["active_apn_settings"]["reset_at_reboot"] = True
    phone.network_search()
    return phone.with_bar("APN settings will reset at reboot.")


@lookup("Check whether Wi-Fi is on, which network it is connected to, and its signal.")
def check_wifi_status(phone: Phone) -> Any:
    device = phone.device
    if not device["wifi_enabled"]:
        return "Wi-Fi is turned OFF."
    if device["wifi_connected"]:
        return (
            f"Wi-Fi is ON and connected to '{device['wifi_ssid']}'. Signal strength: {device['wifi_signal_strength']}."
        )
    return "Wi-Fi is ON but not connected to any network."


@action("Turn the Wi-Fi radio ON or OFF.")
def toggle_wifi(phone: Phone) -> Any:
    device = phone.device
    if device["airplane_mode"]:
        return phone.with_bar("Cannot change Wi-Fi settings while Airplane Mode is ON.")
    device["wifi_enabled"] = not device["wifi_enabled"]
    if not device["wifi_enabled"]:
        device.update(wifi_connected=False, wifi_ssid=None, wifi_signal_strength="none")
    return phone.with_bar(f"Wi-Fi is now {ON[device['wifi_enabled']]}.")


@lookup("Check whether Wi-Fi Calling is on.")
def check_wifi_calling_status(phone: Phone) -> Any:
    return f"Wi-Fi Calling is currently turned {ON[phone.device['wifi_calling_enabled']]}."


@action("Turn Wi-Fi Calling ON or OFF (calls over Wi-Fi instead of the cellular network).")
def toggle_wifi_calling(phone: Phone) -> Any:
    return phone.with_bar(f"Wi-Fi Calling is now {ON[flip(phone, 'wifi_calling_enabled', search=False)]}.")


@lookup("Check whether a VPN is on and connected.")
def check_vpn_status(phone: Phone) -> Any:
    device = phone.device
    if device["vpn_connected"]:
        details = device["vpn_details"]
        return f"VPN is ON and connected. Details: {details}" if details else "VPN is ON and connected."
    return "VPN is turned ON in settings, but currently not connected." if device["vpn_enabled_setting"] else (
        "VPN is turned OFF.")  # fmt: skip


@action("Connect your VPN.")
def connect_vpn(phone: Phone) -> Any:
    if phone.device["vpn_connected"]:
        return "VPN already connected."
    phone.device.update(vpn_connected=True, vpn_details=dict(DEFAULT_VPN))
    return phone.with_bar("VPN connected successfully.")


@action("Disconnect any active VPN connection.")
def disconnect_vpn(phone: Phone) -> Any:
    was = phone.device["vpn_connected"]
    if was:
        phone.device.update(vpn_connected=False, vpn_details=None)
    return phone.with_bar("VPN disconnected successfully." if was else "No active VPN connection to disconnect.")


@lookup("List the apps installed on your phone.")
def check_installed_apps(phone: Phone) -> Any:
    return f"The following apps are installed on the phone: {', '.join(phone.device['app_statuses'])}"


def _granted(permissions: dict[str, bool]) -> list[str]:
    return [name.replace("_", " ").lower() for name, allowed in permissions.items() if allowed]


@lookup("Check an app's details: the permissions it has.", app_name=_APP)
def check_app_status(phone: Phone, app_name: str) -> Any:
    app = phone.device["app_statuses"].get(app_name)
    if app is None:
        return f"App '{app_name}' not found on this phone."
    granted = _granted(app["permissions"])
    lines = [f"Status for App: {app_name}"]
    lines += (
        [" - Permissions Granted:", *(f"   - {p}" for p in granted)] if granted else [" - Permissions: None granted."]
    )
    return "\n".join(lines)


@lookup("Check which permissions an app has.", app_name=_APP)
def check_app_permissions(phone: Phone, app_name: str) -> Any:
    app = phone.device["app_statuses"].get(app_name)
    if app is None:
        return f"App '{app_name}' not found on this phone."
    granted = _granted(app["permissions"])
    if not granted:
        return f"App '{app_name}' currently has no permissions granted."
    return f"App '{app_name}' has permission for: {', '.join(granted)}."


@action(
    "Give an app a permission (such as storage or sms).",
    app_name=_APP,
    permission=string("The permission, lowercase: sms, storage, phone or network."),
)
def grant_app_permission(phone: Phone, app_name: str, permission: str) -> Any:
    app = phone.device["app_statuses"].get(app_name)
    permission = permission.lower()
    if app is None:
        message = f"Error. App '{app_name}' not found. Cannot grant permission."
    elif permission not in app["permissions"]:
        tracked = list(app["permissions"])
        message = f"Error. Permission '{permission}' not tracked for app '{app_name}', available permissions: {tracked}"
    else:
        app["permissions"][permission] = True
        message = f"Success. Permission '{permission}' granted to app '{app_name}'."
    return phone.with_bar(message)


@lookup("Check whether your messaging app can send MMS (picture) messages.")
def can_send_mms(phone: Phone) -> Any:
    return f"Your messaging app {'can' if phone.can_send_mms() else 'cannot'} send MMS messages."


@action("Restart your phone.")
def reboot_device(phone: Phone) -> Any:
    lines = []
    if phone.device["active_apn_settings"]["reset_at_reboot"]:
        lines.append("Resetting APN settings...")
        phone.device["active_apn_settings"] = dict(APN_DEFAULTS)
    lines.append("Restarting network services...")
    phone.device["network_connection_status"] = "searching"
    phone.network_search()
    return phone.with_bar("\n".join(lines))


@lookup("Check whether the agent has sent you a payment request.")
def check_payment_request(phone: Phone) -> Any:
    request = phone.around["payment_request"]
    if request is None:
        return "No payment request has been made."
    return f"You have a payment request for bill {request['bill_id']} of {request['amount_due']} USD."


@action("Pay the bill the agent sent you a payment request for.")
def make_payment(phone: Phone) -> Any:
    request = phone.around["payment_request"]
    if request is None:
        return "You do not have a payment request."
    request["paid"] = True
    return f"Payment of {request['amount_due']} USD has been made for bill {request['bill_id']}."
