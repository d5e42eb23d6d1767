"""Planted credential shapes shared by the scanner and secret-gate tests (all fake)."""

from __future__ import annotations

PLANTED_SECRETS: list[tuple[str, str, str]] = [
    # (id, text containing the secret, the kind the scanner must name)
    ("openai-proj", "key sk-proj-abc123DEF456ghi789JKL012mno345", "OpenAI API key"),
    ("openai-legacy", "sk-1234567890abcdefGHIJklmnopQRST", "OpenAI API key"),
    ("anthropic", "sk-ant-api03-abcDEF123456ghiJKL789012mnoPQR", "Anthropic API key"),
    ("aws-access", "id AKIAIOSFODNN7EXAMPLE here", "AWS access key"),
    ("aws-sts", "ASIAY34FZKBOKMUTVV7A", "AWS access key"),
    (
        "aws-secret",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "AWS secret key",
    ),
    ("github-classic", "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "GitHub token"),
    ("github-oauth", "gho_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "GitHub token"),
    (
        "github-fine-grained",
        "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
        "GitHub token",
    ),
    ("gitlab", "glpat-abcdefghij1234567890", "GitLab token"),
    ("slack-bot", "xoxb-123456789012-1234567890123-abcdefghijklmnop", "Slack token"),
    ("slack-user", "xoxp-123456789012-abcdefABCDEF", "Slack token"),
    (
        "slack-webhook",
        "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "Slack webhook",
    ),
    ("stripe", "sk_live_abcdefghij1234567890", "Stripe key"),
    ("google", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "Google API key"),
    ("huggingface", "hf_abcdefghijklmnopqrstuvwxyz12345678", "Hugging Face token"),
    ("npm", "npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm token"),
    (
        "sendgrid",
        "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG",
        "SendGrid key",
    ),
    (
        "jwt",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "JWT",
    ),
    (
        "pem-rsa",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1x2y3z\n-----END RSA PRIVATE KEY-----",
        "private key",
    ),
    ("pem-openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "private key"),
    ("url-password", "postgres://admin:hunter22@db.example.com:5432/app", "password in URL"),
    ("env-openai", "export OPENAI_API_KEY=sk-abc123def456ghi789jkl012", "OpenAI API key"),
    ("env-token", "MY_SERVICE_TOKEN=abc123def456ghi", "secret assignment"),
    ("yaml-password", "db_password: s3cretPassw0rd", "secret assignment"),
    ("json-api-key", '{"api_key": "a1b2c3d4e5f6g7h8"}', "secret assignment"),
    ("bearer", "Authorization: Bearer abcdef1234567890abcdef1234", "bearer token"),
]

NOT_SECRETS: list[tuple[str, str]] = [
    ("prose", "The user prefers tabs over spaces and likes short answers."),
    ("chinese", "用户喜欢用中文交流，密码不要记在这里"),
    ("git-sha", "fixed in commit 3f2a9c1b8e7d6f5a4b3c2d1e0f9a8b7c6d5e4f3a"),
    ("uuid", "request 123e4567-e89b-12d3-a456-426614174000 failed"),
    ("msg-id", "see msg-20250101T120000-abcdef12 and conv-7f3a9c21"),
    ("dash-words", "a risk-assessment of the task-management-system-overview"),
    ("sk-word", "sk-learn is the usual name for scikit-learn"),
    ("primary-key", "the primary_key: customer_id"),
    ("key-value-prose", "sort by the key: value pairs"),
    ("password-prose", "password: see the vault"),
    ("url", "https://example.com/path?q=1&page=2"),
    ("email", "reach them at user@example.com"),
    ("env-reference", "set OPENAI_API_KEY=$OPENAI_API_KEY in your shell"),
    ("placeholder", "token=<your token here>"),
    ("masked", "API_KEY=xxxxxxxxxxxx"),
    ("ssh-remote", "ssh://git@github.com/org/repo.git"),
    ("url-variable", "https://user:${PASS}@host/x"),
]

# The shapes the red-team run found passing, and more of the families people paste
# (all fake): (id, text, the kind the scanner must name).
PASTED_SECRETS: list[tuple[str, str, str]] = [
    ("url-no-user", "REDIS_URL=redis://:Zq81mPw0xLk@cache.local:6379/0", "password in URL"),
    ("basic-auth", "Authorization: Basic YWRtaW46aHVudGVyMjAyNCE=", "basic auth"),
    ("card-cvv", "card 4111 1111 1111 1111 exp 04/28 cvv 123", "payment card"),
    ("card-cvv-zh", "卡号 6222021234567890123 有效期 08/27 安全码 417", "payment card"),
    ("prose-letters", "my password is bluegiraffe, keep it safe", "password"),
    ("short-assignment", "password: abcde12", "secret assignment"),
    ("wifi-pw", "the wifi pw is mangotree", "password"),
    ("koulin", "口令：tiger2024!", "password"),
    ("traditional", "我的密碼是 Dragon88pass", "password"),
    ("bank-pin", "我的银行卡密码是 482913，帮我记一下", "password"),
    ("pin-english", "my debit card PIN is 7391", "password"),
    (
        "azure-storage",
        "DefaultEndpointsProtocol=https;AccountName=acct01;AccountKey="
        "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6QUJDREVGR0g=;"
        "EndpointSuffix=core.windows.net",
        "secret assignment",
    ),
    ("db-pass", "db_pass: Winter2025!", "secret assignment"),
    ("twilio", "SK2b7e0c6f1d4a4e3f9a8b7c6d5e4f3a21", "Twilio key"),
    ("mailgun", "key-3ax6xnjp29jd6fds4gc373sgvjxteol0", "Mailgun key"),
    ("telegram", "bot 6102938475:AAG7h2kLmN8pQrStUvWx-yZ0aB1cD2eF3gH", "Telegram bot token"),
    ("shopify", "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", "Shopify token"),
    (
        "discord",
        "MTA4NzY1NDMyMTAxMjM0NTY3OA.GxYz12.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab",
        "Discord token",
    ),
    ("slack-app", "xapp-1-A0123456789-1234567890123-" + "0a1b2c3d" * 8, "Slack app token"),
    ("pypi", "pypi-AgEIcHlwaS5vcmc" + "Ab3_dE6-" * 8, "PyPI token"),
    ("docker", "dckr_pat_2xYz9AbCdEfGhIjKlMnOpQrStUv", "Docker Hub token"),
    ("square", "sq0atp-Ab3dEf6hIj9kLm2nOp5qRs", "Square token"),
    ("gcp-oauth", "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", "Google OAuth secret"),
    ("digitalocean", "dop_v1_" + "0a1b2c3d4e5f6789" * 4, "DigitalOcean token"),
    ("vault", "hvs.CAESIAb3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "Vault token"),
    ("stripe-webhook", "whsec_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z", "Stripe key"),
    ("mailchimp", "0a1b2c3d4e5f60718293a4b5c6d7e8f9-us14", "Mailchimp key"),
]

# A few new shapes for every surface that writes memory (memory tool, MCP, `memory edit`).
SURFACE_SECRETS = [
    "bot 6102938475:AAG7h2kLmN8pQrStUvWx-yZ0aB1cD2eF3gH",
    "REDIS_URL=redis://:Zq81mPw0xLk@cache.local:6379/0",
    "我的银行卡密码是 482913",
    "card 4111 1111 1111 1111 exp 04/28 cvv 123",
]

NOT_PASTED_SECRETS: list[tuple[str, str]] = [
    ("required", "The password is required."),
    ("stored-in", "my password is stored in Bitwarden"),
    ("pin-version", "pin the version to 1.2.3"),
    ("zh-length", "密码为 8 到 64 位"),
    ("zh-year", "密码是2024年改的"),
    ("zh-hash", "密码 SHA256 哈希后存储"),
    ("test-card", "use the test card 4242 4242 4242 4242 with any CVC"),
    ("code-call", "secret = secrets.token_urlsafe(32)"),
    ("code-key", "sorted(rows, key=operator.itemgetter(1))"),
    ("basic-placeholder", "Authorization: Basic <base64 of user:password>"),
    ("url-no-password", "redis://localhost:6379/0"),
    ("uuid-dashes", "550e8400-e29b-41d4-a716-446655440000"),
    ("masked", "password: ********"),
    ("env-ref", "DB_PASSWORD=${DB_PASSWORD}"),
]
