<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="zh_CN">
<context>
    <name>AddSeedsDialog</name>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="71" />
        <source>Add seeds</source>
        <translation>添加种子</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="76" />
        <source>One URL per line, for example
http://news.sina.com.cn/</source>
        <translation>每行一个网址，例如
http://news.sina.com.cn/</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="95" />
        <source>Load from file…</source>
        <translation>从文件载入…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="103" />
        <source>URLs (blank lines and lines starting with # are ignored):</source>
        <translation>网址（空行和以 # 开头的行会被忽略）：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="128" />
        <source>Type or paste URLs above.</source>
        <translation>请在上方输入或粘贴网址。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="132" />
        <source>%1 URLs to add; %2 lines refused (see the reasons above; they will not be added).</source>
        <translation>将添加 %1 个网址；%2 行被拒绝（原因见上方，它们不会被添加）。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="139" />
        <source>%1 URLs to add.</source>
        <translation>将添加 %1 个网址。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="142" />
        <source>Add %1</source>
        <translation>添加 %1 个</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="142" />
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="173" />
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="182" />
        <source>Load URLs</source>
        <translation>载入网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="175" />
        <source>Text files (*.txt);;All files (*)</source>
        <translation>文本文件 (*.txt);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>ArticleDialog</name>
    <message>
        <location filename="../crawler_gui/gui/dialogs/article.py" line="29" />
        <source>Article</source>
        <translation>文章</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/article.py" line="37" />
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/article.py" line="39" />
        <source>URL</source>
        <translation>网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/article.py" line="40" />
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/article.py" line="41" />
        <source>Published</source>
        <translation>发布时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/article.py" line="47" />
        <source>Open in browser</source>
        <translation>在浏览器中打开</translation>
    </message>
</context>
<context>
    <name>ArticlesModel</name>
    <message>
        <location filename="../crawler_gui/gui/models/records.py" line="167" />
        <source>Found</source>
        <translation>发现时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/records.py" line="168" />
        <source>Published</source>
        <translation>发布时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/records.py" line="169" />
        <source>Delay</source>
        <translation>延迟</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/records.py" line="170" />
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/records.py" line="171" />
        <source>Headline</source>
        <translation>标题</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/records.py" line="172" />
        <source>Words</source>
        <translation>字数</translation>
    </message>
</context>
<context>
    <name>CrawlActions</name>
    <message>
        <location filename="../crawler_gui/gui/crawlactions.py" line="67" />
        <source>Seeds</source>
        <translation>种子</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/crawlactions.py" line="84" />
        <source>Hubs</source>
        <translation>枢纽页</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/crawlactions.py" line="104" />
        <source>%1: %2 added, %3 already known, %4 refused</source>
        <translation>%1：新增 %2，已存在 %3，拒绝 %4</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/crawlactions.py" line="139" />
        <source>Put the %1 URLs leased by worker %2 back into the pool now? Each counts as one failed attempt.

Do this only for a worker that is dead: a worker that is still alive would fetch these URLs a second time.</source>
        <translation>现在把工作进程 %2 租用的 %1 个网址放回网址池吗？每个网址记一次失败尝试。

只对已退出的工作进程这样做：仍在运行的工作进程会把这些网址再抓取一次。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/crawlactions.py" line="147" />
        <source>This is this window's own worker.</source>
        <translation>这是本窗口自己的工作进程。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/crawlactions.py" line="150" />
        <source>This worker sent a heartbeat %1 ago: it looks alive.</source>
        <translation>该工作进程在 %1前发送过心跳：它看起来仍在运行。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/crawlactions.py" line="155" />
        <source>Reclaim leases</source>
        <translation>收回租约</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/crawlactions.py" line="168" />
        <source>%1 URLs of worker %2 went back to the pool</source>
        <translation>工作进程 %2 的 %1 个网址已放回网址池</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <location filename="../crawler_gui/gui/exporting.py" line="62" />
        <source>Export</source>
        <extracomment>Records written between two progress updates (and cancel checks).</extracomment>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/exporting.py" line="66" />
        <source>Pages: one record per stored page</source>
        <translation>页面：每个已存储页面一条记录</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/exporting.py" line="68" />
        <source>Articles: the pages judged articles, with text</source>
        <translation>文章：被判定为文章的页面，含正文</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/exporting.py" line="71" />
        <source>URL outcomes: every URL of the pool and its state</source>
        <translation>网址结果：网址池中的每个网址及其状态</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/exporting.py" line="76" />
        <source>JSON Lines (.jsonl)</source>
        <translation>JSON Lines（.jsonl）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/exporting.py" line="77" />
        <source>CSV (.csv)</source>
        <translation>CSV（.csv）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/exporting.py" line="78" />
        <source>WARC (.warc.gz): the pages as fetched</source>
        <translation>WARC（.warc.gz）：按抓取原样保存的页面</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/exporting.py" line="85" />
        <source>Records:</source>
        <translation>记录：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/exporting.py" line="86" />
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/exporting.py" line="87" />
        <source>The same records as crawler-gui export (docs/storage.md).</source>
        <translation>与 crawler-gui export 相同的记录（见 docs/storage.md）。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/exporting.py" line="216" />
        <source>%1 records written…</source>
        <translation>已写入 %1 条记录…</translation>
    </message>
</context>
<context>
    <name>FileActions</name>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="53" />
        <source>Save pool snapshot</source>
        <extracomment>QSettings key of the last Redis pool URL opened (only kept when it holds no password).</extracomment>
        <translation>保存网址池快照</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="67" />
        <location filename="../crawler_gui/gui/fileactions.py" line="78" />
        <source>Save snapshot</source>
        <translation>保存快照</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="68" />
        <source>Saving the pool to %1…</source>
        <translation>正在把网址池保存到 %1…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="74" />
        <source>The snapshot was not saved (cancelled).</source>
        <translation>快照未保存（已取消）。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="78" />
        <source>The snapshot was not saved.</source>
        <translation>快照未保存。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="81" />
        <source>Saved %1 records to %2</source>
        <translation>已将 %1 条记录保存到 %2</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="107" />
        <location filename="../crawler_gui/gui/fileactions.py" line="120" />
        <location filename="../crawler_gui/gui/fileactions.py" line="127" />
        <location filename="../crawler_gui/gui/fileactions.py" line="140" />
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="110" />
        <source>JSON Lines (*.jsonl)</source>
        <translation>JSON Lines（*.jsonl）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="111" />
        <source>CSV (*.csv)</source>
        <translation>CSV（*.csv）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="112" />
        <source>WARC (*.warc.gz)</source>
        <translation>WARC（*.warc.gz）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="121" />
        <source>The file is inside the pool: write the export somewhere else.</source>
        <translation>该文件位于网址池内：请导出到其他位置。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="125" />
        <source>Exporting…</source>
        <translation>正在导出…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="125" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="140" />
        <source>The export was not written.</source>
        <translation>导出未写入。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="146" />
        <source>Export cancelled: nothing was written.</source>
        <translation>导出已取消：未写入任何内容。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="149" />
        <source>Exported %1 records to %2</source>
        <translation>已将 %1 条记录导出到 %2</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="167" />
        <location filename="../crawler_gui/gui/fileactions.py" line="177" />
        <location filename="../crawler_gui/gui/fileactions.py" line="185" />
        <location filename="../crawler_gui/gui/fileactions.py" line="198" />
        <source>Save report</source>
        <translation>保存报告</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="169" />
        <source>HTML (*.html)</source>
        <translation>HTML (*.html)</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="178" />
        <source>The file is inside the pool: write the report somewhere else.</source>
        <translation>该文件位于网址池内：请把报告写到别处。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="186" />
        <source>Writing the crawl report to %1…</source>
        <translation>正在把抓取报告写入 %1…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="198" />
        <source>The report was not saved.</source>
        <translation>报告未保存。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="200" />
        <source>Report saved to %1</source>
        <translation>报告已保存到 %1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="210" />
        <source>Load pool snapshot</source>
        <translation>载入网址池快照</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="222" />
        <location filename="../crawler_gui/gui/fileactions.py" line="240" />
        <location filename="../crawler_gui/gui/fileactions.py" line="248" />
        <location filename="../crawler_gui/gui/fileactions.py" line="279" />
        <location filename="../crawler_gui/gui/fileactions.py" line="295" />
        <source>Load snapshot</source>
        <translation>载入快照</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="224" />
        <source>Loading a snapshot replaces the whole pool. The crawl is stopped first. Continue?</source>
        <translation>载入快照会替换整个网址池，抓取将先被停止。是否继续？</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="241" />
        <source>Loading %1 into the pool…</source>
        <translation>正在把 %1 载入网址池…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="249" />
        <source>The snapshot was not loaded; the pool is unchanged.</source>
        <translation>快照未载入；网址池保持不变。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="256" />
        <source>Loaded %1 records from %2</source>
        <translation>已从 %2 载入 %1 条记录</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="281" />
        <source>The snapshot's crawl covers %1 site(s) this crawl does not: %2. Add them to the crawl's scope, so that their links are followed?</source>
        <translation>该快照的抓取范围包含本次抓取没有的 %1 个网站：%2。要把它们加入抓取范围，以便跟随它们的链接吗？</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="295" />
        <source>The crawl's scope was not changed.</source>
        <translation>抓取范围未更改。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="329" />
        <source>Open Redis pool</source>
        <translation>打开 Redis 网址池</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="329" />
        <location filename="../crawler_gui/gui/fileactions.py" line="361" />
        <source>The pool could not be opened.</source>
        <translation>无法打开网址池。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="343" />
        <source>Open URL pool</source>
        <translation>打开网址池</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="355" />
        <location filename="../crawler_gui/gui/fileactions.py" line="361" />
        <source>Open pool</source>
        <translation>打开网址池</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fileactions.py" line="356" />
        <source>Opening %1…</source>
        <translation>正在打开 %1…</translation>
    </message>
</context>
<context>
    <name>HostDetailDialog</name>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="111" />
        <source>Host %1</source>
        <extracomment>Reads a host's newest fetched pages (the window's page store and search index). "Its pages": the host's fetched pages, newest first, in the Pages pane (its results). A recent result was double-clicked: its Page detail (the fetch's sequence number). Where the Results tab reads from (set by the window when it has a page store).</extracomment>
        <translation>主机 %1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="124" />
        <location filename="../crawler_gui/gui/hostdetail.py" line="272" />
        <source>Pause this host</source>
        <translation>暂停该主机</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="127" />
        <source>No request goes to this host until it is resumed (kept in the pool)</source>
        <translation>恢复之前不向该主机发送任何请求（保存在网址池中）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="134" />
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="137" />
        <source>Minimum seconds between two requests to this host, in place of the crawl's minimum (robots.txt's Crawl-delay still holds)</source>
        <translation>对该主机两次请求之间的最少秒数，替代爬取的最小值（robots.txt 的抓取延迟仍然有效）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="141" />
        <source>Set delay</source>
        <translation>设置延迟</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="146" />
        <source>Default delay</source>
        <translation>默认延迟</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="151" />
        <source>Retry failed URLs</source>
        <translation>重试失败的网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="154" />
        <source>Forget waiting URLs…</source>
        <translation>清除等待中的网址…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="157" />
        <source>Open robots.txt</source>
        <translation>打开 robots.txt</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="160" />
        <source>Its pages</source>
        <translation>它的页面</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="163" />
        <source>Its fetched pages, newest first, with their status, in the Pages pane</source>
        <translation>在页面窗格中查看它已抓取的页面（最新在前，含状态）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="187" />
        <location filename="../crawler_gui/gui/hostdetail.py" line="209" />
        <location filename="../crawler_gui/gui/hostdetail.py" line="225" />
        <source>URL</source>
        <translation>网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="187" />
        <source>Depth</source>
        <translation>深度</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="187" />
        <source>Added</source>
        <translation>加入时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="187" />
        <location filename="../crawler_gui/gui/hostdetail.py" line="225" />
        <source>Attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="189" />
        <source>Previous</source>
        <translation>上一页</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="192" />
        <source>Next</source>
        <translation>下一页</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="205" />
        <source>Waiting URLs</source>
        <translation>等待中的网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="209" />
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="209" />
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="209" />
        <source>Fetched</source>
        <translation>抓取时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="212" />
        <source>Its newest fetched pages, each URL once; double-click for the page's detail</source>
        <translation>它最近抓取的页面，每个网址一次；双击查看页面详情</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="221" />
        <source>Results</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="225" />
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="225" />
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="227" />
        <source>Failures</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="231" />
        <source>robots.txt</source>
        <translation>robots.txt</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="252" />
        <source>Why: %1</source>
        <extracomment>the robots.txt the crawl last fetched (RobotsText)</extracomment>
        <translation>原因：%1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="255" />
        <source>%1 waiting, %2 in flight, %3 done, %4 failed, %5 retrying</source>
        <translation>%1 等待，%2 抓取中，%3 完成，%4 失败，%5 重试中</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="262" />
        <source>; last result %1</source>
        <translation>；上次结果 %1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="272" />
        <source>Resume this host</source>
        <translation>恢复该主机</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="309" />
        <source>page %1 of %2 (%3 waiting)</source>
        <translation>第 %1 / %2 页（%3 个等待）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="319" />
        <source>article</source>
        <translation>文章</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="320" />
        <source>list</source>
        <translation>列表</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="321" />
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="333" />
        <source>no response</source>
        <translation>无响应</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="339" />
        <source>Results (%1)</source>
        <translation>结果（%1）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="349" />
        <source>refused: %1</source>
        <translation>已拒绝：%1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="361" />
        <source>This crawl has not fetched robots.txt of this host lately.</source>
        <translation>本次爬取最近没有抓取该主机的 robots.txt。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="365" />
        <source>robots.txt unreachable (status %1): every page of the host waits</source>
        <translation>robots.txt 无法访问（状态 %1）：该主机的所有页面都在等待</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="367" />
        <source>status %1</source>
        <translation>状态 %1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="368" />
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="369" />
        <source>fetched at %1</source>
        <translation>抓取于 %1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="371" />
        <source>Crawl-delay: %1</source>
        <translation>抓取延迟：%1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="397" />
        <source>Host paused.</source>
        <translation>主机已暂停。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="397" />
        <source>Host resumed.</source>
        <translation>主机已恢复。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="402" />
        <source>The crawl's own delay again.</source>
        <translation>已恢复爬取自身的延迟。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="405" />
        <source>At least %1 between two requests.</source>
        <translation>两次请求之间至少间隔 %1。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="410" />
        <source>%1 failed URLs queued again.</source>
        <translation>%1 个失败的网址已重新入队。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="419" />
        <source>Forget waiting URLs</source>
        <translation>清除等待中的网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="421" />
        <source>Forget the %1 URLs waiting for %2? They leave the pool; a link found later queues one again.</source>
        <translation>清除 %2 的 %1 个等待中的网址？它们将离开网址池；以后发现的链接会再次将其入队。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/hostdetail.py" line="432" />
        <source>%1 waiting URLs forgotten.</source>
        <translation>已清除 %1 个等待中的网址。</translation>
    </message>
