"""Writes the secret scanner's corpus: fake credentials shaped like real ones, and clean lines
of code and prose (English and Chinese) that talk about passwords, tokens, keys, hashes and ids.

Usage: python bench/secret_corpus.py   (rewrites src/mini_letta/memory/secret_corpus/*.jsonl)

Deterministic (seeded), so the files it writes are the files in the repository; a test holds
them equal. Each part, `visible` and `held-out`, is a JSON-lines file of
`{"secret": bool, "shape": str, "text": str, "hand": bool}`; lines marked `hand` were written by
hand and are kept as they are. The held-out part is generated with its own seed and with
sentence frames and clean-line templates of its own, so it is not the visible part reworded:
the scanner's rules are written against the visible part only.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from collections.abc import Callable
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "src" / "mini_letta" / "memory" / "secret_corpus"
PARTS = {"visible": 20261203, "held-out": 777}
PER_SHAPE = {"visible": 5, "held-out": 3}
CLEAN = {"visible": 700, "held-out": 360}

LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"

Shape = Callable[[random.Random], str]


def pick(rng: random.Random, alphabet: str, n: int) -> str:
    """`n` characters of `alphabet` with at least one digit and one letter when it has both."""
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        letters = any(c.isalpha() for c in alphabet)
        digits = any(c.isdigit() for c in alphabet)
        if n < 6 or not (letters and digits):
            return value
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def luhn_card(rng: random.Random, prefix: str, length: int) -> str:
    body = prefix + "".join(rng.choice(DIGITS) for _ in range(length - len(prefix) - 1))
    total = 0
    for index, char in enumerate(reversed(body)):
        digit = int(char)
        if index % 2 == 0:
            digit *= 2
            digit -= 9 if digit > 9 else 0
        total += digit
    return body + str((10 - total % 10) % 10)


def grouped(card: str, sep: str) -> str:
    if len(card) == 15:
        return sep.join((card[:4], card[4:10], card[10:]))
    return sep.join(card[i : i + 4] for i in range(0, len(card), 4))


def password(rng: random.Random) -> str:
    words = ["river", "Falcon", "tiger", "Maple", "orbit", "Cobalt", "lemon", "Harbor", "quartz"]
    style = rng.randrange(4)
    if style == 0:
        return rng.choice(words) + str(rng.randrange(10, 9999)) + rng.choice("!@#$%&*")
    if style == 1:
        return pick(rng, ALNUM + "!@#%^&*", rng.randrange(10, 18))
    if style == 2:
        return rng.choice(words).capitalize() + rng.choice(words) + str(rng.randrange(1, 99))
    return pick(rng, LOWER + DIGITS, rng.randrange(8, 13))


def host(rng: random.Random) -> str:
    return rng.choice(
        [
            "db.internal",
            "10.0.3.17",
            "prod-db-1.cluster-cx3.eu-west-1.rds.amazonaws.com",
            "cache.example.net",
            "mq.corp.local",
            "localhost",
        ]
    )


def pem(rng: random.Random, label: str, lines: int, end: bool) -> str:
    body = base64.b64encode(rng.randbytes(48 * lines)).decode("ascii")
    rows = [body[i : i + 64] for i in range(0, len(body), 64)]
    block = [f"-----BEGIN {label}-----", *rows]
    if end:
        block.append(f"-----END {label}-----")
    return "\n".join(block)


def jwt(rng: random.Random) -> str:
    header = b64url(json.dumps({"alg": rng.choice(["HS256", "RS256"]), "typ": "JWT"}).encode())
    claims = {"sub": str(rng.randrange(10**6)), "iat": 1700000000 + rng.randrange(10**7)}
    payload = b64url(json.dumps(claims).encode())
    return f"{header}.{payload}.{b64url(rng.randbytes(32))}"


def basic(rng: random.Random) -> str:
    user = rng.choice(["admin", "deploy", "ci-bot", "svc_backup", "alice"])
    return base64.b64encode(f"{user}:{password(rng)}".encode()).decode("ascii")


SHAPES: dict[str, Shape] = {
    # cloud
    "aws access key id": lambda r: "AKIA" + pick(r, UPPER + DIGITS, 16),
    "aws temporary key id": lambda r: "ASIA" + pick(r, UPPER + DIGITS, 16),
    "aws secret access key": lambda r: "aws_secret_access_key = " + pick(r, B64, 40),
    "gcp api key": lambda r: "AIza" + pick(r, URLSAFE, 35),
    "gcp oauth client secret": lambda r: "GOCSPX-" + pick(r, URLSAFE, 28),
    "google oauth access token": lambda r: "ya29." + pick(r, URLSAFE, 120),
    "gcp service account key": lambda r: (
        '"private_key": "' + pem(r, "PRIVATE KEY", 4, True).replace("\n", "\\n") + '\\n"'
    ),
    "azure storage connection string": lambda r: (
        "DefaultEndpointsProtocol=https;AccountName="
        + pick(r, LOWER + DIGITS, 12)
        + ";AccountKey="
        + base64.b64encode(r.randbytes(64)).decode()
        + ";EndpointSuffix=core.windows.net"
    ),
    "azure sas token": lambda r: (
        "?sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacupiytfx&se=2026-12-31T00:00:00Z"
        "&st=2026-01-01T00:00:00Z&spr=https&sig="
        + base64.b64encode(r.randbytes(32)).decode().replace("+", "%2B").replace("/", "%2F")[:-1]
        + "%3D"
    ),
    "azure ad client secret": lambda r: (
        pick(r, ALNUM, 3) + r.choice(DIGITS) + "Q~" + pick(r, URLSAFE + ".~", 34)
    ),
    "alibaba access key": lambda r: "LTAI" + pick(r, ALNUM, 20),
    "digitalocean token": lambda r: "dop_v1_" + pick(r, HEX, 64),
    # CI and code hosting
    "github classic token": lambda r: (
        r.choice(["ghp_", "gho_", "ghs_", "ghu_", "ghr_"]) + pick(r, ALNUM, 36)
    ),
    "github fine-grained token": lambda r: (
        "github_pat_11" + pick(r, UPPER + DIGITS, 20) + "_" + pick(r, ALNUM, 59)
    ),
    "gitlab token": lambda r: r.choice(["glpat-", "gldt-", "glptt-"]) + pick(r, URLSAFE, 20),
    "gitlab runner token": lambda r: "glrt-" + pick(r, URLSAFE, 20),
    "circleci token": lambda r: "CCIPAT_" + pick(r, ALNUM, 22) + "_" + pick(r, HEX, 40),
    "bitbucket app password": lambda r: "ATBB" + pick(r, ALNUM, 32),
    "atlassian api token": lambda r: (
        "ATATT3xFfGF0" + pick(r, URLSAFE, 180) + "=" + pick(r, HEX.upper(), 8)
    ),
    "hashicorp vault token": lambda r: "hvs." + pick(r, URLSAFE, 90),
    "terraform cloud token": lambda r: pick(r, ALNUM, 14) + ".atlasv1." + pick(r, ALNUM, 67),
    "doppler token": lambda r: "dp.st.prd." + pick(r, ALNUM, 43),
    "databricks token": lambda r: "dapi" + pick(r, HEX, 32),
    # chat and messaging
    "slack bot token": lambda r: (
        "xoxb-"
        + "".join(r.choices(DIGITS, k=12))
        + "-"
        + "".join(r.choices(DIGITS, k=13))
        + "-"
        + pick(r, ALNUM, 24)
    ),
    "slack app token": lambda r: (
        "xapp-1-A0"
        + pick(r, UPPER + DIGITS, 9)
        + "-"
        + "".join(r.choices(DIGITS, k=13))
        + "-"
        + pick(r, HEX, 64)
    ),
    "slack webhook": lambda r: (
        "https://hooks.slack.com/services/T0"
        + pick(r, UPPER + DIGITS, 8)
        + "/B0"
        + pick(r, UPPER + DIGITS, 8)
        + "/"
        + pick(r, ALNUM, 24)
    ),
    "discord bot token": lambda r: (
        r.choice("MNO")
        + pick(r, ALNUM, 23)
        + "."
        + pick(r, URLSAFE, 6)
        + "."
        + pick(r, URLSAFE, 38)
    ),
    "discord webhook": lambda r: (
        "https://discord.com/api/webhooks/"
        + "".join(r.choices(DIGITS, k=18))
        + "/"
        + pick(r, URLSAFE, 68)
    ),
    "telegram bot token": lambda r: (
        "".join(r.choices(DIGITS, k=r.choice([9, 10]))) + ":AA" + pick(r, URLSAFE, 33)
    ),
    "twilio api key": lambda r: "SK" + pick(r, HEX, 32),
    "twilio account sid and token": lambda r: "AC" + pick(r, HEX, 32) + " / " + pick(r, HEX, 32),
    "mailgun key": lambda r: r.choice(
        [
            "key-" + pick(r, LOWER + DIGITS, 32),
            pick(r, HEX, 32) + "-" + pick(r, HEX, 8) + "-" + pick(r, HEX, 8),
        ]
    ),
    "sendgrid key": lambda r: "SG." + pick(r, URLSAFE, 22) + "." + pick(r, URLSAFE, 43),
    "mailchimp key": lambda r: pick(r, HEX, 32) + "-us" + str(r.randrange(1, 21)),
    "wecom webhook": lambda r: (
        "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key="
        + str(uuid.UUID(int=r.getrandbits(128)))
    ),
    "dingtalk webhook": lambda r: (
        "https://oapi.dingtalk.com/robot/send?access_token=" + pick(r, HEX, 64)
    ),
    # payments
    "stripe secret key": lambda r: (
        r.choice(["sk_live_", "sk_test_", "rk_live_"]) + pick(r, ALNUM, 24 + r.randrange(75))
    ),
    "stripe webhook secret": lambda r: "whsec_" + pick(r, ALNUM, 32),
    "square token": lambda r: r.choice(
        [
            "sq0atp-" + pick(r, URLSAFE, 22),
            "sq0csp-" + pick(r, URLSAFE, 43),
            "EAAA" + pick(r, URLSAFE, 60),
        ]
    ),
    "paypal braintree token": lambda r: (
        "access_token$production$" + pick(r, LOWER + DIGITS, 16) + "$" + pick(r, HEX, 32)
    ),
    "shopify token": lambda r: (
        r.choice(["shpat_", "shpss_", "shpca_", "shppa_"]) + pick(r, HEX, 32)
    ),
    "card with expiry and cvv": lambda r: (
        grouped(
            luhn_card(r, r.choice(["4", "51", "55", "37", "6011"]), 15 if r.random() < 0.2 else 16),
            r.choice([" ", "-", ""]),
        )
        + r.choice([" exp ", " expiry ", " valid thru ", ", exp: "])
        + f"{r.randrange(1, 13):02d}/{r.randrange(26, 32)}"
        + r.choice([" cvv ", " CVV: ", ", cvc ", " security code "])
        + "".join(r.choices(DIGITS, k=3))
    ),
    # package registries
    "npm token": lambda r: "npm_" + pick(r, ALNUM, 36),
    "pypi token": lambda r: "pypi-AgEIcHlwaS5vcmc" + pick(r, URLSAFE, 70),
    "rubygems key": lambda r: "rubygems_" + pick(r, HEX, 48),
    "nuget key": lambda r: "oy2" + pick(r, LOWER + DIGITS, 43),
    "docker hub token": lambda r: "dckr_pat_" + pick(r, URLSAFE, 27),
    # AI providers and developer tools
    "openai key": lambda r: r.choice(["sk-proj-", "sk-svcacct-", "sk-"]) + pick(r, URLSAFE, 48),
    "anthropic key": lambda r: "sk-ant-api03-" + pick(r, URLSAFE, 93) + "AA",
    "hugging face token": lambda r: "hf_" + pick(r, ALNUM, 34),
    "linear key": lambda r: "lin_api_" + pick(r, ALNUM, 40),
    "notion token": lambda r: r.choice(
        ["secret_" + pick(r, ALNUM, 43), "ntn_" + pick(r, ALNUM, 46)]
    ),
    "postman key": lambda r: "PMAK-" + pick(r, HEX, 24) + "-" + pick(r, HEX, 34),
    "new relic key": lambda r: "NRAK-" + pick(r, UPPER + DIGITS, 27),
    "grafana token": lambda r: "glsa_" + pick(r, ALNUM, 32) + "_" + pick(r, HEX, 8),
    "age secret key": lambda r: "AGE-SECRET-KEY-1" + pick(r, UPPER + DIGITS, 58),
    # connection strings
    "postgres url": lambda r: f"postgresql://app_user:{password(r)}@{host(r)}:5432/orders",
    "mysql url": lambda r: f"mysql://root:{password(r)}@{host(r)}:3306/shop",
    "mongodb url": lambda r: (
        f"mongodb+srv://svc:{password(r)}@cluster0.{pick(r, LOWER + DIGITS, 5)}"
        ".mongodb.net/app?retryWrites=true"
    ),
    "redis url without user": lambda r: f"redis://:{password(r)}@{host(r)}:6379/0",
    "amqp url": lambda r: f"amqp://guest_{r.randrange(99)}:{password(r)}@{host(r)}:5672/vhost",
    "sqlserver connection string": lambda r: (
        f"Server={host(r)};Database=Sales;User Id=sa;Password={password(r)};"
    ),
    "jdbc url": lambda r: (
        f"jdbc:postgresql://{host(r)}:5432/app?user=report&password={password(r)}"
    ),
    # headers, assignments, keys
    "basic auth header": lambda r: "Authorization: Basic " + basic(r),
    "bearer header": lambda r: "Authorization: Bearer " + pick(r, URLSAFE + ".", 40),
    "jwt": jwt,
    "private key": lambda r: pem(
        r,
        r.choice(["RSA PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY"]),
        6,
        True,
    ),
    "private key without end": lambda r: pem(
        r,
        r.choice(
            ["RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY"]
        ),
        5,
        False,
    ),
    "pgp private key": lambda r: pem(r, "PGP PRIVATE KEY BLOCK", 5, True),
    "db_pass assignment": lambda r: (
        r.choice(["db_pass: ", "DB_PASS=", "mysql_pass = ", "smtp_pass: "]) + password(r)
    ),
    "env secret assignment": lambda r: (
        r.choice(
            [
                "export STRIPE_SECRET=",
                "JWT_SECRET=",
                "SESSION_SECRET: ",
                "client_secret = ",
                "TWILIO_AUTH_TOKEN=",
            ]
        )
        + pick(r, ALNUM, 32)
    ),
    "short password assignment": lambda r: (
        r.choice(["password: ", "Password: ", "pwd=", "pass: "]) + pick(r, LOWER + DIGITS, 7)
    ),
    # prose
    "password in prose": lambda r: (
        r.choice(
            [
                "my password is ",
                "The password is ",
                "the admin password was ",
                "our shared password is now ",
            ]
        )
        + password(r)
    ),
    "password in prose, letters only": lambda r: (
        r.choice(["my password is ", "the router password is ", "Her email password is "])
        + r.choice(
            [
                "sunshine",
                "bluebanana",
                "dragonfly",
                "purplemonkey",
                "correcthorsebattery",
                "letmeinplease",
                "Snowflake",
            ]
        )
    ),
    "wifi password in prose": lambda r: (
        r.choice(["the wifi pw is ", "wifi password: ", "Wi-Fi pass is ", "guest wifi pw "])
        + password(r)
    ),
    "pin in prose": lambda r: (
        r.choice(["my PIN is ", "the bank card PIN is ", "door code is ", "PIN: "])
        + "".join(r.choices(DIGITS, k=r.choice([4, 6])))
    ),
    "chinese password": lambda r: (
        r.choice(["我的密码是", "数据库密码是 ", "登录密码：", "服务器的密码为", "邮箱密码是 "])
        + password(r)
    ),
    "chinese command password": lambda r: (
        r.choice(["口令：", "管理口令是 ", "口令为"]) + password(r)
    ),
    "traditional chinese password": lambda r: (
        r.choice(["我的密碼是 ", "資料庫密碼：", "密碼為"]) + password(r)
    ),
    "chinese bank pin": lambda r: (
        r.choice(["银行卡密码是", "取款密码是 ", "密码是", "支付密码：", "我的密碼是"])
        + "".join(r.choices(DIGITS, k=6))
    ),
}

# Sentence frames around a credential; each part has its own.
FRAMES = {
    "visible": [
        "{}",
        "here it is: {}",
        "use {} for the staging deploy",
        "- {}",
        "```\n{}\n```",
        "I pasted {} into the config, can you check it?",
        "这是生产环境的：{}",
        "请帮我记住 {}",
        "> {}",
        '"{}"',
    ],
    "held-out": [
        "{}",
        "ok the value is {} thanks",
        "note for later -> {}",
        "    {}",
        "can you save this: {} (don't share)",
        "新的在这里 {} 别外传",
        "記一下：{}",
        "`{}`",
    ],
}

# Clean lines: templates filled from the pools below; each part has its own templates.
CLEAN_TEMPLATES = {
    "visible": [
        'password = os.environ["{env}"]',
        'token = request.headers.get("Authorization", "").removeprefix("Bearer ")',
        "def check_password(password: str, hashed: bytes) -> bool:",
        "api_key = settings.{field}",
        "if not password or len(password) < {n}:",
        'secret_key = get_secret("{name}")',
        'const token = await getToken({{ scope: "{name}" }});',
        "PASSWORD_MIN_LENGTH = {n}",
        '"password": {{"type": "string", "minLength": {n}}},',
        "commit {sha} fixed the token refresh",
        "git cherry-pick {short}",
        "sha256: {sha256}",
        "{sha256}  dist/mini_letta-0.1.0.tar.gz",
        "request id {uuid} failed with 401",
        'user_id = "{uuid}"',
        "thumbnail: data:image/png;base64,{b64}",
        "API_KEY={placeholder}",
        "password: {mask}",
        "export {env}=${{{env}}}",
        "DB_PASSWORD=${{DB_PASSWORD}}",
        "Set {env} in your shell before running the tests.",
        "The {thing} is stored in the system keychain, never in the repo.",
        "Rotate the {thing} every {n} days.",
        "We hash passwords with argon2id and a per-user salt.",
        "The session token expires after {n} minutes.",
        "See {env} in .env.example for the format.",
        "sorted(items, key=lambda item: item.{field})",
        'cache_key = f"user:{{user_id}}:profile"',
        'primary_key = "{field}"',
        "foreign_key: {field}_id",
        "{name}_token_count = {n}",
        "the password field is required",
        "your password is incorrect, try again",
        'Forgot your password? Click "Reset password" and check your inbox.',
        "Tokens are counted with a CJK-aware estimate ({n} per 1k).",
        "The key rotation job ran at 02:{n:02d} UTC.",
        'etag: "{short}"',
        "msg-{short}-{n}",
        "conv-{short}",
        "用户的密码用 bcrypt 哈希后存储，成本因子为 {n}",
        "请不要把{thing_zh}发到群里",
        "密码至少 {n} 位，需要包含大小写字母和数字",
        "忘记密码请点击「找回密码」",
        "令牌过期后需要重新登录",
        "密钥放在 Vault 里，路径是 secret/{name}",
        "提交 {short} 修复了登录页的问题",
        "请求 {uuid} 返回 401",
        "文件的 SHA-256 是 {sha256}",
        "把 {env} 设置成你自己的{thing_zh}",
        "密码是必填项",
        "API 密钥在控制台的「设置 → 密钥」页面生成",
        "密碼請存放在密碼管理器裡，不要寫在文件中",
        "權杖每 {n} 分鐘更新一次",
        "{thing_zh}不能为空",
        "password_hash = hashlib.sha256(salt + password.encode()).hexdigest()",
        "TOKEN_TTL_SECONDS = {n}",
        'if token is None: raise AuthError("missing token")',
        'logger.info("token refreshed for %s", user_id)',
        'curl -H "Authorization: Bearer $TOKEN" https://api.example.com/v1/me',
        "Authorization: Bearer <your-token>",
        "token: {placeholder}",
        "The base64 of the logo is {b64}",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b64short} dev@laptop",
        "pip install package=={n}.{n}.0 --hash=sha256:{sha256}",
        'the {thing} lives in 1Password under "{name}"',
        "passwords are rotated every {n} days",
        "my password is in the vault, ask Ana",
        "key: value pairs are sorted by key",
    ],
    "held-out": [
        'pwd = getpass.getpass("Password: ")',
        'headers = {{"Authorization": f"Bearer {{self.{field}}}"}}',
        'self.secret = config.get("{name}", required=True)',
        "if user.check_password(form.password.data):",
        'client = Client(api_key=os.getenv("{env}"))',
        "MAX_TOKENS = {n}",
        "hash = {sha256}",
        "Merge {sha} into main",
        "trace {uuid} spans {n} services",
        'avatar = "{b64}"',
        "password: {mask}  # set in the deploy pipeline",
        "SECRET_KEY={placeholder}",
        "Pass the token with --token or set {env}.",
        "Never commit the {thing}; add it to .gitignore.",
        "The {thing} must be at least {n} characters long.",
        "Session ids look like sess_{short} and are not secret.",
        "index_key = (tenant_id, {field})",
        "dict(sorted(counts.items(), key=itemgetter({n})))",
        "the token is invalid or expired",
        "Wrong password. {n} attempts left.",
        "Passwords must differ from the last {n} you used.",
        "release {short} pinned the tokenizer to v{n}",
        "数据库连接串从环境变量 {env} 读取",
        "密钥轮换每 {n} 天一次",
        "这个 token 的有效期是 {n} 小时",
        "请把{thing_zh}存到密码管理器",
        "校验和 {sha256} 与官网一致",
        "提交号 {sha}",
        "密碼錯誤，請再試一次",
        "請勿在聊天中傳送{thing_zh}",
        "登录失败：密码不正确",
        "{thing_zh}已经过期，请重新生成",
        'const secret = process.env.{env} ?? "";',
        "assert verify(password, stored_hash)",
        "Use `{placeholder}` as a placeholder in docs.",
        "api_key: {mask}",
        "The PIN must be {n} digits.",
        "pin the dependency to {n}.{n}.1",
        "The password reset link is valid for {n} minutes.",
        'key_id = "{uuid}"',
    ],
}

ENV_NAMES = [
    "OPENAI_API_KEY", "DB_PASSWORD", "GITHUB_TOKEN", "STRIPE_SECRET_KEY", "AWS_SECRET_ACCESS_KEY",
    "SLACK_BOT_TOKEN", "REDIS_URL", "DATABASE_URL", "NPM_TOKEN", "SENTRY_DSN", "JWT_SECRET",
]  # fmt: skip
FIELDS = ["api_key", "name", "created_at", "token_type", "password_hash", "priority", "email"]
NAMES = ["payments", "reports", "ci-deploy", "mailer", "billing/prod", "search-index"]
THINGS = ["API key", "password", "access token", "private key", "client secret", "SSH key"]
THINGS_ZH = ["密码", "密钥", "令牌", "私钥", "口令", "访问令牌"]
PLACEHOLDERS = [
    "<your-token>", "<your-api-key>", "your_api_key_here", "${API_KEY}", "{{ secrets.API_KEY }}",
    "%API_KEY%", "sk-...", "xxxxxxxxxxxxxxxx", "<REDACTED>", "changeme-in-production",
]  # fmt: skip
MASKS = ["********", "'****'", "<hidden>", "(set via env)", "${DB_PASSWORD}", "REDACTED"]


def fill(template: str, rng: random.Random) -> str:
    raw = rng.randbytes(rng.randrange(24, 60))
    return template.format(
        env=rng.choice(ENV_NAMES),
        field=rng.choice(FIELDS),
        name=rng.choice(NAMES),
        thing=rng.choice(THINGS),
        thing_zh=rng.choice(THINGS_ZH),
        placeholder=rng.choice(PLACEHOLDERS),
        mask=rng.choice(MASKS),
        n=rng.randrange(2, 90),
        sha=hashlib.sha1(raw).hexdigest(),
        short=hashlib.sha1(raw).hexdigest()[:7],
        sha256=hashlib.sha256(raw).hexdigest(),
        uuid=uuid.UUID(int=rng.getrandbits(128), version=4),
        b64=base64.b64encode(b"\x89PNG\r\n\x1a\n" + raw).decode("ascii"),
        b64short=base64.b64encode(raw).decode("ascii")[:43],
    )


def generated(part: str) -> list[dict[str, object]]:
    rng = random.Random(PARTS[part])
    entries: list[dict[str, object]] = []
    for shape, make in SHAPES.items():
        for _ in range(PER_SHAPE[part]):
            text = rng.choice(FRAMES[part]).format(make(rng))
            entries.append({"secret": True, "shape": shape, "text": text, "hand": False})
    templates = CLEAN_TEMPLATES[part]
    for index in range(CLEAN[part]):
        text = fill(templates[index % len(templates)], rng)
        entries.append({"secret": False, "shape": "clean", "text": text, "hand": False})
    return entries


def build(part: str, existing: list[dict[str, object]]) -> list[dict[str, object]]:
    """The part's generated lines, then the hand-written lines it already holds."""
    return generated(part) + [entry for entry in existing if entry.get("hand")]


def read(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def render(entries: list[dict[str, object]]) -> str:
    return "".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in entries)


def main() -> None:
    CORPUS.mkdir(parents=True, exist_ok=True)
    for part in PARTS:
        path = CORPUS / f"{part}.jsonl"
        entries = build(part, read(path))
        path.write_text(render(entries), encoding="utf-8")
        secrets = [e for e in entries if e["secret"]]
        shapes = {e["shape"] for e in secrets}
        print(f"{path.name}: {len(secrets)} credentials of {len(shapes)} shapes, "
              f"{len(entries) - len(secrets)} clean lines")  # fmt: skip


if __name__ == "__main__":
    main()
