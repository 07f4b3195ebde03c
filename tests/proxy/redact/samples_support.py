"""Planted secrets of every kind the hardening issue names, and non-secret look-alikes that must stay.

Values are generated (fixed seed) in each kind's real shape; none is a real credential.
"""

from __future__ import annotations

import base64
import random
import string

_rng = random.Random(14)
_ALNUM = string.ascii_letters + string.digits


def _rand(n: int, alphabet: str = _ALNUM) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


OPENAI_KEY = "sk-proj-" + _rand(48) + "_" + _rand(48)
OPENAI_LEGACY = "sk-" + _rand(20) + "T3BlbkFJ" + _rand(20)
ANTHROPIC_KEY = "sk-ant-api03-" + _rand(93) + "-" + _rand(8)
GITHUB_CLASSIC = "ghp_" + _rand(36)
GITHUB_FINE = "github_pat_" + _rand(22) + "_" + _rand(59)
SLACK_BOT = f"xoxb-{_rand(11, string.digits)}-{_rand(12, string.digits)}-{_rand(24)}"
GOOGLE_KEY = "AIza" + _rand(35, _ALNUM + "_-")
AWS_KEY_ID = "AKIA" + _rand(16, string.ascii_uppercase + string.digits)
AWS_SECRET = _rand(40, _ALNUM + "/+")
JWT = "eyJhbGciOiJSUzI1NiJ9." + "eyJ" + _rand(60, _ALNUM + "_-") + "." + _rand(43, _ALNUM + "_-")
PEM_BODY = base64.b64encode(_rng.randbytes(300)).decode()
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY[:64]}\n{PEM_BODY[64:]}\n-----END RSA PRIVATE KEY-----"
DB_PASSWORD = "pw" + _rand(14)
BEARER_OPAQUE = _rand(32)
GH_PAT_VALUE = "ghpat" + _rand(20)  # not in a vendor shape: found by its name only
DB_PWD = "Pw" + _rand(10)
SERVICE_AUTH = "auth" + _rand(18)
SENTRY_DSN = f"https://{_rand(32, string.hexdigits.lower())}@o1.ingest.example.io/42"
REFRESH_TOKEN = "rt_" + _rand(40)
ACCOUNT_ID = "acct-" + _rand(12, string.digits)
STRIPE_KEY = "sk_live_" + _rand(24)
FORM_SECRET = "cs" + _rand(22)
FORM_PASSWORD = "hunter" + _rand(6, string.digits)
NUMERIC_PASSWORD = 48213977
X_AUTH = "xauth" + _rand(20)
PRIVATE_TOKEN = "glptt-" + _rand(40)
AMZ_TOKEN = "FwoGZXIvYXdzE" + _rand(60, _ALNUM + "/+")

# (secret, the text it is planted in): tool outputs, docs, commands, as they appear in practice.
IN_TEXT: list[tuple[str, str]] = [
    (OPENAI_KEY, f"the model says: ok: {OPENAI_KEY} is your key"),
    (OPENAI_LEGACY, f"OPENAI_API_KEY={OPENAI_LEGACY}"),
    (ANTHROPIC_KEY, f"export ANTHROPIC_API_KEY='{ANTHROPIC_KEY}'"),
    (GITHUB_CLASSIC, f"git clone https://x-access:{GITHUB_CLASSIC}@github.example/repo"),
    (GITHUB_FINE, f"token in config: {GITHUB_FINE}\n"),
    (SLACK_BOT, f'{{"slack": "{SLACK_BOT}"}}'),
    (GOOGLE_KEY, f"GET /v1/models?key={GOOGLE_KEY} HTTP/1.1"),
    (AWS_KEY_ID, f"aws_access_key_id = {AWS_KEY_ID}"),
    (AWS_SECRET, f"[default]\naws_secret_access_key={AWS_SECRET}\nregion=us-east-1"),
    (JWT, f"id: {JWT}"),
    (PEM_BODY[:64], f"$ cat id_rsa\n{PEM}\n$ "),
    (DB_PASSWORD, f"DATABASE_URL=postgres://app:{DB_PASSWORD}@db.internal:5432/prod"),
    (BEARER_OPAQUE, f"curl -H 'authorization: bearer {BEARER_OPAQUE}' https://api.example"),
    (GH_PAT_VALUE, f"$ env\nHOME=/root\nGH_PAT={GH_PAT_VALUE}\nPATH=/usr/bin"),
    (DB_PWD, f"DB_USER=app\nDB_PWD={DB_PWD}\n"),
    (SERVICE_AUTH, f"MY_SERVICE_AUTH={SERVICE_AUTH}"),
    (SENTRY_DSN, f"SENTRY_DSN={SENTRY_DSN}"),
    (REFRESH_TOKEN, f'{{\n  "tokens": {{\n    "refresh_token": "{REFRESH_TOKEN}",\n    "x": 1\n  }}\n}}'),
    (ACCOUNT_ID, f'{{"account_id": "{ACCOUNT_ID}", "last_refresh": "2026-01-01"}}'),
    (STRIPE_KEY, f"stripe.api_key = {STRIPE_KEY}"),
    (FORM_SECRET, f"grant_type=client_credentials&client_secret={FORM_SECRET}&scope=all"),
    (FORM_PASSWORD, f"username=bob&password={FORM_PASSWORD}"),
    (str(NUMERIC_PASSWORD), f'{{"user": "bob", "password": {NUMERIC_PASSWORD}}}'),
    (X_AUTH, f"< X-Auth-Token: {X_AUTH}"),
    (AMZ_TOKEN, f"X-Amz-Security-Token: {AMZ_TOKEN}"),
]

