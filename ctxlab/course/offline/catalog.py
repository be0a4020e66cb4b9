"""The course's help-desk data: a few devices and tickets, and the lookups the tools run.

Everything here is fixed, module-level data and pure functions, so tool outputs are the
same on every machine and in every run (the notebooks are committed with their outputs).
Dates are judged against :data:`AS_OF`, not against today's date, for the same reason.

The device record is deliberately bulky (event log, sensor history, installed software):
roughly 2,000 tokens, like the raw JSON a real asset-management API returns. A later
lesson shows the token spike such an output causes and how to compact it.

Every lookup returns a JSON-ready dict; an unknown identifier gives a dict with an
``"error"`` field instead of raising, so an agent can read the problem and ask the user.
"""

from __future__ import annotations

import hashlib
from typing import Any

#: The date the catalog describes: warranty status is computed against it.
AS_OF = "2026-12-01"

#: Devices by serial number. ``warranty_end`` decides covered / expired (see :data:`AS_OF`).
DEVICES: dict[str, dict[str, Any]] = {
    # The laptop of the course's seed conversation (seed_support_conversation).
    "SN-4Q7K-22981": {
        "model": "Aurora 14 (2023)",
        "purchase_date": "2023-03-14",
        "warranty_end": "2027-03-14",
        "plan": "Aurora Care Plus, 4 years",
        "firmware": "v1.0.3",
        "os": "Windows 11 Home 23H2",
        "owner_email": "dana.whitfield@example.com",
        "profile": "thermal",
    },
    "C02XK1ZJG8WP": {
        "model": "MacBook Pro 14-inch (2021, M1 Pro)",
        "purchase_date": "2024-03-14",
        "warranty_end": "2027-03-14",
        "plan": "AppleCare+ for Mac",
        "firmware": "10151.121.1",
        "os": "macOS 14.6.1",
        "owner_email": "dana.kim@northwind.example",
        "profile": "thermal",
    },
    "C02YL3ABJG5H": {
        "model": "MacBook Air 13-inch (2020, M1)",
        "purchase_date": "2021-02-02",
        "warranty_end": "2022-02-02",
        "plan": "Limited Warranty",
        "firmware": "8422.141.2",
        "os": "macOS 13.6.9",
        "owner_email": "luis.ortega@northwind.example",
        "profile": "battery",
    },
    "FVFZQ8LMHV2F": {
        "model": "MacBook Pro 16-inch (2019, Intel Core i7)",
        "purchase_date": "2023-09-20",
        "warranty_end": "2026-09-20",
        "plan": "AppleCare Protection Plan",
        "firmware": "2069.40.2",
        "os": "macOS 14.7.2",
        "owner_email": "mei.chen@northwind.example",
        "profile": "network",
    },
    "5CG2041XYZ": {
        "model": "HP EliteBook 840 G8",
        "purchase_date": "2025-01-10",
        "warranty_end": "2028-01-10",
        "plan": "HP Care Pack, next business day",
        "firmware": "01.17.00",
        "os": "Windows 11 Pro 23H2",
        "owner_email": "sam.patel@northwind.example",
        "profile": "audio",
    },
    "7HQK2M3": {
        "model": "Dell Latitude 5440",
        "purchase_date": "2023-06-05",
        "warranty_end": "2026-06-05",
        "plan": "Dell ProSupport",
        "firmware": "1.14.1",
        "os": "Windows 11 Enterprise 23H2",
        "owner_email": "ada.obi@northwind.example",
        "profile": "display",
    },
}