</context>
<context>
    <name>HostsModel</name>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="84" />
        <source>Host</source>
        <extracomment>URLs one host may have in flight (the crawl's politeness), for the Why column. (end of a host's wait, host): the Why column of a host whose politeness wait or backoff ended since the last tick is repainted, not every row at every tick.</extracomment>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="86" />
        <source>Waiting</source>
        <translation>等待</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="89" />
        <source>In flight</source>
        <translation>进行中</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="94" />
        <source>Done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="96" />
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="99" />
        <source>Retrying</source>
        <translation>重试中</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="104" />
        <source>Last status</source>
        <translation>最近状态</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="106" />
        <source>Next allowed</source>
        <translation>下次允许</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="109" />
        <source>Earliest time of the next request to this host</source>
        <translation>对该主机下一次请求的最早时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="112" />
        <source>Delay</source>
        <translation>延迟</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="116" />
        <source>Current politeness delay between two requests</source>
        <translation>两次请求之间当前的礼貌延迟</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="119" />
        <source>Backoff until</source>
        <translation>退避至</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="122" />
        <source>End of a 429/503 backoff for this host</source>
        <translation>该主机 429/503 退避的结束时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="125" />
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="127" />
        <source>What holds the host back now, from the pool's own records</source>
        <translation>当前是什么让该主机等待（依据网址池自身的记录）</translation>
    </message>