# An opaque reasoning blob (url-safe base64) that happens to contain `-sk-proj-…`: never cut.
ENCRYPTED_BLOB = (
    base64.urlsafe_b64encode(_rng.randbytes(120)).decode().rstrip("=")
    + "-sk-proj-"
    + _rand(96)
    + base64.urlsafe_b64encode(_rng.randbytes(90)).decode()
)

# Strings that look a little like secrets and must come out unchanged.
NOT_SECRETS: list[str] = [
    '<div class="sk-button sk-button-primary sk-theme-dark-mode-enabled">',
    "git checkout -b sk-fix-login-redirect-loop-2024",
    "kubectl logs sk-worker-7f9c8d5b6-xk2lp -n prod",
    "curl -H 'Authorization: Bearer <your-api-key>' https://api.openai.com/v1/responses",
    'curl -H "Authorization: Bearer $OPENAI_API_KEY"',
    "Set the header `Authorization: Bearer YOUR_TOKEN_HERE`.",
    ENCRYPTED_BLOB,
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "commit 3f2a1c9e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f",
    "session-id: 019342f7-8e1c-7a2b-9c3d-4e5f6a7b8c9d",
    "x-ratelimit-remaining-tokens: 149990",
    "Password: use the reset link we sent you.",
    "max_output_tokens=4096 input_tokens=120",
    "PWD=/home/user/repo\nOLDPWD=/home/user",
    "prompt_cache_key=019342f7-8e1c-7a2b-9c3d-4e5f6a7b8c9d",
    "data:image/png;base64," + base64.b64encode(_rng.randbytes(400)).decode(),
    "TOKEN_COUNT=5 SECRET_SANTA_DATE=",
    "Bearer tokens are sent in the Authorization header.",
    '{"type": "response.output_text.delta", "delta": "sk-"}',
]

# -- issue 21: secrets an agent meets every day, known by their context -----------------------------
AWS_SECRET_SPACED = _rand(40, _ALNUM + "/+")
NETRC_PASSWORD = "nx" + _rand(14) + "!"
YAML_PASSWORD = "Yp" + _rand(12) + "#x"
CURL_PASSWORD = "cu" + _rand(12)
MYSQL_PASSWORD = "My" + _rand(12)
LONG_OPTION_PASSWORD = "Lo" + _rand(12) + "%"
PGPASSWORD = "pg" + _rand(14)
URL_BANG_PASSWORD = "P@ss!" + _rand(10)  # an `@` and a `!` in it, as typed
URL_ENCODED_PASSWORD = "p%40ss%21" + _rand(10)
URL_USER_TOKEN = _rand(40, "0123456789abcdef")
MULTIPART_PASSWORD = "mp" + _rand(14)
INI_SECRET = "ini" + _rand(14)
TOML_TOKEN = "tt" + _rand(20)
B64_INNER = "sk-proj-" + _rand(40)
B64_JSON = base64.b64encode(f'{{"type": "service", "api_key": "{B64_INNER}"}}'.encode()).decode()
METADATA_TOKEN = _rand(32)
WS_SESSION_TOKEN = "ek_" + _rand(30)
CREDENTIALS_VALUE = "cv" + _rand(26)
SSHPASS = "ss" + _rand(12)

MULTIPART = (
    '--XyZ\r\nContent-Disposition: form-data; name="username"\r\n\r\nbob\r\n'
    f'--XyZ\r\nContent-Disposition: form-data; name="password"\r\n\r\n{MULTIPART_PASSWORD}\r\n--XyZ--\r\n'
)

