"""A small troubleshooting playbook: which symptom a message describes, and what to try.

Each :class:`Symptom` has the phrases that reveal it, three or four short steps and exactly
one clarifying question. :func:`match_symptoms` lists the symptoms a message mentions, in
the order they appear, so a reply can deal with the first and keep the others open. Steps
and questions may contain ``{code}``, filled with the error code the message mentions.

A message in Chinese (:func:`ctxlab.facts.language.language_of`) is read with
:data:`PLAYBOOK_ZH`, written for the appliances and devices Chinese support chats are about
as much as for laptops (a fridge that does not cool, an air conditioner that blows cold air
on heating, a washer that stops half-way with water on the floor, a heater that will not
ignite), with Chinese titles, steps and questions. A title names the fault so that it fits
the device (a fridge's fault is 冰箱不制冷, not an air conditioner's cooling-or-heating
category): it is what the state message shows as the problem and what a reply calls it
("我们先解决冰箱不制冷的问题").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..facts.language import Language, language_of


@dataclass(frozen=True)
class Symptom:
    """One entry of the playbook."""

    key: str
    title: str
    pattern: re.Pattern[str]
    steps: tuple[str, ...]
    question: str
    #: Keys of more general entries this one stands for when both match (a fridge that
    #: does not cool is not also a separate "does not cool" problem).
    instead_of: tuple[str, ...] = ()

    def render(self, code: str = "") -> tuple[list[str], str]:
        """The numbered steps and the clarifying question, with ``{code}`` filled in."""
        steps = [f"{n}. {step.format(code=code)}" for n, step in enumerate(self.steps, 1)]
        return steps, self.question.format(code=code)


def _symptom(key: str, title: str, pattern: str, steps: list[str], question: str,
             instead_of: tuple[str, ...] = ()) -> Symptom:
    return Symptom(key, title, re.compile(pattern, re.IGNORECASE), tuple(steps), question,
                   instead_of)


#: A web error code, not an amount ("send 1,400 bucks", "$500", "500 dollars").
_HTTP = (r"(?<![\w.:/$-])(?<!\d,)(?:400|401|403|404|408|429|500|502|503|504)(?![\w-]|[.,:]\d)"
         r"(?!\s*(?:bucks|dollars|usd|eur|euros|pounds)\b)")

#: The playbook, most specific entries first (ties in position go to the earlier entry).
PLAYBOOK: tuple[Symptom, ...] = (
    _symptom(
        "http_error",
        "web error {code}",
        _HTTP + r"|\bpage not found\b",
        [
            "Check the address for typos, or open the link again from where you found it.",
            "Open the same page in a private window to rule out a stale cache or cookie.",
            "Try a different site; if every site fails, the problem is the connection, "
            "not the page.",
        ],
        "Do you see that error on every site, or only on one particular page?",
    ),
    _symptom(
        "error_code",
        "error {code}",
        r"\berror(?:[ _-]?code)?\s*[:#]?\s*(?:0x[0-9a-f]+|[a-z]{0,3}-?\d+)\b",
        [
            "Write down the exact wording of the error {code} message and when it appears.",
            "Restart the device, then try the same action once more.",
            "Install any pending system and app updates, since many error codes are fixed by them.",
        ],
        "Does error {code} appear right at startup, or only when you open a specific app?",
    ),
    _symptom(
        "blinking_light",
        "blinking status light",
        r"\b(?:red|orange|amber|white)?\s*(?:status\s+)?(?:light|led)s?\s+(?:is\s+|keeps\s+)?"
        r"(?:blinking|flashing|flickering)\b|\b(?:blinking|flashing)\s+(?:red\s+|orange\s+"
        r"|amber\s+)?(?:light|led)\b|\b(?:red|amber|orange)\s+(?:light|led)\b",
        [
            "Unplug the charger and every accessory, then hold the power button for 10 seconds.",
            "Reconnect only the charger and watch the light for one minute.",
            "Count the blinks in one cycle: the pattern is a hardware diagnostic code.",
        ],
        "How many times does the light blink before it pauses?",
    ),
    _symptom(
        "overheating",
        "overheating",
        r"\b(?:overheat\w*|too hot|running hot|gets? (?:very |really )?hot|heats? up"
        r"|fans? (?:is |are )?(?:loud|noisy|roaring|always on)|thermal)\b",
        [
            "Open Activity Monitor (Mac) or Task Manager (Windows) and quit any process "
            "using a lot of CPU.",
            "Keep the vents clear: work on a hard, flat surface rather than a bed or lap.",
            "Install pending system and firmware updates, then restart.",
        ],
        "Does it heat up even when idle, or only under load such as video calls?",
    ),
    _symptom(
        "no_power",
        "device will not power on",
        r"\b(?:won'?t|will not|doesn'?t|does not|can'?t) (?:turn on|power on|boot|start up)\b"
        r"|\bblack screen\b|\bcompletely dead\b",
        [
            "Charge it for 15 minutes with a charger you know works.",
            "Hold the power button for 10 seconds, release, then press it once.",
            "Disconnect every accessory, docks and external drives included.",
        ],
        "Do you hear a fan or see any light at all when you press the power button?",
    ),
    _symptom(
        "no_connection",
        "network connection",
        r"\b(?:won'?t|can'?t|cannot|doesn'?t|does not|unable to) (?:connect|get online)\b"
        r"|\bnot connecting\b|\bno (?:internet|network|connection)\b|\bwi-?fi\b"
        r"|\bkeeps? disconnecting\b|\bvpn\b",
        [
            "Turn Wi-Fi off and on again (or toggle airplane mode).",
            "Forget the network in Wi-Fi settings and join it again with the password.",
            "Restart the device; at home, restart the router as well.",
        ],
        "Can other devices on the same network get online?",
    ),
    _symptom(
        "battery",
        "battery",
        r"\bbattery\b|\b(?:won'?t|not|isn'?t) charging\b|\bwon'?t charge\b|\bdrain\w*\b",
        [
            "Check the battery health page in system settings.",
            "Try a different outlet, cable and charger if you have them.",
            "Lower screen brightness and close apps that keep running in the background.",
        ],
        "Is the problem that it will not charge at all, or that the charge runs out too quickly?",
    ),
    _symptom(
        "slow",
        "slowness",
        r"\b(?:slow\w*|sluggish|laggy|lagging|takes forever|freez\w*|frozen|hangs?)\b",
        [
            "Restart the device if it has been running for days.",
            "Make sure at least 10 percent of the disk is free.",
            "Check which apps start at login and disable the ones you do not need.",
        ],
        "Did the slowness start after a particular update or a newly installed app?",
    ),
    _symptom(
        "no_sound",
        "sound",
        r"\bno (?:sound|audio)\b|\bcan'?t hear\b|\b(?:sound|audio|speakers?) "
        r"(?:is |are )?(?:not working|stopped|broken|muted)\b|\bmuted\b",
        [
            "Open the sound settings and check which output device is selected.",
            "Make sure the volume is up and the device is not muted.",
            "Disconnect Bluetooth headphones, which often keep the audio to themselves.",
        ],
        "Is the sound missing everywhere, or only in one app such as Teams or the browser?",
    ),
    _symptom(
        "login",
        "sign-in",
        r"\bpassword\b|\blocked out\b|\b(?:can'?t|cannot|unable to) (?:log ?in|sign in)\b"
        r"|\b(?:mfa|2fa)\b",
        [
            "Check that Caps Lock is off and the keyboard layout is the usual one.",
            "Reset the password through the self-service portal.",
            "If the account is locked, wait 15 minutes before trying again.",
        ],
        "Are you locked out of the computer itself, or of one account such as email?",
    ),
    _symptom(
        "display",
        "display",
        r"\bflicker\w*\b|\bscreen (?:is )?(?:blank|dim|flashing)\b|\bexternal (?:monitor|display)"
        r"\b|\bno signal\b",
        [
            "Change the brightness a little: some panels flicker only at low backlight.",
            "Reconnect the display cable or dock firmly at both ends.",
            "Update the graphics driver or the system software.",
        ],
        "Does it also happen on an external monitor?",
    ),
    _symptom(
        "crash",
        "app crashes",
        r"\bcrash\w*\b|\bkeeps? (?:closing|quitting|restarting)\b|\bnot responding\b"
        r"|\bquits? unexpectedly\b",
        [
            "Quit the app completely and open it again.",
            "Update the app to its latest version.",
            "Restart the device to clear stuck background processes.",
        ],
        "Which app crashes, and does it happen right when it opens?",
    ),
    _symptom(
        "printer",
        "printing",
        r"\bprinter\b|\b(?:won'?t|can'?t|cannot) print\b|\bprint (?:job|queue)\b",
        [
            "Check that the printer is on, has paper and shows no error on its panel.",
            "Clear stuck jobs from the print queue.",
            "Remove the printer from your settings and add it again.",
        ],
        "Is it a shared office printer, or one connected directly to your computer?",
    ),
    _symptom(
        "peripheral",
        "keyboard, mouse or Bluetooth device",
        r"\bbluetooth\b|\bkeyboard\b|\bmouse\b|\btrackpad\b|\bheadset\b",
        [
            "Turn the accessory off and on, and charge or replace its battery.",
            "Remove it from the Bluetooth list and pair it again.",
            "Try it on another computer to see whether the accessory is at fault.",
        ],
        "Does the accessory work when it is plugged in with a cable?",
    ),
)

_HTTP_ZH = r"(?:400|401|403|404|408|429|500|502|503|504)"
_ZH_ERROR_LABEL = r"(?:错误代码|错误码|故障代码|故障码|报错代码|报错码|报错|错误)"
_ZH_CODE_VALUE = r"(?:0x[0-9A-Fa-f]+|[A-Za-z]{0,3}-?\d+)"

#: The playbook for messages in Chinese (same keys as :data:`PLAYBOOK` where the symptom is
#: the same; appliance symptoms have their own).
PLAYBOOK_ZH: tuple[Symptom, ...] = (
    _symptom(
        "http_error",
        "网页报错 {code}",
        r"(?:提示|出现|返回|弹出|报)了?\s*" + _HTTP_ZH + r"(?![0-9A-Za-z])"
        r"|(?<![0-9A-Za-z])" + _HTTP_ZH + r"\s*(?=错误|报错|页面)|页面打不开|找不到页面",
        [
            "检查网址有没有输错，或者从原来的链接重新打开。",
            "用浏览器的无痕窗口打开同一个页面，排除缓存或 Cookie 的问题。",
            "换个网站试试：要是哪个网站都打不开，问题就出在网络上，而不是这个页面。",
        ],
        "是所有网站都出现这个错误，还是只有某一个页面？",
    ),
    _symptom(
        "bsod",
        "蓝屏",
        r"蓝屏",
        [
            "记下蓝屏上的错误代码和最下面一行的文字。",
            "拔掉新接的外设（U 盘、扩展坞、打印机）后重启。",
            "进入安全模式，卸载最近安装的驱动或软件。",
        ],
        "蓝屏是最近装了什么驱动或软件之后才开始的吗？",
    ),
    _symptom(
        "error_code",
        "故障码 {code}",
        _ZH_ERROR_LABEL + r"\s*(?:是|为)?\s*[:：]?\s*" + _ZH_CODE_VALUE,
        [
            "把故障码 {code} 出现时的完整提示和出现的时间记下来。",
            "断电或关机，等一分钟后重新开机，再试一次同样的操作。",
            "如果有待安装的系统或固件更新，先装好再试。",
        ],
        "故障码 {code} 是一开机就出现，还是在做某个操作的时候才出现？",
    ),
    _symptom(
        "fridge_cooling",
        "冰箱不制冷",
        r"(?:冰箱|冷藏室?|冷冻室?)[^。！？]{0,12}?(?:不制冷|不凉|不冷|不冻|制冷(?:效果)?(?:差|不好))",
        [
            "看一下温控档位有没有被误调到最弱档，冷藏室一般放在中间档就行。",
            "检查冷藏室后面的出风口有没有被食物挡住，门封条有没有关严。",
            "拔掉电源等五分钟再插上，半小时后摸一下冷藏室是不是开始变凉。",
        ],
        "压缩机运转的时候，能听到冰箱背面有“嗡嗡”的声音吗？",
        ("cooling",),
    ),
    _symptom(
        "heating",
        "空调不制热",
        r"不制热|制热[^。！？]{0,6}(?:冷风|不热)|暖气不热",
        [
            "确认遥控器上选的是制热模式，设定温度比室温高几度。",
            "刚开机的几分钟只出冷风属于正常防冷风保护，等五分钟再看。",
            "清洗室内机的过滤网，检查室外机有没有结霜或被杂物挡住。",
        ],
        "等了五分钟以后，出风口还是冷风吗？",
        ("cooling",),
    ),
    _symptom(
        "cooling",
        "不制冷",
        r"不制冷|(?:一点都|一点也|都|也)?不凉了?|不冷了?|制冷(?:效果)?(?:差|不好)"
        r"|吹(?:的是)?热风",
        [
            "检查设定温度和运行模式是否正确。",
            "断电五分钟后重新通电开机。",
            "检查出风口和散热口有没有被挡住，周围留出通风空间。",
        ],
        "是完全不制冷，还是比平时效果差一些？",
    ),
    _symptom(
        "leak",
        "漏水",
        r"漏水|渗水|滴水|地上(?:还|都)?有水",
        [
            "先断电，关闭进水阀门。",
            "检查进水管和排水管的接口有没有松动或破损。",
            "擦干地面，留意水是从哪个位置流出来的。",
        ],
        "水是从机器底部流出来的，还是从管子接口处？",
    ),
    _symptom(
        "spinning",
        "原地打转",
        r"原地打转|(?:一直|老是|总是)转圈",
        [
            "把机器翻过来，检查左右驱动轮和万向轮有没有缠着头发或卡着异物。",
            "用干布擦一擦机器底部的沿边传感器和防跌落传感器。",
            "重启机器，放到开阔的地方再试一次。",
        ],
        "清理过以后，它还会原地打转吗？",
    ),
    _symptom(
        "stopped",
        "运行到一半停机",
        r"(?:洗|转|运行|工作)到一半(?:就)?停|中途停|突然停(?:了|机)|停机",
        [
            "断电后检查轮子、滚刷或滚筒有没有被头发、衣物等异物缠住。",
            "清理后重新通电，再运行一次。",
            "如果还会停，记下屏幕上的故障码。",
        ],
        "每次都是在同一个阶段停下来吗？",
    ),
    _symptom(
        "ignition",
        "打不着火",
        r"打不着火|点不着火?|不点火|没(?:有)?热水",
        [
            "确认燃气阀门已经打开，家里其他燃气设备（比如燃气灶）能正常使用。",
            "检查热水器的电池或电源是否正常。",
            "关机等几分钟后重新开机再试。",
        ],
        "打火时能听到“哒哒”的点火声吗？",
    ),
    _symptom(
        "alarm",
        "设备报警",
        r"滴滴(?:地)?叫|报警|告警|异响",
        [
            "查看显示屏或管理界面里的告警信息，记下具体内容。",
            "检查告警对应的部件（比如硬盘、滤网）是否松动或需要清理。",
            "重要数据先备份。",
        ],
        "告警是一直在响，还是每隔一段时间响一次？",
    ),
    _symptom(
        "update_failed",
        "升级失败",
        r"升级[^。！？]{0,6}失败|更新[^。！？]{0,6}失败|升级不了|更新不了",
        [
            "确认网络稳定，剩余存储空间至少有 2 GB。",
            "重启设备后再升级一次，升级过程中不要断电。",
            "如果还是失败，记下提示的错误码。",
        ],
        "每次都是卡在同一个进度失败吗？",
    ),
    _symptom(
        "driver",
        "驱动装不上",
        r"驱动[^。！？]{0,8}(?:装不上|安装失败|装不了|有问题)|装不上驱动|驱动",
        [
            "从官网下载和系统版本对应的最新驱动。",
            "卸载旧驱动后重启，再以管理员身份安装。",
            "暂时关闭杀毒软件后再安装一次。",
        ],
        "电脑的系统是 Windows 10 还是 Windows 11？",
    ),
    _symptom(
        "overheating",
        "机身发烫",
        r"发烫|很烫|特别烫|过热|太热|发热|风扇[^。！？]{0,4}(?:响|吵)",
        [
            "关掉占用资源多的程序（任务管理器或活动监视器里可以看到）。",
            "放在坚硬平整的桌面上使用，别堵住散热口。",
            "把系统和固件更新到最新版本，然后重启。",
        ],
        "是空闲的时候也发烫，还是只在运行大程序或视频通话时？",
    ),
    _symptom(
        "no_power",
        "无法开机",
        r"开不了机|无法开机|不能开机|不开机|开机没反应|完全没反应",
        [
            "换一个确定没问题的充电器，先充十五分钟电。",
            "长按电源键十秒后松开，再按一次。",
            "拔掉所有外设和扩展坞。",
        ],
        "按电源键的时候，有风扇声或者指示灯亮吗？",
    ),
    _symptom(
        "no_connection",
        "连不上网",
        r"断网|连不上|上不了网|没有?网|网络不稳|掉线|无线网|(?i:wi-?fi|vpn)",
        [
            "关掉无线网再打开（或者开关一次飞行模式）。",
            "在设置里忘记这个网络，再输入密码重新连接。",
            "重启设备；在家的话把路由器也重启一下。",
        ],
        "同一个网络下的其他设备能正常上网吗？",
    ),
    _symptom(
        "display",
        "屏幕显示异常",
        r"闪屏|屏幕[^。！？]{0,4}(?:闪|花|黑|不亮|碎)|黑屏|触摸[^。！？]{0,6}不灵",
        [
            "调一下亮度，有些屏幕只在低亮度时闪。",
            "重启设备，看看开机画面是否也有同样的问题。",
            "屏幕有裂痕或摔过的话，先别按压破损处，并尽快备份数据。",
        ],
        "开机画面也会这样，还是进了系统才这样？",
    ),
    _symptom(
        "battery",
        "充电和续航",
        r"电池|充不进电|充不上电|不充电|掉电快|耗电快",
        [
            "在系统设置里查看电池健康状态。",
            "换一个插座、数据线和充电器试试。",
            "调低屏幕亮度，关掉后台一直运行的应用。",
        ],
        "是完全充不进电，还是电用得太快？",
    ),
    _symptom(
        "slow",
        "运行卡顿",
        r"很卡|卡顿|卡死|太慢|变慢|反应慢",
        [
            "设备连续运行好几天的话，先重启一次。",
            "确认磁盘至少还有百分之十的剩余空间。",
            "检查开机自启动的应用，关掉不需要的。",
        ],
        "是某次更新或装了新应用之后开始变慢的吗？",
    ),
    _symptom(
        "login",
        "无法登录",
        r"登不上|登录不了|无法登录|登不进|密码|账号被锁",
        [
            "检查大小写锁定和输入法，确认密码没有输错。",
            "在登录页点“忘记密码”，自己重置一下。",
            "如果账号被锁，等十五分钟后再试。",
        ],
        "是电脑本身登不上，还是某个账号（比如邮箱）登不上？",
    ),
    _symptom(
        "no_sound",
        "没有声音",
        r"没(?:有)?声音|听不到|静音",
        [
            "打开声音设置，看看输出设备选的是哪一个。",
            "确认音量已经调高，没有静音。",
            "断开蓝牙耳机，声音经常被它占走。",
        ],
        "是所有地方都没声音，还是只有某个应用没有？",
    ),
    _symptom(
        "printer",
        "无法打印",
        r"打印机|打印不了|打不出来",
        [
            "确认打印机已开机、有纸，面板上没有报错。",
            "清空打印队列里卡住的任务。",
            "在设置里删除这台打印机，再重新添加。",
        ],
        "是办公室共用的打印机，还是直接连在您电脑上的？",
    ),
)

_HTTP_CODES = frozenset({"400", "401", "403", "404", "408", "429", "500", "502", "503", "504"})
_CODE = re.compile(
    r"\berror(?:[ _-]?code)?\s*[:#]?\s*(0x[0-9A-Fa-f]+|[A-Za-z]{0,3}-?\d+)\b|(" + _HTTP + ")",
    re.IGNORECASE,
)
_CODE_ZH = re.compile(
    _ZH_ERROR_LABEL + r"\s*(?:是|为)?\s*[:：]?\s*(" + _ZH_CODE_VALUE + r")"
    r"|(?<![0-9A-Za-z])(" + _HTTP_ZH + r")(?![0-9A-Za-z])"
)


#: A facility a customer may ask for ("a hotel that provides wifi", 提供wifi的酒店): named
#: alone, it is a request, not a fault.
_FACILITY = re.compile(r"^(?:wi-?fi|vpn|无线网)$", re.IGNORECASE)
#: Words that make a facility a fault ("the wifi keeps dropping", 无线网连不上).
_TROUBLE = re.compile(
    r"\b(?:can'?t|cannot|won'?t|doesn'?t|does\s+not|isn'?t|is\s+not|not|no|keeps?|drops?|"
    r"dropping|dropped|lost|down|slow|flaky|unstable|intermittent|weak|broken|stopped|issues?|"
    r"problems?|trouble|errors?|fails?|failing|disconnect\w*)\b"
    r"|连不上|断|不了|不能|不稳|掉|坏|问题|故障|很慢|太慢|没法|无法|没有?网|用不了", re.IGNORECASE)


def names_facility_only(text: str, matched: str) -> bool:
    """True when ``matched`` (a playbook match in ``text``) is a facility named without any
    trouble: "a hotel that provides wifi" asks for wifi, it reports no fault."""
    return bool(_FACILITY.match(matched.strip())) and not _TROUBLE.search(text)


def reports_fault(text: str, language: Language | None = None) -> bool:
    """True when ``text`` reports a fault the playbook knows (a request for a hotel with
    wifi, 提供wifi的酒店, does not)."""
    return bool(match_symptoms(text, language))


@dataclass(frozen=True)
class SymptomMatch:
    """A symptom found in a message, where it starts, and the error code it names."""

    symptom: Symptom
    start: int
    code: str

    @property
    def key(self) -> str:
        return self.symptom.key

    @property
    def title(self) -> str:
        return self.symptom.title.format(code=self.code).strip()


def match_symptoms(text: str, language: Language | None = None) -> list[SymptomMatch]:
    """The playbook entries ``text`` mentions, each once, ordered by first mention.

    ``language`` picks the playbook (``"zh"``: :data:`PLAYBOOK_ZH`); by default it is the
    language of ``text``.
    """
    if not isinstance(text, str):
        raise TypeError(f"match_symptoms expects a str, got {type(text).__name__}")
    if language not in (None, "en", "zh"):
        raise ValueError(f"language must be 'en', 'zh' or None, got {language!r}")
    zh = (language or language_of(text)) == "zh"
    playbook, code_pattern = (PLAYBOOK_ZH, _CODE_ZH) if zh else (PLAYBOOK, _CODE)
    found: list[tuple[int, int, SymptomMatch]] = []
    for rank, symptom in enumerate(playbook):
        match = symptom.pattern.search(text)
        if match is None or names_facility_only(text, match.group(0)):
            continue
        code = ""
        if symptom.key in ("http_error", "error_code"):
            code_match = code_pattern.search(text, match.start())
            if code_match is not None:
                code = code_match.group(1) or code_match.group(2) or ""
            if symptom.key == "error_code" and code in _HTTP_CODES:
                continue  # "error 404" is a web error, handled by http_error
        found.append((match.start(), rank, SymptomMatch(symptom, match.start(), code)))
    found.sort(key=lambda entry: (entry[0], entry[1]))
    replaced = {key for _, _, m in found for key in m.symptom.instead_of}
    return [entry[2] for entry in found if entry[2].key not in replaced]
