"""A generated, labelled corpus for bench/recall.py: long multi-session chats in Chinese and
English with facts hidden among filler, and questions naming the messages that answer them.

Deterministic (seeded). Filler reuses the facts' vocabulary on purpose (distractors mention
pnpm, tabs, the deploy script... without answering), so BM25 has to rank, not just match.
"""

from __future__ import annotations

import random

from mini_letta.structs import Struct

# (fact said in the chat, question asked later); the fact's message is the answer.
FACTS: list[tuple[str, str]] = [
    ("我们决定以后一律用 pnpm 管理依赖，不再用 npm", "我们用什么工具管理依赖？"),
    ("我更喜欢用 tabs 缩进，别再用空格了", "我喜欢哪种缩进？"),
    ("部署脚本报错是因为 .env 里少了 DATABASE_URL", "部署脚本为什么报错？"),
    ("周三下午三点要和设计组开评审会", "评审会是什么时候？"),
    ("生产数据库每天凌晨两点自动备份到 S3", "数据库多久备份一次，备份到哪里？"),
    ("登录页的验证码服务换成了自建的，不用第三方了", "验证码服务现在用的是哪家的？"),
    ("前端构建改用 Vite，Webpack 的配置可以删掉了", "前端构建用什么工具？"),
    ("日志统一输出成 JSON 格式，方便 Loki 收集", "日志是什么格式？"),
    ("测试覆盖率的门槛定在百分之八十", "测试覆盖率要求多少？"),
    ("我女儿对花生过敏，团建点餐时注意一下", "团建点餐要注意什么过敏？"),
    ("接口超时时间统一设成三十秒", "接口超时设的是多少？"),
    ("代码评审至少需要两个人批准才能合并", "合并代码需要几个人批准？"),
    ("Redis 缓存的过期时间改成了十分钟", "缓存多久过期？"),
    ("我下个月十五号开始休假两周", "我什么时候休假？"),
    ("灰度发布先放百分之五的流量", "灰度发布先放多少流量？"),
    ("We agreed to squash-merge every pull request into main", "How do we merge pull requests?"),
    ("My preferred editor is Helix, with the default keymap", "Which editor do I use?"),
    ("The staging cluster runs on three ARM nodes in Frankfurt", "Where is the staging cluster?"),
    (
        "Release notes are written in the CHANGELOG.md file by the release captain",
        "Who writes the release notes?",
    ),
    (
        "The flaky payment test fails because of a timezone assumption",
        "Why does the payment test fail?",
    ),
    (
        "We pinned Python to 3.12 because numpy wheels lag behind",
        "Which Python version did we pin and why?",
    ),
    ("The on-call rotation switches every Monday at 9am", "When does on-call rotate?"),
    ("Image uploads are limited to 10 megabytes per file", "What is the upload size limit?"),
    (
        "Feature flags live in LaunchDarkly, not in the config repo",
        "Where are feature flags stored?",
    ),
    ("The API rate limit is 600 requests per minute per token", "What is the API rate limit?"),
    ("Alice owns the billing service; ask her before changing invoices", "Who owns billing?"),
    ("We chose Postgres over MySQL for JSONB support", "Why did we pick Postgres?"),
    ("Backups are encrypted with age keys kept in the vault", "How are backups encrypted?"),
    ("Our sprint demo happens every other Friday afternoon", "When is the sprint demo?"),
    ("The mobile app must support iOS 16 and newer", "Which iOS versions do we support?"),
]

_ZH_FILLER = [
    "好的，我看一下{x}。", "{x} 这块我再确认下。", "刚才 {x} 的问题解决了吗？",
    "先把 {x} 的单元测试补上。", "{x} 好像有点慢，安装要好几分钟。", "帮我看下 {x} 的日志",
    "{x} 的文档在哪里？", "这个 {x} 的改动我们明天再讨论。", "今天先到这里，{x} 明天继续。",
    "我觉得 {x} 可以先不动。", "{x} 跑通了，谢谢！", "能不能把 {x} 的配置发我一份？",
]  # fmt: skip
_EN_FILLER = [
    "Let me look at {x} first.", "Is {x} still broken on your machine?", "I pushed a fix for {x}.",
    "Can you review the {x} change?", "{x} looks fine to me now.", "We should document {x}.",
    "The {x} build took forever today.", "Let's pair on {x} tomorrow.", "Any news on {x}?",
    "I think {x} can wait until next sprint.", "Thanks, {x} works now.", "Who touched {x} last?",
]  # fmt: skip
_ZH_TOPICS = [
    "pnpm", "缩进", "部署脚本", "评审会", "数据库", "验证码", "前端构建", "日志", "测试覆盖率",
    "团建", "接口", "代码评审", "缓存", "休假", "灰度发布", "依赖", "空格", "报错", "备份",
    "登录页", "配置", "监控", "权限", "搜索", "消息队列",
]  # fmt: skip
_EN_TOPICS = [
    "pull requests", "the editor", "staging", "release notes", "the payment test", "Python",
    "on-call", "uploads", "feature flags", "the rate limit", "billing", "Postgres", "backups",
    "the sprint demo", "the mobile app", "the CI pipeline", "the dashboard", "search",
]  # fmt: skip


_DETAILS_ZH = ["第 {n} 行", "版本 1.{n}", "大概 {n} 分钟", "{n} 个文件", "工单 #{n}", ""]
_DETAILS_EN = ["on line {n}", "in v1.{n}", "for {n} minutes", "in {n} files", "(ticket #{n})", ""]


def _filler(rng: random.Random, english: bool) -> str:
    """One chatty clause about a random topic, with a random detail so lines rarely repeat."""
    template = rng.choice(_EN_FILLER if english else _ZH_FILLER)
    topic = rng.choice(_EN_TOPICS if english else _ZH_TOPICS)
    detail = rng.choice(_DETAILS_EN if english else _DETAILS_ZH).format(n=rng.randrange(1, 500))
    text = template.format(x=topic)
    return f"{text[:-1]} {detail}{text[-1]}" if detail else text


class Line(Struct, frozen=True):
    role: str
    text: str
    answers: int | None = None  # index into FACTS when this message states that fact


def build_sessions(sessions: int, per_session: int, seed: int = 7) -> list[list[Line]]:
    """`sessions` conversations of `per_session` messages; every fact appears once, in a
    random session at a random place, among filler that mentions the same topics."""
    rng = random.Random(seed)
    chats: list[list[Line]] = []
    for _ in range(sessions):
        chat = []
        for i in range(per_session):
            english = rng.random() < 0.4
            clauses = [_filler(rng, english) for _ in range(rng.choice((1, 1, 2, 3)))]
            text = (" " if english else "").join(clauses)
            chat.append(Line("user" if i % 2 == 0 else "assistant", text))
        chats.append(chat)
    for index, (fact, _) in enumerate(FACTS):
        chat = chats[rng.randrange(sessions)]
        chat.insert(rng.randrange(len(chat)), Line("user", fact, answers=index))
    return chats