CONTEXT_IN_TEXT: list[tuple[str, str]] = [
    (
        AWS_SECRET_SPACED,
        f"$ cat ~/.aws/credentials\n[default]\naws_access_key_id = {AWS_KEY_ID}\n"
        f"aws_secret_access_key = {AWS_SECRET_SPACED}\n",
    ),
    (NETRC_PASSWORD, f"$ cat ~/.netrc\nmachine api.example.com\n  login bob\n  password {NETRC_PASSWORD}\n"),
    (NETRC_PASSWORD[:-1], f"machine git.example.com login bob password {NETRC_PASSWORD[:-1]}"),
    (YAML_PASSWORD, f'database:\n  user: app\n  password: "{YAML_PASSWORD}"\n'),
    (YAML_PASSWORD[:-2], f"db:\n  password: {YAML_PASSWORD[:-2]}  # rotate monthly\n"),
    (INI_SECRET, f"[service]\nclient_secret = {INI_SECRET}\n"),
    (TOML_TOKEN, f'[auth]\napi_token = "{TOML_TOKEN}"\n'),
    (CURL_PASSWORD, f"curl -u bob:{CURL_PASSWORD} https://api.example.com/v1"),
    (CURL_PASSWORD[:-1], f"curl --user 'bob:{CURL_PASSWORD[:-1]}' https://api.example.com/v1"),
    (MYSQL_PASSWORD, f"mysql -h db -u root -p{MYSQL_PASSWORD} prod"),
    (LONG_OPTION_PASSWORD, f"deploy --password={LONG_OPTION_PASSWORD} --env prod"),
    (LONG_OPTION_PASSWORD[:-1], f"vault login --token {LONG_OPTION_PASSWORD[:-1]}x9"),
    (PGPASSWORD, f"PGPASSWORD={PGPASSWORD} psql -h db -U app"),
    (SSHPASS, f"sshpass -p {SSHPASS} ssh deploy@host"),
    (URL_BANG_PASSWORD, f"git remote add origin https://bob:{URL_BANG_PASSWORD}@git.example.com/x.git"),
    (URL_ENCODED_PASSWORD, f"DATABASE=mysql://app:{URL_ENCODED_PASSWORD}@db:3306/prod"),
    (URL_USER_TOKEN, f"git clone https://{URL_USER_TOKEN}@github.com/acme/private.git"),
    (MULTIPART_PASSWORD, MULTIPART),
    (B64_INNER, f"$ echo $SA_KEY\n{B64_JSON}\n"),
    (METADATA_TOKEN, f'{{"metadata": {{"token": "{METADATA_TOKEN}", "user": "bob"}}}}'),
]

# -- vendor formats: (kind, planted key, a look-alike that must stay) -------------------------------
_HEX = "0123456789abcdef"
VENDOR_ROWS: list[tuple[str, str, str]] = [
    ("stripe_key", "sk_live_51" + _rand(97), "pk_live_51" + _rand(97)),  # a publishable key is public
    ("stripe_key", "rk_live_51" + _rand(97), "sk_live_mode = False"),
    ("twilio_key", "SK" + _rand(32, _HEX), "AC" + _rand(32, _HEX)),  # an account SID is an id
    ("npm_token", "npm_" + _rand(36), "npm_config_cache=/root/.npm"),
    ("digitalocean_token", "dop_v1_" + _rand(64, _HEX), "dop_v1_example"),
    ("google_oauth_secret", "GOCSPX-" + _rand(28, _ALNUM + "_-"), "GOCSPX-xxxxxxxx"),
    ("telegram_token", _rand(10, string.digits) + ":AA" + _rand(33, _ALNUM + "_-"), "at 12345678:ends_here"),
    ("hf_token", "hf_" + _rand(34, string.ascii_letters), "from huggingface_hub import hf_hub_download"),
    ("api_key", OPENAI_KEY, "sk-button-primary-large-dark"),
    ("api_key", ANTHROPIC_KEY, "sk-ant-api03-<your-key>"),
    ("github_token", GITHUB_CLASSIC, "ghp_example"),
    ("github_token", GITHUB_FINE, "github_pat_<token>"),
    ("google_api_key", GOOGLE_KEY, "AIzaSyExample"),
    ("slack_token", SLACK_BOT, "xoxb-"),
    ("aws_key", AWS_KEY_ID, "AKIA-style ids start with AKIA"),
]

# Code, prose and names that look a little like credentials and must be stored byte for byte.
CODE_LOOK_ALIKES: list[str] = [
    "sorted(rows, key=itemgetter(1))",
    "requests.get(url, auth=auth, timeout=5)",
    "token=next_token",
    'api_key=os.environ.get("OPENAI_API_KEY")',
    "best = max(scores, key=lambda s: s.value)",
    "longest = max(words, key=len)",
    "Pass options as key=value pairs.",
    "kubectl logs api-7f9c8d5b6a1e2f3c4d5e-xk2lp",
    "kubectl logs sk-worker-7f9c8d5b6a1e2f3c4d5e-xk2lp -n prod",
    "password = getpass.getpass()",
    "self.token = token",
    "if token == expected_token:",
    "secret_key = settings.SECRET_KEY",
    "docker run -u 1000:1000 app",
    "ssh -p 2222 deploy@host",
    "--token is required",
    '{"logprobs": [{"token": "Hello", "logprob": -0.1, "bytes": [72]}]}',
    '{"usage": {"input_tokens": 12, "output_tokens": 4, "total_tokens": 16}}',
    "git clone ssh://git@github.com/acme/repo.git",
    "postgres://app:${DB_PASSWORD}@db/prod",
]
HF_QUOTED = VENDOR_ROWS[7][1]