#: Support tickets by id.
TICKETS: dict[str, dict[str, str]] = {
    "TCK-48213": {
        "status": "in progress",
        "owner": "Priya Nair (hardware desk)",
        "last_update": "2026-11-28 14:05 UTC",
        "summary": "Aurora 14 laptop: blinking red light, overheating, will not finish booting",
        "latest_note": "Repair authorisation issued; the laptop goes to the repair centre.",
    },
    "TCK-48214": {
        "status": "waiting on customer",
        "owner": "Jonas Berg (service desk)",
        "last_update": "2026-11-27 09:40 UTC",
        "summary": "VPN client drops the connection every few minutes",
        "latest_note": "Asked the user for the VPN client's log bundle.",
    },
    "TCK-47990": {
        "status": "resolved",
        "owner": "Amara Singh (identity team)",
        "last_update": "2026-11-19 16:22 UTC",
        "summary": "Mail app keeps asking for the account password",
        "latest_note": "Stale keychain entry removed; user confirmed the fix.",
    },
    "TCK-50112": {
        "status": "new",
        "owner": "unassigned",
        "last_update": "2026-11-30 08:15 UTC",
        "summary": "Request for a second monitor at desk 4.12",
        "latest_note": "Waiting for triage.",
    },
}

# Event-log lines per device profile: (subsystem, level, message).
_EVENTS: dict[str, list[tuple[str, str, str]]] = {
    "thermal": [
        ("thermal", "warning", "CPU die temperature above throttle threshold; clocks reduced"),
        ("thermal", "info", "Fan speed raised to maximum for sustained load"),
        ("power", "info", "Charger connected, 96 W USB-C adapter detected"),
        ("thermal", "warning", "Palm rest sensor reported high surface temperature"),
        ("kernel", "notice", "WindowServer process used high CPU for more than 5 minutes"),
        ("thermal", "info", "Thermal pressure level changed from nominal to heavy"),
    ],
    "battery": [
        ("power", "warning", "Battery health reported as Service Recommended"),
        ("power", "info", "Battery charge stopped at 80 percent by optimised charging"),
        ("power", "notice", "Unexpected shutdown at 14 percent reported charge"),
        ("kernel", "info", "Sleep prevented by a background sync process"),
        ("power", "info", "Charger disconnected"),
        ("power", "warning", "Battery voltage dropped sharply under load"),
    ],
    "network": [
        ("wifi", "warning", "Association with access point timed out"),
        ("wifi", "info", "Roamed to a stronger access point on the 5 GHz band"),
        ("vpn", "notice", "VPN tunnel re-established after a network change"),
        ("dns", "warning", "Name resolution slow: resolver took more than 2 seconds"),
        ("wifi", "info", "Wi-Fi power saving enabled on battery"),
        ("vpn", "warning", "VPN keepalive missed three times in a row"),
    ],
    "audio": [
        ("audio", "warning", "Default output switched to a disconnected Bluetooth headset"),
        ("audio", "info", "Realtek audio driver loaded"),
        ("bluetooth", "info", "Headset paired with hands-free profile"),
        ("audio", "notice", "Speaker output muted by a keyboard shortcut"),
        ("system", "info", "Windows Update installed a cumulative update"),
        ("audio", "warning", "Audio endpoint reported no active stream for the default device"),
    ],
    "display": [
        ("display", "warning", "Internal panel brightness flicker detected at low backlight"),
        ("display", "info", "External monitor connected over USB-C at 60 Hz"),
        ("graphics", "notice", "Graphics driver reset after a display timeout"),
        ("display", "info", "Panel self refresh enabled"),
        ("system", "info", "BIOS settings restored to defaults after update"),
        ("graphics", "warning", "Display driver stopped responding and recovered"),
    ],
}

_SOFTWARE = [
    ("Microsoft Teams", "24.11.2"),
    ("Google Chrome", "131.0.6778"),
    ("Zoom Workplace", "6.2.11"),
    ("CrowdStrike Falcon", "7.18.18"),
    ("Slack", "4.41.105"),
    ("GlobalProtect VPN", "6.2.4"),
    ("Microsoft Outlook", "16.91"),
    ("1Password", "8.10.54"),
]

_SENSORS = ("cpu_c", "gpu_c", "battery_c", "ssd_c", "palm_rest_c")
_EVENT_COUNT = 18
_SAMPLE_COUNT = 14


