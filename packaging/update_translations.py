"""Refresh resources/crawler_gui_zh_CN.ts from the sources, fill in the Simplified Chinese
glossary below, and compile the .qm.  Run from the project root:

    .venv/bin/python packaging/update_translations.py

Strings missing from the glossary stay "unfinished" (Qt then shows the English text).
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TS = ROOT / "resources" / "crawler_gui_zh_CN.ts"
QM = TS.with_suffix(".qm")
BIN = Path(sys.executable).parent

ZH = {
    # disk use of the crawl (overview)
    "On disk": "磁盘占用",
    "pool": "网址池",
    "pages": "页面库",
    "WARC": "WARC",
    # adaptive hub refresh (issue 12): the Hubs pane, the overview's freshness, the settings
    "How often the hub is refreshed now; with adaptive refresh the hubs share the budget of "
    "their own spans by how often each publishes (Why says why)": "该枢纽页现在的刷新间隔；"
    "自适应刷新时，各枢纽页按各自的发布频率分配它们自身间隔所允许的抓取预算（原因列说明理由）",
    "Why the hub has its span, or why it is not refreshed by itself (Refresh now resumes it)": "该枢纽页为何是这个间隔，"
    "或为何不再自动刷新（“立即刷新”可恢复）",
    "New/h": "新文章/小时",
    "Its learned rate: new articles an hour": "学到的发布速率：每小时新文章数",
    "New": "新增",
    "New articles at its last refresh / items its list showed (all new: some may have scrolled "
    "off unseen)": "上次刷新时的新文章数 / 列表显示的条目数（全部为新：可能有文章未被看到就已滚出列表）",
    "New articles it has yielded in all": "它累计带来的新文章数",
    "page": "网页",
    "feed": "订阅源",
    "sitemap": "站点地图",
    "learned: its share of the budget by its rate": "已学习：按其速率分得的预算",
    "at the fastest its host's politeness allows": "已达主机礼貌策略允许的最快速度",
    "at the maximum span: it publishes little": "已达最长间隔：它很少发布",
    "sped up: its list was nearly all new": "已加快：其列表几乎全是新文章",
    "burst: it publishes much faster lately": "突发：最近发布快得多",
    "lull: it publishes much slower lately": "低谷：最近发布慢得多",
    "fixed span": "固定间隔",
    "learning: its own span until it is known": "学习中：在了解之前使用其自身间隔",
    "Freshness": "新鲜度",
    "Articles found (last hour)": "发现的文章（最近一小时）",
    "Median delay, published to fetched": "从发布到抓取的延迟中位数",
    "Articles extracted in the last hour, and the median time from their publication to their "
    "fetch (articles whose published time is known)": "最近一小时抽取的文章，以及从发布到抓取的时间中位数"
    "（仅限已知发布时间的文章）",
    "adaptive: by how often each hub publishes": "自适应：按各枢纽页的发布频率",
    "fixed: every hub on its own span": "固定：每个枢纽页使用自身间隔",
    "Adaptive: the hubs share the fetches their spans allow (the same number), the busy ones "
    "more often, the quiet ones less": "自适应：各枢纽页分享其间隔所允许的抓取次数（总数不变），"
    "繁忙的更频繁，冷清的更少",
    "Adaptive refresh: no hub more often than this": "自适应刷新：任何枢纽页都不会比此更频繁",
    "Adaptive refresh: every hub at least this often, a silent one too": "自适应刷新：每个枢纽页至少按此频率刷新，"
    "不发布的也是",
    "Hub refresh:": "枢纽页刷新：",
    "Shortest hub span:": "最短枢纽页间隔：",
    "Longest hub span:": "最长枢纽页间隔：",
    # storage: sync mode, free space floor, a crawl paused for a full disk
    "Storage": "存储",
    "After every batch of results (safest, slowest)": "每批结果之后（最安全，最慢）",
    "At least once a second": "至少每秒一次",
    "When the system decides (fastest)": "由系统决定（最快）",
    "When the pool's writes are forced to the disk: bounds what a power cut can lose. A crash "
    "of the program alone loses nothing either way.": "网址池的写入何时强制落盘：限定断电时可能丢失的内容。"
    "仅程序崩溃时两种方式都不会丢失任何内容。",
    "The crawl pauses when a disk of the crawl has less free space; 0: never": "当爬取所用磁盘的剩余空间"
    "低于此值时暂停爬取；0：从不",
    "Write to the disk:": "写入磁盘：",
    "Pause below free space:": "剩余空间低于此值时暂停：",
    "Crawl paused": "爬取已暂停",
    "Crawl stopped": "爬取已停止",
    "The crawl stopped.": "爬取已停止。",
    "The crawl is paused: its data could not be written. Nothing was lost. Free some space on "
    "the disk, then press Resume.": "爬取已暂停：其数据无法写入。没有丢失任何内容。请在磁盘上腾出一些空间，然后按“继续”。",
    "Open &Redis pool…": "打开 &Redis 网址池…",
    "Join a shared URL pool on a Redis server": "加入 Redis 服务器上的共享网址池",
    "Open Redis pool": "打开 Redis 网址池",
    "Type a Redis pool URL.": "请输入 Redis 网址池的 URL。",
    "Only redis:// and rediss:// URLs can be opened.": "只能打开 redis:// 和 rediss:// 网址。",
    "The port is not a number (1-65535).": "端口不是 1 到 65535 之间的数字。",
    "The URL has no host.": "该网址没有主机。",
    "The database after the slash must be a number.": "斜杠后的数据库编号必须是数字。",
    "The pool name may use letters, digits, _ . - only.": "网址池名称只能使用字母、数字和 _ . -。",
    "Join a shared URL pool on a Redis server as one more worker. The window shows the whole "
    "pool; Pause and Resume reach every worker.": "作为又一个工作进程加入 Redis 服务器上的共享网址池。"
    "窗口显示整个网址池；暂停和继续会传达到每个工作进程。",
    # the Articles pane and its text window
    "Articles": "文章",
    "Article": "文章",
    "Found": "发现时间",
    "Published": "发布时间",
    "Headline": "标题",
    "Words": "字数",
    "Kind": "类型",
    "unknown": "未知",
    # the Workers pane of a shared pool
    "Workers": "工作进程",
    "Worker": "工作进程",
    "Machine": "机器",
    "State": "状态",
    "Last seen": "最近心跳",
    "Pages": "页面数",
    "Pages/s": "页/秒",
    "running": "运行中",
    "paused": "已暂停",
    "stopping": "正在停止",
    "stopped": "已停止",
    "finished": "已完成",
    "failed": "失败",
    "idle": "空闲",
    "silent": "失联",
    "no heartbeat": "无心跳",
    "%1 (this window)": "%1（本窗口）",
    "%1 ago": "%1前",
    "What the worker last reported; silent: no heartbeat for %1": "工作进程最近一次报告的状态；失联：%1 内没有心跳",
    "Time since its last heartbeat (one every %1)": "距最近一次心跳的时间（每 %1 一次）",
    "Pages it fetched since it started": "启动以来抓取的页面数",
    "Its pages per second over the last seconds": "最近几秒内每秒抓取的页面数",
    "URLs it holds leases on now": "它当前持有租约的网址数",
    "The worker fetching the URL (shared pools)": "正在抓取该网址的工作进程（共享网址池）",
    "This worker holds leases but sent no heartbeat: a worker of an older version, or one gone "
    "for more than a day.": "该工作进程持有租约，但没有发送过心跳：可能是旧版本的工作进程，或已离开超过一天。",
    "No heartbeat for %1: the worker may be dead, hung or cut off from the pool. It last "
    "reported: %2.": "已有 %1 没有心跳：该工作进程可能已退出、卡住或与网址池断开。它最近报告的状态：%2。",
    "Process %1 on %2, started %3": "%2 上的进程 %1，启动于 %3",
    "Reclaim leases": "收回租约",
    "Put the %1 URLs leased by worker %2 back into the pool now? Each counts as one failed "
    "attempt.\n\nDo this only for a worker that is dead: a worker that is still alive would "
    "fetch these URLs a second time.": "现在把工作进程 %2 租用的 %1 个网址放回网址池吗？每个网址记一次失败尝试。\n\n"
    "只对已退出的工作进程这样做：仍在运行的工作进程会把这些网址再抓取一次。",
    "This is this window's own worker.": "这是本窗口自己的工作进程。",
    "This worker sent a heartbeat %1 ago: it looks alive.": "该工作进程在 %1前发送过心跳：它看起来仍在运行。",
    "%1 URLs of worker %2 went back to the pool": "工作进程 %2 的 %1 个网址已放回网址池",
    "%1 (%2/s)": "%1（%2/秒）",
    "%1 URLs known and not yet done; no rate to estimate from yet.": "已知 %1 个网址尚未完成；暂无速率可供估算。",
    "%1 URLs to add.": "将添加 %1 个网址。",
    "%1 URLs to add; %2 lines refused (see the reasons above; they will not be added).": "将添加 %1 个网址；%2 行被拒绝（原因见上方，它们不会被添加）。",
    "%1 hubs have a problem; fix or remove them. Row %2 (%3): %4": "%1 个枢纽页有问题，请修改或删除。第 %2 行（%3）：%4",
    "%1 hubs.": "%1 个枢纽页。",
    "%1 lines were refused.": "%1 行被拒绝。",
    "%1 pages/s · %2 done · %3 waiting": "%1 页/秒 · 已完成 %2 · 等待 %3",
    "%1: %2 added, %3 already known, %4 refused": "%1：新增 %2，已存在 %3，拒绝 %4",
    "&About": "关于(&A)",
    "&Add seeds…": "添加种子(&A)…",
    "&Crawl": "抓取(&C)",
    "&File": "文件(&F)",
    "&Help": "帮助(&H)",
    "&Hubs…": "枢纽页(&H)…",
    "&Load snapshot…": "载入快照(&L)…",
    "&Open pool…": "打开网址池(&O)…",
    "&Pause": "暂停(&P)",
    "&Quit": "退出(&Q)",
    "&Resume": "继续(&R)",
    "&Save snapshot…": "保存快照(&S)…",
    "&Start": "开始(&S)",
    "&View": "视图(&V)",
    "-%1": "-%1",
    "About %1 for the %2 URLs known now, at the rate of the last minute (%3 pages/s). This is "
    "a lower bound: pages keep adding new links, and politeness delays slow down hosts with "
    "many waiting URLs.": "按最近一分钟的速率（%3 页/秒），当前已知的 %2 个网址约需 %1。这是下限：页面会不断带来"
    "新链接，礼貌延迟也会拖慢等待网址多的主机。",
    "About Crawler GUI": "关于 Crawler GUI",
    "Add": "添加",
    "Add %1": "添加 %1 个",
    "Add seeds": "添加种子",
    "Also allow domains:": "额外允许的域名：",
    "At most this share of each batch of fetches goes to hubs that are due": "每批抓取中最多有这一比例用于到期的枢纽页",
    "Attempts": "尝试次数",
    "Backoff until": "退避至",
    "Busiest first": "最忙的在前",
    "Check": "检查",
    "Concurrency:": "并发数：",
    "Connect timeout:": "连接超时：",
    "Copy URL": "复制网址",
    "Crawl": "抓取",
    "Crawl settings": "抓取设置",
    "Crawler GUI": "Crawler GUI",
    "Crawler GUI %1\nA desktop monitor for long-running, polite news crawls over a durable "
    "URL pool.": "Crawler GUI %1\n基于持久网址池、长时间运行且礼貌的新闻抓取的桌面监控程序。",
    "Crawler GUI — %1": "Crawler GUI — %1",
    "Current politeness delay between two requests": "两次请求之间当前的礼貌延迟",
    "Data": "数据量",
    "Delay": "延迟",
    "Delay factor (× response time):": "延迟系数（× 响应时间）：",
    "Deny domains:": "禁止的域名：",
    "Depth": "深度",
    "Depth:": "深度：",
    "Done": "已完成",
    "Earliest time of the next request to this host": "对该主机下一次请求的最早时间",
    "Edit": "编辑",
    "Elapsed": "已用时间",
    "End of a 429/503 backoff for this host": "该主机 429/503 退避的结束时间",
    "Estimate of what remains": "剩余工作估算",
    "Export hubs": "导出枢纽页",
    "Export…": "导出…",
    "Failed": "失败",
    "Failed (see the log)": "失败（见日志）",
    "Failed attempts before giving up": "放弃前允许的失败次数",
    "Failed attempts so far / attempts allowed": "已失败次数 / 允许次数",
    "Fetch errors": "抓取错误",
    "Fetches at once over all hosts": "所有主机同时进行的抓取数",
    "Fetches at once per host": "每个主机同时进行的抓取数",
    "Fetching": "抓取",
    "Filter…": "筛选…",
    "Finished": "已完成",
    "Follow links to other sites": "跟随指向其他站点的链接",
    "Give up": "放弃",
    "Host": "主机",
    "Hosts": "主机",
    "How often the hub is refreshed": "枢纽页的刷新频率",
    "Hub": "枢纽页",
    "Hub lists (*.txt);;All files (*)": "枢纽页列表 (*.txt);;所有文件 (*)",
    "Hub share of each batch:": "每批中枢纽页占比：",
    "Hubs": "枢纽页",
    "Identity": "身份",
    "Import hubs": "导入枢纽页",
    "Import…": "导入…",
    "In flight": "进行中",
    "Last %1: %2 pages, %3 errors": "最近 %1：%2 页，%3 个错误",
    "Last error": "最近错误",
    "Last refresh": "上次刷新",
    "Last status": "最近状态",
    "Lease": "租约",
    "Level": "级别",
    "Limit depth to": "深度限制为",
    "Line": "行",
    "Links followed from a seed or hub": "从种子或枢纽页起跟随的链接层数",
    "Load Sina News preset": "载入新浪新闻预设",
    "Load URLs": "载入网址",
    "Load from file…": "从文件载入…",
    "Load pool snapshot": "载入网址池快照",
    "Load snapshot": "载入快照",
    "Loaded %1 records from %2": "已从 %2 载入 %1 条记录",
    "Loading a snapshot replaces the whole pool. The crawl is stopped first. Continue?": "载入快照会替换整个网址池，抓取将先被停止。是否继续？",
    "Log": "日志",
    "Maximum delay:": "最大延迟：",
    "Message": "消息",
    "Minimum delay per host:": "每个主机的最小延迟：",
    "Next allowed": "下次允许",
    "Next refresh": "下次刷新",
    "Next try": "下次重试",
    "No pool": "未打开网址池",
    "No pool open.": "未打开网址池。",
    "Nothing is waiting.": "没有等待的网址。",
    "Nothing is waiting. Hubs will bring new links when they are refreshed.": "没有等待的网址。枢纽页刷新时会带来新链接。",
    "Obey robots.txt": "遵守 robots.txt",
    "One URL per line, for example\nhttp://news.sina.com.cn/": "每行一个网址，例如\nhttp://news.sina.com.cn/",
    "Open URL pool": "打开网址池",
    "Open in browser": "在浏览器中打开",
    "Open pool": "打开网址池",
    "Pages fetched": "已抓取页面",
    "Pages/s (average)": "页/秒（平均）",
    "Pages/s (last 10 s)": "页/秒（最近 10 秒）",
    "Pages/s (last min)": "页/秒（最近 1 分钟）",
    "Pause: no new fetches": "暂停：不再发起新的抓取",
    "Paused": "已暂停",
    "Per host:": "每主机：",
    "Pool": "网址池",
    "Rate": "速率",
    "Read timeout:": "读取超时：",
    "Ready": "就绪",
    "Refresh every": "刷新间隔",
    "Refresh now": "立即刷新",
    "Remove": "删除",
    "Response p50 / p90 / p99": "响应时间 p50 / p90 / p99",
    "Result": "结果",
    "Retries": "重试",
    "Retries:": "重试次数：",
    "Retry now": "立即重试",
    "Retrying": "重试中",
    "Running": "运行中",
    "Running for": "已运行",
    "S&top": "停止(&T)",
    "Save pool snapshot": "保存网址池快照",
    "Save snapshot": "保存快照",
    "Saved %1 records to %2": "已将 %1 条记录保存到 %2",
    "Scope": "范围",
    "Se&ttings…": "设置(&T)…",
    "Seconds, or a number with s, m, h or d (5m, 1h)": "秒数，或带 s、m、h、d 后缀的数字（5m、1h）",
    "Seeds": "种子",
    "Sort by waiting URLs, most first": "按等待网址数排序，多的在前",
    "Source": "来源",
    "Span": "间隔",
    "Start crawling": "开始抓取",
    "Status codes": "状态码",
    "Stop: in-flight fetches finish or go back": "停止：进行中的抓取完成或退回网址池",
    "Stopped": "已停止",
    "Stopping…": "正在停止…",
    "Text files (*.txt);;All files (*)": "文本文件 (*.txt);;所有文件 (*)",
    "The pool could not be opened.": "无法打开网址池。",
    "The snapshot was not loaded; the pool is unchanged.": "快照未载入；网址池保持不变。",
    "The snapshot was not saved.": "快照未保存。",
    "Throughput chart": "吞吐量图表",
    "Throughput, last 5 minutes": "吞吐量（最近 5 分钟）",
    "Time": "时间",
    "Time until the pool takes the URL back": "网址池收回该网址前的剩余时间",
    "Total timeout:": "总超时：",
    "Type or paste URLs above.": "请在上方输入或粘贴网址。",
    "URL": "网址",
    "URLs (blank lines and lines starting with # are ignored):": "网址（空行和以 # 开头的行会被忽略）：",
    "User agent:": "User-Agent：",
    "Waiting": "等待",
    "crawler-gui hubs: URL span": "crawler-gui 枢纽页：网址 间隔",
    "example.com, news.example.org": "example.com, news.example.org",
    "expires %1": "%1到期",
    "hub": "枢纽页",
    "never": "从未",
    "no response": "无响应",
    "now": "现在",
    "ok": "正常",
    "refreshing": "刷新中",
    # a loaded snapshot's crawl scope
    "The snapshot's crawl covers %1 site(s) this crawl does not: %2. Add them to the crawl's "
    "scope, so that their links are followed?": "该快照的抓取范围包含本次抓取没有的 %1 个网站：%2。"
    "要把它们加入抓取范围，以便跟随它们的链接吗？",
    "The crawl's scope was not changed.": "抓取范围未更改。",
    # parked hubs (a hub page that kept stopping the crawl)
    "parked": "已搁置",
    "Why": "原因",
    "Why a hub is not refreshed by itself (Refresh now resumes it)": "入口页为何不再自动刷新（“立即刷新”可恢复）",
    "parked: the crawl stopped %1 times in a row while fetching it; Refresh now to try again": "已搁置：抓取它时爬虫连续 %1 次中止；点“立即刷新”再试",
    "refused: %1": "已拒绝：%1",
    "the user agent must not be empty": "User-Agent 不能为空",
    "■ errors/s": "■ 错误/秒",
    "■ pages/s": "■ 页/秒",
    # attached to a headless crawl (engine.control)
    "%1 (attached to a running crawl)": "%1（已连接到正在运行的抓取）",
    "The connection to the crawl of %1 was lost: the crawl was killed, or it dropped this "
    "window.": "与 %1 的抓取的连接已断开：抓取进程被终止，或它断开了本窗口。",
    "The crawl of %1 has ended (%2).": "%1 的抓取已结束（%2）。",
    "Crawl ended": "抓取已结束",
    "Open the pool in this window?": "在本窗口中打开该网址池吗？",
    # durations and countdowns (gui/fmt.py)
    "%1 s": "%1 秒",
    "%1 min": "%1 分钟",
    "%1 min %2 s": "%1 分 %2 秒",
    "%1 h": "%1 小时",
    "%1 h %2 min": "%1 小时 %2 分",
    "%1 d": "%1 天",
    "%1 d %2 h": "%1 天 %2 小时",
    "due": "已到期",
    "in %1": "%1后",
}


def main() -> int:
    sources = sorted(str(p) for p in (ROOT / "crawler_gui" / "gui").glob("*.py"))
    lupdate = [
        str(BIN / "pyside6-lupdate"),
        *sources,
        "-ts",
        str(TS),
        "-target-language",
        "zh_CN",
        "-no-obsolete",
    ]
    subprocess.run(lupdate, check=True)  # noqa: S603 - the venv's own Qt tool
    tree = ET.parse(TS)  # noqa: S314 - our own file
    missing = 0
    for msg in tree.iter("message"):
        source = msg.findtext("source") or ""
        tr = msg.find("translation")
        assert tr is not None
        if source in ZH:
            tr.text = ZH[source]
            tr.attrib.pop("type", None)
        else:
            missing += 1
    tree.write(TS, encoding="utf-8", xml_declaration=True)
    lrelease = [str(BIN / "pyside6-lrelease"), str(TS), "-qm", str(QM)]
    subprocess.run(lrelease, check=True)  # noqa: S603 - the venv's own Qt tool
    print(f"{TS.name}: {missing} strings without a translation")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