</context>
<context>
    <name>HubListModel</name>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="70" />
        <source>URL</source>
        <extracomment>A span typed that is not a duration: shown as typed, with its reason, until fixed.</extracomment>
        <translation>网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="70" />
        <source>Refresh every</source>
        <translation>刷新间隔</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="70" />
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="126" />
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="131" />
        <source>Seconds, or a number with s, m, h or d (5m, 1h)</source>
        <translation>秒数，或带 s、m、h、d 后缀的数字（5m、1h）</translation>
    </message>
</context>
<context>
    <name>HubsDialog</name>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="167" />
        <source>Hubs</source>
        <translation>枢纽页</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="180" />
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="181" />
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="182" />
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="183" />
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="184" />
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="185" />
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="288" />
        <source>Load Sina News preset</source>
        <translation>载入新浪新闻预设</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="212" />
        <source>At most this share of each batch of fetches goes to hubs that are due</source>
        <translation>每批抓取中最多有这一比例用于到期的枢纽页</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="227" />
        <source>Hub share of each batch:</source>
        <translation>每批中枢纽页占比：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="250" />
        <source>%1 hubs have a problem; fix or remove them. Row %2 (%3): %4</source>
        <translation>%1 个枢纽页有问题，请修改或删除。第 %2 行（%3）：%4</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="257" />
        <source>%1 hubs.</source>
        <translation>%1 个枢纽页。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="267" />
        <source>crawler-gui hubs: URL span</source>
        <translation>crawler-gui 枢纽页：网址 间隔</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="290" />
        <source>The list has %1 hubs. Replace them with the preset, or add the preset's hubs to them?</source>
        <translation>列表中已有 %1 个枢纽页。用预设替换它们，还是把预设的枢纽页添加进来？</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="297" />
        <source>Replace</source>
        <translation>替换</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="298" />
        <source>Add to the list</source>
        <translation>添加到列表</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="332" />
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="341" />
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="349" />
        <source>Import hubs</source>
        <translation>导入枢纽页</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="334" />
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="360" />
        <source>Hub lists (*.txt);;All files (*)</source>
        <translation>枢纽页列表 (*.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="350" />
        <source>%1 lines were refused.</source>
        <translation>%1 行被拒绝。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="357" />
        <location filename="../crawler_gui/gui/dialogs/hubs.py" line="367" />
        <source>Export hubs</source>
        <translation>导出枢纽页</translation>
    </message>
</context>
<context>
    <name>HubsModel</name>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="237" />
        <source>URL</source>
        <extracomment>The column of the last error (its tooltip is the fetcher's own message).</extracomment>
        <translation>网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="239" />
        <source>Span</source>
        <translation>间隔</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="244" />
        <source>How often the hub is refreshed now; with adaptive refresh the hubs share the budget of their own spans by how often each publishes (Why says why)</source>
        <translation>该枢纽页现在的刷新间隔；自适应刷新时，各枢纽页按各自的发布频率分配它们自身间隔所允许的抓取预算（原因列说明理由）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="249" />
        <source>Last refresh</source>
        <translation>上次刷新</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="250" />
        <source>never</source>
        <translation>从未</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="253" />
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="255" />
        <source>Next refresh</source>
        <translation>下次刷新</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="262" />
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="265" />
        <source>Why the hub has its span, or why it is not refreshed by itself (Refresh now resumes it)</source>
        <translation>该枢纽页为何是这个间隔，或为何不再自动刷新（“立即刷新”可恢复）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="269" />
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="271" />
        <source>New/h</source>
        <translation>新文章/小时</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="275" />
        <source>Its learned rate: new articles an hour</source>
        <translation>学到的发布速率：每小时新文章数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="278" />
        <source>New</source>
        <translation>新增</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="283" />
        <source>New articles at its last refresh / items its list showed (all new: some may have scrolled off unseen)</source>
        <translation>上次刷新时的新文章数 / 列表显示的条目数（全部为新：可能有文章未被看到就已滚出列表）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="288" />
        <source>Articles</source>
        <translation>文章</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="292" />
        <source>New articles it has yielded in all</source>
        <translation>它累计带来的新文章数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="298" />
        <source>page</source>
        <translation>网页</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="299" />
        <source>feed</source>
        <translation>订阅源</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="300" />
        <source>sitemap</source>
        <translation>站点地图</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="305" />
        <source>refreshing</source>
        <translation>刷新中</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="307" />
        <source>parked</source>
        <translation>已搁置</translation>
    </message>
</context>
<context>
    <name>InFlightModel</name>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="142" />
        <source>URL</source>
        <extracomment>The column of the worker holding the lease (last: the other columns keep their numbers; empty, and hidden by the window, for a local pool).</extracomment>
        <translation>网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="143" />
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="144" />
        <source>Depth</source>
        <translation>深度</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="146" />
        <source>Hub</source>
        <translation>枢纽页</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="147" />
        <source>hub</source>
        <translation>枢纽页</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="151" />
        <source>Elapsed</source>
        <translation>已用时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="158" />
        <source>Lease</source>
        <translation>租约</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="159" />
        <source>expires %1</source>
        <translation>%1到期</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="162" />
        <source>Time until the pool takes the URL back</source>
        <translation>网址池收回该网址前的剩余时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="166" />
        <source>Worker</source>
        <translation>工作进程</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="168" />
        <source>The worker fetching the URL (shared pools)</source>
        <translation>正在抓取该网址的工作进程（共享网址池）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="171" />
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="174" />
        <source>Who holds the URL's lease, and since when</source>
        <translation>谁持有该网址的租约，从何时起</translation>
    </message>
</context>
<context>
    <name>LogModel</name>
    <message>
        <location filename="../crawler_gui/gui/models/records.py" line="126" />
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/records.py" line="126" />
        <source>Level</source>
        <translation>级别</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/records.py" line="126" />
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/records.py" line="126" />
        <source>Message</source>
        <translation>消息</translation>
    </message>
</context>
<context>
    <name>MainMenu</name>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="48" />
        <source>Fast: twice a second</source>
        <extracomment>Whether the overview shows totals and rates only (``MainWindow.act_compact``). How often the window reads the pool and repaints (``MainWindow.act_speeds``), in ms. The update speeds offered (View -&gt; Update speed), as a task manager offers them: each refresh reads the pool's snapshot and repaints every pane that changed, on the crawl's own thread, so a slower speed leaves the crawl more of a small machine. The speed a new user gets: in-flight timers and countdowns count whole seconds.</extracomment>
        <translation>快：每秒两次</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="49" />
        <source>Normal: every second</source>
        <translation>正常：每秒一次</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="50" />
        <source>Slow: every 3 seconds</source>
        <translation>慢：每 3 秒一次</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="87" />
        <source>&amp;Start</source>
        <translation>开始(&amp;S)</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="87" />
        <source>Start crawling</source>
        <translation>开始抓取</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="90" />
        <location filename="../crawler_gui/gui/mainmenu.py" line="231" />
        <source>&amp;Pause</source>
        <translation>暂停(&amp;P)</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="94" />
        <source>Pause: no new fetches</source>
        <translation>暂停：不再发起新的抓取</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="97" />
        <source>S&amp;top</source>
        <translation>停止(&amp;T)</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="101" />
        <source>Stop: in-flight fetches finish or go back</source>
        <translation>停止：进行中的抓取完成或退回网址池</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="104" />
        <source>&amp;Add seeds…</source>
        <translation>添加种子(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="110" />
        <source>&amp;Hubs…</source>
        <translation>枢纽页(&amp;H)…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="116" />
        <source>Se&amp;ttings…</source>
        <translation>设置(&amp;T)…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="122" />
        <source>&amp;Open pool…</source>
        <translation>打开网址池(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="128" />
        <source>Open &amp;Redis pool…</source>
        <translation>打开 &amp;Redis 网址池…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="132" />
        <source>Join a shared URL pool on a Redis server</source>
        <translation>加入 Redis 服务器上的共享网址池</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="135" />
        <source>&amp;Save snapshot…</source>
        <translation>保存快照(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="141" />
        <source>&amp;Load snapshot…</source>
        <translation>载入快照(&amp;L)…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="147" />
        <source>&amp;Export…</source>
        <translation>导出(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="151" />
        <source>Export pages, articles or URL outcomes as JSON Lines, CSV or WARC</source>
        <translation>将页面、文章或网址结果导出为 JSON Lines、CSV 或 WARC</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="154" />
        <source>Save &amp;report…</source>
        <translation>保存报告(&amp;R)…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="159" />
        <source>Save the crawl report: one HTML file with totals, throughput, status codes, failing hosts, articles per host and freshness</source>
        <translation>保存抓取报告：一个 HTML 文件，含总计、吞吐量、状态码、失败的主机、各主机的文章数和新鲜度</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="163" />
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="164" />
        <source>&amp;About</source>
        <translation>关于(&amp;A)</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="165" />
        <source>Compact overview</source>
        <translation>紧凑概览</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="168" />
        <source>Totals and rates only: the chart, status codes and estimate make room</source>
        <translation>只显示总数和速率：隐藏图表、状态码和剩余估计，为下方窗格腾出空间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="172" />
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="185" />
        <source>&amp;Crawl</source>
        <translation>抓取(&amp;C)</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="197" />
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="202" />
        <source>Update speed</source>
        <translation>刷新速度</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="206" />
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="209" />
        <source>Crawl</source>
        <translation>抓取</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="231" />
        <source>&amp;Resume</source>
        <translation>继续(&amp;R)</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="271" />
        <source>About Crawler GUI</source>
        <translation>关于 Crawler GUI</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainmenu.py" line="273" />
        <source>Crawler GUI %1
A desktop monitor for long-running, polite news crawls over a durable URL pool.</source>
        <translation>Crawler GUI %1
基于持久网址池、长时间运行且礼貌的新闻抓取的桌面监控程序。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="92" />
        <source>Crawler GUI</source>
        <extracomment>Seconds between two reads of the workers' heartbeats (the Workers pane of a shared pool); their leases are counted from every tick's snapshot. A refresh yields to the loop after a pane merged at least this many rows (``_pane_done``). Emitted once the window has shut down (session closed, timer stopped).</extracomment>
        <translation>Crawler GUI</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="134" />
        <source>Host detail…</source>
        <extracomment>Tray messages (or the status bar): crawl finished or stopped, a host failing.</extracomment>
        <translation>主机详情…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="138" />
        <source>Pause host</source>
        <translation>暂停主机</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="142" />
        <source>Resume host</source>
        <translation>恢复主机</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="150" />
        <source>Busiest first</source>
        <extracomment>Open Host detail windows, by host (fed each refresh's row).</extracomment>
        <translation>最忙的在前</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="151" />
        <source>Sort by waiting URLs, most first</source>
        <translation>按等待网址数排序，多的在前</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="161" />
        <source>Retry now</source>
        <translation>立即重试</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="162" />
        <source>Give up</source>
        <translation>放弃</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="171" />
        <source>Refresh now</source>
        <translation>立即刷新</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="193" />
        <source>Hosts</source>
        <extracomment>What the damage dialogs said (each damaged block once, not at every refresh).</extracomment>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="194" />
        <source>In flight</source>
        <translation>进行中</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="195" />
        <source>Retries</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="196" />
        <source>Hubs</source>
        <translation>枢纽页</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="197" />
        <source>Articles</source>
        <translation>文章</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="198" />
        <source>Pages</source>
        <translation>页面</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="199" />
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="218" />
        <source>Reclaim leases</source>
        <translation>收回租约</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="224" />
        <source>Workers</source>
        <translation>工作进程</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="287" />
        <source>No pool</source>
        <translation>未打开网址池</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="288" />
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="289" />
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="290" />
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="291" />
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="292" />
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="293" />
        <source>Finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="294" />
        <source>Failed (see the log)</source>
        <translation>失败（见日志）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="345" />
        <source>%1 (attached to a running crawl)</source>
        <translation>%1（已连接到正在运行的抓取）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="347" />
        <source>Crawler GUI — %1</source>
        <translation>Crawler GUI — %1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="408" />
        <location filename="../crawler_gui/gui/mainwindow.py" line="427" />
        <source>Crawl stopped</source>
        <translation>爬取已停止</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="408" />
        <source>The crawl stopped.</source>
        <translation>爬取已停止。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="418" />
        <source>Crawl finished</source>
        <translation>爬取完成</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="419" />
        <source>%1: nothing left to crawl; %2 pages, %3 articles.</source>
        <translation>%1：已无可爬取的内容；%2 个页面，%3 篇文章。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="428" />
        <source>%1 stopped on an error: %2</source>
        <translation>%1 因错误停止：%2</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="430" />
        <source>see the log</source>
        <translation>请查看日志</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="437" />
        <source>A host keeps failing</source>
        <translation>某主机持续失败</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="438" />
        <source>%1: %2 URLs failed for good since its last success (last: %3).</source>
        <translation>%1：自上次成功以来已有 %2 个网址最终失败（最近一次：%3）。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="452" />
        <source>Crawl paused</source>
        <translation>爬取已暂停</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="454" />
        <source>The crawl is paused: its data could not be written. Nothing was lost. Free some space on the disk, then press Resume.</source>
        <translation>爬取已暂停：其数据无法写入。没有丢失任何内容。请在磁盘上腾出一些空间，然后按“继续”。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="472" />
        <source>The connection to the crawl of %1 was lost: the crawl was killed, or it dropped this window.</source>
        <translation>与 %1 的抓取的连接已断开：抓取进程被终止，或它断开了本窗口。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="477" />
        <source>The crawl of %1 has ended (%2).</source>
        <translation>%1 的抓取已结束（%2）。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="489" />
        <source>Crawl ended</source>
        <translation>抓取已结束</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="490" />
        <source>Open the pool in this window?</source>
        <translation>在本窗口中打开该网址池吗？</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="592" />
        <source>%1 pages/s · %2 done · %3 waiting</source>
        <translation>%1 页/秒 · 已完成 %2 · 等待 %3</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="641" />
        <source>Damaged files</source>
        <translation>文件已损坏</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/mainwindow.py" line="643" />
        <source>Part of the pool's files is damaged and cannot be read. The window goes on without it; nothing was changed.</source>
        <translation>网址池的部分文件已损坏，无法读取。窗口将在没有这部分内容的情况下继续运行；未做任何更改。</translation>
    </message>
</context>
<context>
    <name>OverviewWidget</name>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="614" />
        <source>Pool</source>
        <translation>网址池</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="618" />
        <source>Done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="619" />
        <source>Waiting</source>
        <translation>等待</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="620" />
        <source>In flight</source>
        <translation>进行中</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="621" />
        <source>Retrying</source>
        <translation>重试中</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="622" />
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="623" />
        <source>Hosts</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="624" />
        <source>Hubs</source>
        <translation>枢纽页</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="625" />
        <source>Crawl</source>
        <translation>抓取</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="629" />
        <source>Rate</source>
        <translation>速率</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="633" />
        <source>Pages/s (last 10 s)</source>
        <translation>页/秒（最近 10 秒）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="634" />
        <source>Pages/s (last min)</source>
        <translation>页/秒（最近 1 分钟）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="635" />
        <source>Pages/s (average)</source>
        <translation>页/秒（平均）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="636" />
        <source>Running for</source>
        <translation>已运行</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="637" />
        <source>Pages fetched</source>
        <translation>已抓取页面</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="638" />
        <source>Fetch errors</source>
        <translation>抓取错误</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="639" />
        <source>Data</source>
        <translation>数据量</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="640" />
        <source>Response p50 / p90 / p99</source>
        <translation>响应时间 p50 / p90 / p99</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="641" />
        <source>On disk</source>
        <translation>磁盘占用</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="645" />
        <source>Status codes</source>
        <translation>状态码</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="649" />
        <source>no response</source>
        <translation>无响应</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="657" />
        <source>Throughput, last 5 minutes</source>
        <translation>吞吐量（最近 5 分钟）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="660" />
        <source>Freshness</source>
        <translation>新鲜度</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="662" />
        <source>Articles found (last hour)</source>
        <translation>发现的文章（最近一小时）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="663" />
        <source>Median delay, published to fetched</source>
        <translation>从发布到抓取的延迟中位数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="666" />
        <source>Articles extracted in the last hour, and the median time from their publication to their fetch (articles whose published time is known)</source>
        <translation>最近一小时抽取的文章，以及从发布到抓取的时间中位数（仅限已知发布时间的文章）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="675" />
        <source>Estimate of what remains</source>
        <translation>剩余工作估算</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="745" />
        <source>%1 (%2/s)</source>
        <extracomment>What a compact overview hides (the totals and rates stay).</extracomment>
        <translation>%1（%2/秒）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="764" />
        <source>pool</source>
        <translation>网址池</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="764" />
        <source>pages</source>
        <translation>页面库</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="764" />
        <source>WARC</source>
        <translation>WARC</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="772" />
        <source>No pool open.</source>
        <translation>未打开网址池。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="777" />
        <source>Nothing is waiting. Hubs will bring new links when they are refreshed.</source>
        <translation>没有等待的网址。枢纽页刷新时会带来新链接。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="779" />
        <source>Nothing is waiting.</source>
        <translation>没有等待的网址。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="785" />
        <source>%1 URLs known and not yet done; no rate to estimate from yet.</source>
        <translation>已知 %1 个网址尚未完成；暂无速率可供估算。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="790" />
        <source>About %1 for the %2 URLs known now, at the rate of the last minute (%3 pages/s). This is a lower bound: pages keep adding new links, and politeness delays slow down hosts with many waiting URLs.</source>
        <translation>按最近一分钟的速率（%3 页/秒），当前已知的 %2 个网址约需 %1。这是下限：页面会不断带来新链接，礼貌延迟也会拖慢等待网址多的主机。</translation>
    </message>
</context>
<context>
    <name>PageDetailDialog</name>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="94" />
        <source>not recorded (stored before this version)</source>
        <extracomment>Characters of the body shown (a bigger body is cut, and says so). None: not recorded (a page stored before schema 4) URLs of stored pages that link here (newest first) None: the body was not stored</extracomment>
        <translation>未记录（在此版本之前存储）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="107" />
        <source>not extracted</source>
        <translation>未抽取</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="109" />
        <location filename="../crawler_gui/gui/pagedetail.py" line="180" />
        <source>URL</source>
        <translation>网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="110" />
        <source>Final URL</source>
        <translation>最终网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="111" />
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="112" />
        <source>Fetched</source>
        <translation>抓取时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="113" />
        <source>Response time</source>
        <translation>响应时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="114" />
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="115" />
        <source>Depth</source>
        <translation>深度</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="116" />
        <source>Content type</source>
        <translation>内容类型</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="117" />
        <source>Encoding</source>
        <translation>编码</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="118" />
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="119" />
        <source>Found on</source>
        <translation>发现于</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="129" />
        <source>Summary</source>
        <translation>概要</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="136" />
        <source>Request</source>
        <translation>请求</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="138" />
        <source>Response</source>
        <translation>响应</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="141" />
        <source>Headers</source>
        <translation>头部</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="150" />
        <source>No redirect.</source>
        <translation>没有重定向。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="151" />
        <source>Redirects</source>
        <translation>重定向</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="159" />
        <source>Published</source>
        <translation>发布时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="163" />
        <source>Not judged an article: %1</source>
        <translation>未判定为文章：%1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="166" />
        <source>Not extracted.</source>
        <translation>尚未抽取。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="169" />
        <source>Not an article.</source>
        <translation>不是文章。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="170" />
        <source>Article</source>
        <translation>文章</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="180" />
        <source>What happened</source>
        <translation>结果</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="180" />
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="195" />
        <source>%1 links</source>
        <translation>%1 个链接</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="197" />
        <source>the first %1 are listed</source>
        <translation>列出前 %1 个</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="203" />
        <source>Out-links</source>
        <translation>外链</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="210" />
        <source>No stored page links here (or not recorded).</source>
        <translation>没有已存储的页面链接到这里（或未记录）。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="211" />
        <source>Linked from</source>
        <translation>来源链接</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="216" />
        <source>The body was not stored.</source>
        <translation>未存储正文。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="219" />
        <source>(cut: the body is longer)</source>
        <translation>（已截断：正文更长）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="223" />
        <source>Body</source>
        <translation>正文源码</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="226" />
        <source>Open in browser</source>
        <translation>在浏览器中打开</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="232" />
        <source>Copy URL</source>
        <translation>复制网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="251" />
        <source>empty body</source>
        <translation>空正文</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="252" />
        <source>plain ASCII</source>
        <translation>纯 ASCII</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="253" />
        <source>from the HTTP Content-Type header</source>
        <translation>来自 HTTP Content-Type 头部</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="254" />
        <source>from a byte-order mark</source>
        <translation>来自字节顺序标记（BOM）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="255" />
        <source>from the &lt;meta&gt; tag</source>
        <translation>来自 &lt;meta&gt; 标签</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="256" />
        <source>valid UTF-8</source>
        <translation>有效的 UTF-8</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="257" />
        <source>guessed from the bytes</source>
        <translation>根据字节推测</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="258" />
        <source>nothing fit: UTF-8 with replacements</source>
        <translation>均不匹配：UTF-8，含替换字符</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="263" />
        <source>queued</source>
        <translation>已入队</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="264" />
        <source>already known</source>
        <translation>已知</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="265" />
        <source>queued or already known</source>
        <translation>已入队或已知</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="266" />
        <source>off-scope</source>
        <translation>超出范围</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="267" />
        <source>refused</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="268" />
        <source>disallowed by robots.txt</source>
        <translation>被 robots.txt 禁止</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pagedetail.py" line="269" />
        <source>not followed (depth limit)</source>
        <translation>未跟随（深度限制）</translation>
    </message>
</context>
<context>
    <name>PagesModel</name>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="67" />
        <source>Time</source>
        <extracomment>Rows read per page of the pane. Records a live refresh reads at most (a filter that matches little: "Show more" goes on). The kinds a page can be filtered by ("" = not extracted).</extracomment>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="68" />
        <source>URL</source>
        <translation>网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="69" />
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="70" />
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="71" />
        <source>Title</source>
        <translation>标题</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="72" />
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="73" />
        <source>Response time</source>
        <translation>响应时间</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="74" />
        <source>Depth</source>
        <translation>深度</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="79" />
        <source>article</source>
        <translation>文章</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="80" />
        <source>list</source>
        <translation>列表</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="81" />
        <source>other</source>
        <translation>其他</translation>
    </message>
</context>
<context>
    <name>PagesPane</name>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="311" />
        <source>Search URL, title and article text…</source>
        <extracomment>The user asked for a page's detail (its sequence number). A read of the pages failed: the error, and whether the user asked for it ("Show more", a search, a filter, a rebuild) or the live refresh did (again at every refresh).</extracomment>
        <translation>搜索网址、标题和文章正文…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="315" />
        <source>All statuses</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="320" />
        <source>All kinds</source>
        <translation>全部类型</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="323" />
        <source>not extracted</source>
        <translation>未抽取</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="327" />
        <source>Host…</source>
        <translation>主机…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="329" />
        <source>Rebuild index</source>
        <translation>重建索引</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="590" />
        <source>Index every stored page again (the search index is kept up to date by itself)</source>
        <translation>重新索引所有已存储的页面（搜索索引平时会自动保持最新）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="357" />
        <source>Show more</source>
        <translation>显示更多</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="404" />
        <source>No page store: pages are shown for a pool open here.</source>
        <translation>没有页面存储：只显示在此窗口中打开的网址池的页面。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="442" />
        <source>Cannot read the pages: %1</source>
        <translation>无法读取页面：%1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="528" />
        <location filename="../crawler_gui/gui/pages.py" line="531" />
        <source>%1 pages shown</source>
        <translation>显示 %1 个页面</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="533" />
        <source>search index: %1 pages to go</source>
        <translation>搜索索引：还有 %1 个页面待索引</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="559" />
        <source>Details…</source>
        <translation>详情…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="562" />
        <source>Open in browser</source>
        <translation>在浏览器中打开</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="567" />
        <source>Copy URL</source>
        <translation>复制网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="585" />
        <source>Index every stored page again, beside the crawl: one indexing thread at a low priority, so the crawl keeps its pace (slower than without a crawl)</source>
        <translation>在抓取进行时重新索引所有已存储的页面：只用一个低优先级的索引线程，抓取保持原有速度（比没有抓取时慢）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="605" />
        <source>Rebuilding the search index…</source>
        <translation>正在重建搜索索引…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="605" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/pages.py" line="608" />
        <source>Search index</source>
        <translation>搜索索引</translation>
    </message>
</context>
<context>
    <name>RedisUrlDialog</name>
    <message>
        <location filename="../crawler_gui/gui/dialogs/redis_url.py" line="34" />
        <source>Type a Redis pool URL.</source>
        <translation>请输入 Redis 网址池的 URL。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/redis_url.py" line="46" />
        <source>Only redis://, rediss:// and unix:// URLs can be opened.</source>
        <translation>只能打开 redis://、rediss:// 和 unix:// 网址。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/redis_url.py" line="52" />
        <location filename="../crawler_gui/gui/dialogs/redis_url.py" line="57" />
        <source>The port is not a number (1-65535).</source>
        <translation>端口不是 1 到 65535 之间的数字。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/redis_url.py" line="55" />
        <source>The URL has no host.</source>
        <translation>该网址没有主机。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/redis_url.py" line="60" />
        <source>The database after the slash must be a number.</source>
        <translation>斜杠后的数据库编号必须是数字。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/redis_url.py" line="65" />
        <source>The pool name may use letters, digits, _ . - only.</source>
        <translation>网址池名称只能使用字母、数字和 _ . -。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/redis_url.py" line="79" />
        <source>Open Redis pool</source>
        <translation>打开 Redis 网址池</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/redis_url.py" line="87" />
        <source>Password (empty: none, or %1)</source>
        <translation>密码（留空：无密码，或使用 %1）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/redis_url.py" line="102" />
        <source>Join a shared URL pool on a Redis server as one more worker. The window shows the whole pool; Pause and Resume reach every worker.</source>
        <translation>作为又一个工作进程加入 Redis 服务器上的共享网址池。窗口显示整个网址池；暂停和继续会传达到每个工作进程。</translation>
    </message>
</context>
<context>
    <name>RetriesModel</name>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="190" />
        <source>URL</source>
        <translation>网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="191" />
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="193" />
        <source>Attempts</source>
        <translation>尝试次数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="197" />
        <source>Failed attempts so far / attempts allowed</source>
        <translation>已失败次数 / 允许次数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="200" />
        <source>Last error</source>
        <translation>最近错误</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="202" />
        <source>The last attempt's error (the fetcher's own words: hover)</source>
        <translation>上次尝试的错误（抓取器的原话：悬停查看）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="205" />
        <source>Next try</source>
        <translation>下次重试</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="212" />
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/pool.py" line="215" />
        <source>Why the URL waits and until when</source>
        <translation>该网址为何等待、等到何时</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="45" />
        <source>Crawl settings</source>
        <translation>抓取设置</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="51" />
        <source>Fetches at once over all hosts</source>
        <translation>所有主机同时进行的抓取数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="52" />
        <source>Fetches at once per host</source>
        <translation>每个主机同时进行的抓取数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="59" />
        <source>Failed attempts before giving up</source>
        <translation>放弃前允许的失败次数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="60" />
        <source>Concurrency:</source>
        <translation>并发数：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="61" />
        <source>Per host:</source>
        <translation>每主机：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="62" />
        <source>Minimum delay per host:</source>
        <translation>每个主机的最小延迟：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="63" />
        <source>Delay factor (× response time):</source>
        <translation>延迟系数（× 响应时间）：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="64" />
        <source>Maximum delay:</source>
        <translation>最大延迟：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="65" />
        <source>Connect timeout:</source>
        <translation>连接超时：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="66" />
        <source>Read timeout:</source>
        <translation>读取超时：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="67" />
        <source>Total timeout:</source>
        <translation>总超时：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="68" />
        <source>Retries:</source>
        <translation>重试次数：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="71" />
        <source>adaptive: by how often each hub publishes</source>
        <translation>自适应：按各枢纽页的发布频率</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="72" />
        <source>fixed: every hub on its own span</source>
        <translation>固定：每个枢纽页使用自身间隔</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="75" />
        <source>Adaptive: the hubs share the fetches their spans allow (the same number), the busy ones more often, the quiet ones less</source>
        <translation>自适应：各枢纽页分享其间隔所允许的抓取次数（总数不变），繁忙的更频繁，冷清的更少</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="81" />
        <source>Adaptive refresh: no hub more often than this</source>
        <translation>自适应刷新：任何枢纽页都不会比此更频繁</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="85" />
        <source>Adaptive refresh: every hub at least this often, a silent one too</source>
        <translation>自适应刷新：每个枢纽页至少按此频率刷新，不发布的也是</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="87" />
        <source>Hub refresh:</source>
        <translation>枢纽页刷新：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="88" />
        <source>Shortest hub span:</source>
        <translation>最短枢纽页间隔：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="89" />
        <source>Longest hub span:</source>
        <translation>最长枢纽页间隔：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="90" />
        <source>Fetching</source>
        <translation>抓取</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="94" />
        <source>Limit depth to</source>
        <translation>深度限制为</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="95" />
        <source>Links followed from a seed or hub</source>
        <translation>从种子或枢纽页起跟随的链接层数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="101" />
        <source>example.com, news.example.org</source>
        <translation>example.com, news.example.org</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="103" />
        <source>Follow links to other sites</source>
        <translation>跟随指向其他站点的链接</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="104" />
        <source>Obey robots.txt</source>
        <translation>遵守 robots.txt</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="105" />
        <source>Depth:</source>
        <translation>深度：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="106" />
        <source>Also allow domains:</source>
        <translation>额外允许的域名：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="107" />
        <source>Deny domains:</source>
        <translation>禁止的域名：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="110" />
        <source>Scope</source>
        <translation>范围</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="115" />
        <source>User agent:</source>
        <translation>User-Agent：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="116" />
        <source>Identity</source>
        <translation>身份</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="123" />
        <source>After every batch of results (safest, slowest)</source>
        <translation>每批结果之后（最安全，最慢）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="124" />
        <source>At least once a second</source>
        <translation>至少每秒一次</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="125" />
        <source>When the system decides (fastest)</source>
        <translation>由系统决定（最快）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="130" />
        <source>When the pool's writes are forced to the disk: bounds what a power cut can lose. A crash of the program alone loses nothing either way.</source>
        <translation>网址池的写入何时强制落盘：限定断电时可能丢失的内容。仅程序崩溃时两种方式都不会丢失任何内容。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="137" />
        <source>The crawl pauses when a disk of the crawl has less free space; 0: never</source>
        <translation>当爬取所用磁盘的剩余空间低于此值时暂停爬取；0：从不</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="139" />
        <source>Write to the disk:</source>
        <translation>写入磁盘：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="140" />
        <source>Pause below free space:</source>
        <translation>剩余空间低于此值时暂停：</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="141" />
        <source>Storage</source>
        <translation>存储</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="206" />
        <source>the user agent must not be empty</source>
        <translation>User-Agent 不能为空</translation>
    </message>
</context>
<context>
    <name>TablePane</name>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="299" />
        <source>Filter…</source>
        <extracomment>Texts whose widths are remembered (counts, host names and times repeat from one paint to the next); forgotten all at once when there are more. Texts kept laid out for drawing (``QStaticText``: its glyphs found once, not at every paint); forgotten all at once when there are more. An extra context-menu action: (label, callback(url_or_key)). Qt's QWIDGETSIZE_MAX: no maximum size. What the view shows: the model itself when it filters and sorts its own rows (a ``KeyedTableModel``), else a ``FilterProxy`` over it. View rows are ``shown``'s.</extracomment>
        <translation>筛选…</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="458" />
        <source>Open in browser</source>
        <extracomment>No column but the stretch column is sized wider than this by its contents. The first rows whose texts decide the columns' widths.</extracomment>
        <translation>在浏览器中打开</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="463" />
        <source>Copy URL</source>
        <translation>复制网址</translation>
    </message>
</context>
<context>
    <name>ThroughputChart</name>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="496" />
        <source>Throughput chart</source>
        <translation>吞吐量图表</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="507" />
        <source>Last %1: %2 pages, %3 errors</source>
        <translation>最近 %1：%2 页，%3 个错误</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="553" />
        <source>-%1</source>
        <translation>-%1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="558" />
        <source>now</source>
        <translation>现在</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="588" />
        <location filename="../crawler_gui/gui/widgets.py" line="591" />
        <source>■ pages/s</source>
        <translation>■ 页/秒</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/widgets.py" line="593" />
        <source>■ errors/s</source>
        <translation>■ 错误/秒</translation>
    </message>
</context>
<context>
    <name>ValidationModel</name>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="37" />
        <source>Line</source>
        <translation>行</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="37" />
        <source>URL</source>
        <translation>网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="37" />
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="60" />
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/dialogs/seeds.py" line="61" />
        <source>refused: %1</source>
        <translation>已拒绝：%1</translation>
    </message>
</context>
<context>
    <name>WorkersModel</name>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="71" />
        <source>running</source>
        <extracomment>leases it holds in the last snapshot False: it holds leases but sent no heartbeat (an older version, or gone) The warning colour of a silent worker's row: readable on light and dark palettes. The worker id of this window's own pool client (marked in the Worker column).</extracomment>
        <translation>运行中</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="72" />
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="73" />
        <source>stopping</source>
        <translation>正在停止</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="74" />
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="75" />
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="76" />
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="77" />
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="85" />
        <source>Worker</source>
        <translation>工作进程</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="86" />
        <source>Machine</source>
        <translation>机器</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="88" />
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="91" />
        <source>What the worker last reported; silent: no heartbeat for %1</source>
        <translation>工作进程最近一次报告的状态；失联：%1 内没有心跳</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="96" />
        <source>Last seen</source>
        <translation>最近心跳</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="100" />
        <source>Time since its last heartbeat (one every %1)</source>
        <translation>距最近一次心跳的时间（每 %1 一次）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="106" />
        <source>Pages fetched</source>
        <translation>已抓取页面</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="110" />
        <source>Pages it fetched since it started</source>
        <translation>启动以来抓取的页面数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="113" />
        <source>Pages/s</source>
        <translation>页/秒</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="117" />
        <source>Its pages per second over the last seconds</source>
        <translation>最近几秒内每秒抓取的页面数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="120" />
        <source>In flight</source>
        <translation>进行中</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="124" />
        <source>URLs it holds leases on now</source>
        <translation>它当前持有租约的网址数</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="136" />
        <source>no heartbeat</source>
        <translation>无心跳</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="138" />
        <source>silent</source>
        <translation>失联</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="143" />
        <source>%1 (this window)</source>
        <translation>%1（本窗口）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="149" />
        <source>%1 ago</source>
        <translation>%1前</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="158" />
        <source>This worker holds leases but sent no heartbeat: a worker of an older version, or one gone for more than a day.</source>
        <translation>该工作进程持有租约，但没有发送过心跳：可能是旧版本的工作进程，或已离开超过一天。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="164" />
        <source>No heartbeat for %1: the worker may be dead, hung or cut off from the pool. It last reported: %2.</source>
        <translation>已有 %1 没有心跳：该工作进程可能已退出、卡住或与网址池断开。它最近报告的状态：%2。</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/models/workers.py" line="173" />
        <source>Process %1 on %2, started %3</source>
        <translation>%2 上的进程 %1，启动于 %3</translation>
    </message>
</context>
<context>
    <name>dialogs</name>
    <message>
        <location filename="../crawler_gui/gui/dialogs/running.py" line="107" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>fmt</name>
    <message>
        <location filename="../crawler_gui/gui/dialogs/settings.py" line="174" />
        <location filename="../crawler_gui/gui/fmt.py" line="23" />
        <location filename="../crawler_gui/gui/fmt.py" line="60" />
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fmt.py" line="27" />
        <source>%1 min</source>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fmt.py" line="28" />
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fmt.py" line="32" />
        <source>%1 h</source>
        <translation>%1 小时</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fmt.py" line="33" />
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fmt.py" line="36" />
        <source>%1 d</source>
        <translation>%1 天</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fmt.py" line="37" />
        <source>%1 d %2 h</source>
        <translation>%1 天 %2 小时</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fmt.py" line="43" />
        <source>due</source>
        <translation>已到期</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/fmt.py" line="44" />
        <source>in %1</source>
        <translation>%1后</translation>
    </message>
</context>
<context>
    <name>reasons</name>
    <message>
        <location filename="../crawler_gui/core/hublist.py" line="22" />
        <source>the refresh span is not a duration (like 300, 5m or 1h)</source>
        <translation>刷新间隔不是时长（如 300、5m 或 1h）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="43" />
        <source>the URL is empty</source>
        <extracomment>Machine-readable refusal reasons, with the sentence the GUI shows for each.</extracomment>
        <translation>网址为空</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="44" />
        <source>the URL cannot be parsed</source>
        <translation>无法解析该网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="45" />
        <source>only http and https URLs are crawled</source>
        <translation>只抓取 http 和 https 网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="46" />
        <source>the URL is longer than the limit</source>
        <translation>网址超过长度上限</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="47" />
        <location filename="../crawler_gui/engine/scope.py" line="33" />
        <source>the URL has no host</source>
        <translation>网址没有主机名</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="48" />
        <source>the host has no dot (not a public host name)</source>
        <translation>主机名中没有点（不是公网主机名）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="51" />
        <source>the host name is not valid</source>
        <translation>主机名无效</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="52" />
        <source>the host name is longer than 253 characters, or one of its labels than 63</source>
        <translation>主机名超过 253 个字符，或其中某一段超过 63 个字符</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="55" />
        <source>the port is not a number from 1 to 65535</source>
        <translation>端口不是 1 到 65535 之间的数字</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="56" />
        <source>URLs with a user name or password are not crawled</source>
        <translation>不抓取带用户名或密码的网址</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="57" />
        <source>the URL is deeper than the depth limit</source>
        <translation>网址深度超过深度上限</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="58" />
        <source>the host already has the maximum number of waiting URLs</source>
        <translation>该主机的等待网址已达上限</translation>
    </message>
    <message>
        <location filename="../crawler_gui/core/urls.py" line="61" />
        <source>the URL is a hub; hubs are refreshed on their own timer</source>
        <translation>该网址是枢纽页；枢纽页按自己的计时刷新</translation>
    </message>
    <message>
        <location filename="../crawler_gui/engine/scope.py" line="27" />
        <source>the URL is not on a seed's or an allowed domain</source>
        <extracomment>Offline: the public suffix list snapshot bundled with tldextract; never fetched, never cached.</extracomment>
        <translation>网址不在种子域名或允许的域名内</translation>
    </message>
    <message>
        <location filename="../crawler_gui/engine/scope.py" line="28" />
        <source>the URL's host is on a denied domain</source>
        <translation>网址的主机属于被拒绝的域名</translation>
    </message>
    <message>
        <location filename="../crawler_gui/engine/scope.py" line="29" />
        <source>the URL matches a deny pattern</source>
        <translation>网址匹配了拒绝规则</translation>
    </message>
    <message>
        <location filename="../crawler_gui/engine/scope.py" line="30" />
        <source>the URL matches none of the allow patterns</source>
        <translation>网址不匹配任何允许规则</translation>
    </message>
</context>
<context>
    <name>why</name>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="20" />
        <source>host paused by you</source>
        <translation>主机已被你暂停</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="25" />
        <source>per-host cap reached: %1 in flight</source>
        <translation>已达每主机上限：%1 个正在抓取</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="28" />
        <source>ready: next free fetch slot</source>
        <translation>就绪：等待下一个空闲抓取槽</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="34" />
        <source>politeness: next request at %1 (delay %2 = %3 × last response time %4)</source>
        <translation>礼貌策略：下次请求于 %1（延迟 %2 = %3 × 上次响应时间 %4）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="44" />
        <source>robots.txt Crawl-delay %1: next request at %2</source>
        <translation>robots.txt 抓取延迟 %1：下次请求于 %2</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="50" />
        <source>politeness: next request at %1 (delay %2, set by you for this host)</source>
        <translation>礼貌策略：下次请求于 %1（延迟 %2，由你为该主机设置）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="58" />
        <source>politeness: next request at %1 (delay %2, the configured maximum)</source>
        <translation>礼貌策略：下次请求于 %1（延迟 %2，配置的最大值）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="66" />
        <source>politeness: next request at %1 (delay %2, the configured minimum)</source>
        <translation>礼貌策略：下次请求于 %1（延迟 %2，配置的最小值）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="72" />
        <source>politeness: next request at %1</source>
        <translation>礼貌策略：下次请求于 %1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="77" />
        <source>backing off until %1 after %2 (Retry-After)</source>
        <translation>因 %2 退避至 %1（Retry-After）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="79" />
        <source>backing off until %1 after %2 (no Retry-After: the default wait)</source>
        <translation>因 %2 退避至 %1（无 Retry-After：默认等待）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="90" />
        <source>lease held by worker %1 for %2</source>
        <translation>租约由工作进程 %1 持有 %2</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="92" />
        <source>being fetched by this crawl for %1</source>
        <translation>本次爬取正在抓取，已 %1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="100" />
        <source>timed out</source>
        <translation>超时</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="101" />
        <source>connection failed</source>
        <translation>连接失败</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="102" />
        <source>the host name did not resolve</source>
        <translation>主机名无法解析</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="103" />
        <source>connection reset</source>
        <translation>连接被重置</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="104" />
        <source>malformed HTTP response</source>
        <translation>HTTP 响应格式错误</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="105" />
        <source>internal error of the crawler</source>
        <translation>爬虫内部错误</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="106" />
        <source>robots.txt unreachable</source>
        <translation>robots.txt 无法访问</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="107" />
        <source>too large</source>
        <translation>过大</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="108" />
        <source>unsupported content type</source>
        <translation>不支持的内容类型</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="109" />
        <source>redirect without a target</source>
        <translation>没有目标的重定向</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="110" />
        <source>redirect loop</source>
        <translation>重定向循环</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="111" />
        <source>too many redirects</source>
        <translation>重定向次数过多</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="112" />
        <source>disallowed by robots.txt</source>
        <translation>被 robots.txt 禁止</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="113" />
        <source>address not allowed</source>
        <translation>地址不被允许</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="114" />
        <source>outside the crawl's scope</source>
        <translation>超出爬取范围</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="118" />
        <source>HTTP %1</source>
        <translation>HTTP %1</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="126" />
        <source>due: goes back to its host's queue</source>
        <translation>已到期：回到其主机队列</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="128" />
        <source>robots.txt unreachable, retry at %1</source>
        <translation>robots.txt 无法访问，于 %1 重试</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="134" />
        <source>retry at %1 (backoff %2 after %3)</source>
        <translation>于 %1 重试（%3 后退避 %2）</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="139" />
        <source>retry at %1 after %2</source>
        <translation>%2 后于 %1 重试</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="145" />
        <source>parked: the crawl stopped %1 times in a row while fetching it; Refresh now to try again</source>
        <translation>已搁置：抓取它时爬虫连续 %1 次中止；点“立即刷新”再试</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="153" />
        <source>learned: its share of the budget by its rate</source>
        <translation>已学习：按其速率分得的预算</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="156" />
        <source>at the fastest its host's politeness allows</source>
        <translation>已达主机礼貌策略允许的最快速度</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="159" />
        <source>at the maximum span: it publishes little</source>
        <translation>已达最长间隔：它很少发布</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="160" />
        <source>sped up: its list was nearly all new</source>
        <translation>已加快：其列表几乎全是新文章</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="161" />
        <source>burst: it publishes much faster lately</source>
        <translation>突发：最近发布快得多</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="162" />
        <source>lull: it publishes much slower lately</source>
        <translation>低谷：最近发布慢得多</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="163" />
        <source>fixed span</source>
        <translation>固定间隔</translation>
    </message>
    <message>
        <location filename="../crawler_gui/gui/why.py" line="164" />
        <source>learning: its own span until it is known</source>
        <translation>学习中：在了解之前使用其自身间隔</translation>
    </message>
</context>
</TS>