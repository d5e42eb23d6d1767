"""The kinds of fact a memory line states, and the words of a change: one table the gate's
protected-fact rule (reflection/protected.py) and the mock reflection model decide by.

The persona's lines and any rule (always, never, ask before, 必须, 不要 …), and facts about
health, money, identity, dates and credentials are protected: they change only on the user's
explicit word of a change (`CHANGE`).
"""

from __future__ import annotations

import re

from mini_letta.memory.layout import PERSONA_FILE

_I = re.IGNORECASE
CATEGORIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "health",
        re.compile(
            r"allerg|asthma|diabet|medic|\bpills?\b|\bblood\b|pregnan|disease|illness|surgery"
            r"|injur|therapy|doctor|\bvegan\b|vegetarian|gluten|lactose|epilep|\bhealth"
            r"|过敏|哮喘|糖尿病|药|病|血|怀孕|手术|医生|素食|乳糖|健康",
            _I,
        ),
    ),
    (
        "money",
        re.compile(
            r"budget|salary|\bprice|\bcost|[$€£¥]|\busd\b|\beur\b|\brmb\b|dollar|\bpaid\b"
            r"|\bpay\b|invoice|\bfee|\brent\b|\bmoney|元|预算|工资|薪|价格|费用|块钱|房租|钱",
            _I,
        ),
    ),
    (
        "identity",
        re.compile(
            r"\bname\b|\bcalled\b|call me|pronoun|birthday|\bborn\b|\baged?\b|\baddress"
            r"|\bphone\b|e-?mail|nationality|citizen|我叫|名字|叫我|生日|出生|地址|电话|邮箱|岁|国籍",
            _I,
        ),
    ),
    (
        "date",
        re.compile(
            r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}月\d{1,2}[日号]|deadline|\bdue\b|anniversary"
            r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b"
            r"|截止|到期|纪念日",
            _I,
        ),
    ),
    (
        "credential",
        re.compile(
            r"password|passphrase|\btoken|api[ _-]?key|\bsecret|\bpin\b|credential|ssh key"
            r"|密码|口令|令牌|密钥|密碼",
            _I,
        ),
    ),
    (
        "rule",
        re.compile(
            r"\bnever\b|\balways\b|\bmust\b|\bdo not\b|\bdon['’]t\b|ask (?:me )?(?:before|first)"
            r"|\bconfirm|permission|\bsafety\b|\bsafe\b|\brefuse|\bforbid|\bnot allowed"
            r"|禁止|必须|不要|不得|不能|先问|确认|权限|安全|一律|永远",
            _I,
        ),
    ),
)
CHANGE = re.compile(
    r"\bno longer\b|\bnot anymore\b|\banymore\b|\bany more\b|\bchang\w*|\bswitch\w*|\bmov\w*"
    r"|\binstead\b|\bactually\b|\bcorrect\w*|\bwrong\b|\bmistake\w*|\bmisdiagnos\w*"
    r"|\boutgr\w*|\bupdat\w*|\bnow\b|\bforget\b|\bremove\w*|\bdelet\w*|\bdrop\w*|\bstop\w*"
    r"|\bcancel\w*|\brenam\w*|\bturned out\b|\bisn['’]t\b|\bis not\b|\bwasn['’]t\b"
    r"|\bnot true\b|\braised\b|\blowered\b|\bincreas\w*|\bdecreas\w*|\bwent (?:up|down)\b"
    r"|\bcut\b|\bdoubled\b|\bno more\b|\breplac\w*|\bpostpon\w*|\bresched\w*|\bnew\b"
    r"|不再|改成|改为|换成|换到|改用|其实|不对|更正|纠正|错了|取消|删掉|删除|忘掉|忘记|现在|已经"
    r"|\brose\b|\bgrew\b|\bdropped\b|\bfell\b|\bbumped\b|\bupgrad\w*|\bdowngrad\w*"
    r"|变成|调整|提高|降低|增加|减少|不是|搬到|移到|改名|推迟|提前|换了|改了|涨|降到|调到|上调|下调"
    r"|升级|降级",
    _I,
)


def categories(path: str, line: str) -> list[str]:
    """The protected categories of a memory line ([] when it is an ordinary fact)."""
    found = [name for name, pattern in CATEGORIES if pattern.search(line)]
    if path == PERSONA_FILE and "rule" not in found:
        found.append("rule")  # every line of the persona is how the agent behaves
    return found