def _number(*parts: object) -> int:
    """A stable pseudo-random number from ``parts`` (the same on every machine)."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()
    return int(digest[:8], 16)


def normalize_serial(serial: str) -> str:
    """Upper-case a serial and drop spaces, as help desks do when they type one in."""
    return "".join(serial.split()).upper()


def normalize_ticket_id(ticket_id: str) -> str:
    """``"tck-48213"``, ``"#48213"`` and ``"48213"`` all mean ``"TCK-48213"``."""
    text = "".join(ticket_id.split()).upper().lstrip("#")
    return f"TCK-{text}" if text.isdigit() else text


def rma_number(serial: str) -> str:
    """The return authorisation number for a covered device (derived from its serial)."""
    return f"RMA-{_number('rma', normalize_serial(serial)) % 900000 + 100000}"


def device_record(serial: str) -> dict[str, Any]:
    """The asset-management record for ``serial``: bulky, as such records are."""
    key = normalize_serial(serial)
    if not key:
        return {"error": "serial is empty: pass the device's serial number"}
    device = DEVICES.get(key)
    if device is None:
        return {"error": f"no device with serial {key!r} in the asset catalog", "serial": key}
    profile = device["profile"]
    events = _EVENTS[profile]
    event_log = []
    for n in range(_EVENT_COUNT):
        subsystem, level, message = events[_number(key, "event", n) % len(events)]
        day = 10 + n
        minute = _number(key, "minute", n) % 1440
        event_log.append(
            {
                "time": f"2026-11-{day:02d}T{minute // 60:02d}:{minute % 60:02d}:00Z",
                "subsystem": subsystem,
                "level": level,
                "message": message,
            }
        )
    base = {"cpu_c": 52, "gpu_c": 47, "battery_c": 31, "ssd_c": 38, "palm_rest_c": 29}
    if profile == "thermal":
        base = {k: v + 25 for k, v in base.items()}
    readings = []
    for n in range(_SAMPLE_COUNT):
        sample: dict[str, Any] = {"time": f"2026-11-30T{8 + n // 2:02d}:{30 * (n % 2):02d}:00Z"}
        for sensor in _SENSORS:
            sample[sensor] = base[sensor] + _number(key, sensor, n) % 12
        sample["fan_rpm"] = 1800 + _number(key, "fan", n) % 4200
        readings.append(sample)
    software = [
        {"name": name, "version": version} for name, version in _SOFTWARE if _number(key, name) % 5
    ]
    return {
        "serial": key,
        "model": device["model"],
        "purchase_date": device["purchase_date"],
        "firmware": device["firmware"],
        "os": device["os"],
        "owner_email": device["owner_email"],
        "storage": {"capacity_gb": 1024, "free_gb": 61 + _number(key, "free") % 300},
        "battery": {
            "cycle_count": 90 + _number(key, "cycles") % 280,
            "health_percent": 71 + _number(key, "health") % 28,
        },
        "diagnostics": {
            "event_log": event_log,
            "sensor_readings": readings,
            "installed_software": software,
        },
    }


def warranty_status(serial: str) -> dict[str, Any]:
    """Coverage for ``serial`` on :data:`AS_OF`, with an RMA number when it is covered."""
    key = normalize_serial(serial)
    if not key:
        return {"error": "serial is empty: pass the device's serial number"}
    device = DEVICES.get(key)
    if device is None:
        return {"error": f"no device with serial {key!r} in the warranty database", "serial": key}
    covered = device["warranty_end"] >= AS_OF
    result: dict[str, Any] = {
        "serial": key,
        "model": device["model"],
        "plan": device["plan"],
        "status": "covered" if covered else "expired",
        "end_date": device["warranty_end"],
        "as_of": AS_OF,
    }
    if covered:
        result["rma"] = rma_number(key)
    return result


def ticket_status(ticket_id: str) -> dict[str, Any]:
    """Status, owner and last update of a ticket."""
    key = normalize_ticket_id(ticket_id)
    if not key:
        return {"error": "ticket_id is empty: pass the ticket id the user gave"}
    ticket = TICKETS.get(key)
    if ticket is None:
        return {"error": f"no ticket {key!r} in the help-desk system", "ticket_id": key}
    return {"ticket_id": key, **ticket}
