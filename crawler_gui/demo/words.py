"""The demo sites' vocabulary: section names, Chinese and English word lists, city and reporter
names (the fixed site's and the live site's pages are written from them)."""

from __future__ import annotations

_SECTIONS: dict[str, str] = {
    "news": "要闻",
    "world": "国际",
    "china": "国内",
    "business": "财经",
    "tech": "科技",
    "sports": "体育",
    "culture": "文化",
    "opinion": "评论",
}
_CN_WORDS = (  # noqa: SIM905 - a word list reads better as text
    "经济 发展 城市 记者 报道 政府 市场 科技 公司 新闻 国际 体育 文化 教育 环境 社会 交通 "
    "天气 健康 旅游 投资 银行 企业 研究 学生 医院 农业 能源 数据 网络 手机 电影 音乐 比赛 "
    "球队 地区 计划 项目 会议 专家 表示 今年 增长 服务 建设 合作 安全 政策 人民 工作 问题 "
    "历史 国家 世界 生活 技术 管理 产品 信息 系统 方面 情况 重要 已经 认为 进行 相关 部门"
).split()
_EN_WORDS = (  # noqa: SIM905
    "the market city report government growth technology company news world sports culture "
    "education climate transport weather health travel investment bank research students "
    "hospital energy data network phone film music match team region plan project meeting "
    "experts said this year service building security policy people work history country "
    "life system product information according officials announced on Tuesday local"
).split()
_CITIES = (
    "Harbor",
    "Riverside",
    "Lakeview",
    "Hillcrest",
    "Eastport",
    "Northfield",
    "Westbrook",
    "Southgate",
    "Pinewood",
    "Stonebridge",
    "Maplewood",
    "Clearwater",
)
_REPORTERS = ("王明", "李华", "张伟", "刘洋", "陈静")
_CN_CITIES = ("港湾", "河畔", "湖景", "山城", "东港", "北原", "西溪", "南门", "松林", "石桥")
