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
