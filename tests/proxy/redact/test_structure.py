"""Credentials recognised by their structure (issue 34): one generated case per syntax and file format,
positional arguments from the `code.CALLS` table, tokens next to credential words, webhook and signed
URLs, and secrets found again without their prefix and in pieces; look-alikes stay byte for byte.

Each case is a template with `{v}` where a freshly generated value goes (random letters and digits of a
credential's length, in no vendor's format): the value must be gone from the redacted text, and so must
every 12-character piece of it."""

from __future__ import annotations

import base64
import json
import random
import re
import string

import pytest

from ctxscope.proxy.redact import Redactor
from ctxscope.proxy.redact.code import CALLS

_ALNUM = string.ascii_letters + string.digits


def _value(seed: str, length: int = 28) -> str:
    rng = random.Random(seed)
    while True:  # letters and digits, as a generated credential has
        value = "".join(rng.choice(_ALNUM) for _ in range(length))
        if any(c.isdigit() for c in value) and any(c.isupper() for c in value) and any(c.islower() for c in value):
            return value


def _gone(value: str, redacted: str) -> bool:
    return not any(value[i : i + 12] in redacted for i in range(len(value) - 11))


SYNTAXES: dict[str, str] = {
    "env assignment": "DEPLOY_TOKEN={v}\n",
    "quoted assignment": 'client_secret = "{v}"\n',
    "export": "export SERVICE_API_KEY='{v}'",
    "cli option with =": "deploy --api-token={v} --env prod",
    "cli option with space": "vault write auth/x --client-secret {v} --ttl 1h",
    "json key": '{{"service": {{"credentials": {{"auth_token": "{v}"}}}}}}',
    "json key at depth": '{{"a": {{"b": {{"c": {{"d": {{"password": "{v}"}}}}}}}}}}',
    "json-escaped json": '{{"SecretString": "{{\\"username\\":\\"app\\",\\"password\\":\\"{v}\\"}}"}}',
    "json-escaped twice": '"{{\\"data\\": \\"{{\\\\\\"api_key\\\\\\": \\\\\\"{v}\\\\\\"}}\\"}}"',
    "yaml nested": "services:\n  db:\n    auth:\n      password: {v}\n",
    "yaml list item": "- name: x\n  client_secret: '{v}'\n",
    "ini": "[service]\nsecret_key = {v}\n",
    "toml": '[registry]\ntoken = "{v}"\n',
    "http header": "> GET /v1 HTTP/1.1\n> X-Api-Key: {v}\n> Accept: */*\n",
    "authorization header line": "Authorization: Bearer {v}\n",
    "url userinfo": "git remote -v\norigin https://deploy:{v}@git.acme.example/app.git (fetch)",
    "url query sig": "GET https://acct.blob.core.windows.net/c/f.gz?sv=2022-11-02&sr=b&sig={v}&se=2026",
    "url query signature": "https://storage.example/o?X-Goog-Algorithm=GOOG4&X-Goog-Signature={v}",
    "url query amz signature": "https://b.s3.amazonaws.com/k?X-Amz-Expires=900&X-Amz-Signature={v}",
    "url query token": "https://chat.example/v1/spaces/AAA/messages?key=AIzaXyZ&token={v}",
    "url query access_token": "curl 'https://graph.example/me?access_token={v}&fields=id'",
    "url query code": "redirected to http://localhost:8080/callback?code={v}&state=xyz",
    "url query password": "https://api.example/login?user=bob&password={v}",
    "url query key": "https://maps.example/api/geocode?address=x&key={v}",
    "keyword argument": 'conn = psycopg2.connect(host="db", user="app", password="{v}")',
    "js object": "const client = new Api({{ apiKey: '{v}', region: 'eu' }});",
    "python dict": "settings = {{'user': 'app', 'secret': '{v}'}}",
    "php array": "$config = ['api_secret' => '{v}'];",
    "ruby hash": 'Client.new(:access_token => "{v}")',
    "auth tuple": 'requests.get(url, auth=("bob", "{v}"))',
    "basic_auth tuple": 'JIRA(server=s, basic_auth=("dev@acme.example", "{v}"))',
    "prose: the key is": "I checked: the API key is {v} and it works.",
    "prose: token ends in": "Your token ends in {v}, which matches the dashboard.",
    "prose: password was": "The password was `{v}` before the rotation.",
}

FORMATS: dict[str, str] = {
    ".pgpass": "$ cat ~/.pgpass\ndb.acme.example:5432:orders:app:{v}\n",
    ".pgpass wildcard": "*:*:*:replicator:{v}\n",
    ".netrc": "machine api.acme.example\n  login bob\n  password {v}\n",
    "git credential store": "$ cat ~/.git-credentials\nhttps://bob:{v}@github.com\n",
    ".npmrc authToken": "//registry.acme.example/:_authToken={v}\n",
    ".npmrc password": "//registry.acme.example/:_password={v}\n",
    ".pypirc": "[pypi]\nusername = __token__\npassword = {v}\n",
    "registry config.json auth": '{{"auths": {{"ghcr.io": {{"auth": "{v}"}}}}}}',
    "registry config.json identitytoken": '{{"auths": {{"acr.io": {{"identitytoken": "{v}"}}}}}}',
    "kubeconfig client-key-data": "users:\n- name: dev\n  user:\n    client-key-data: {v}\n",
    "kubeconfig token": "users:\n- name: ci\n  user:\n    token: {v}\n",
    "aws credentials": "[default]\naws_access_key_id = AKIAZZZZ\naws_secret_access_key = {v}\n",
    "aws sts json": '{{"Credentials": {{"SecretAccessKey": "{v}", "Expiration": "2026-01-01"}}}}',
    "az access token json": '{{"accessToken": "{v}", "expiresOn": "2026-01-01", "tokenType": "Bearer"}}',
    "gcloud credentials json": '{{"client_id": "x.apps", "refresh_token": "{v}", "type": "authorized_user"}}',
    "az keys list": '[\n  {{\n    "keyName": "key1",\n    "permissions": "FULL",\n    "value": "{v}"\n  }}\n]',
    "kubernetes env entry": "env:\n  - name: DB_PASSWORD\n    value: {v}\n  - name: MODE\n    value: prod\n",
    "ssm parameter": '{{"Parameter": {{"Name": "/prod/orders/api_token", "Type": "SecureString", "Value": "{v}"}}}}',
    "one-line token file": "$ cat ~/.config/acme/token\n{v}\n$ ",
    "token printed by a cli": "$ gcloud auth print-access-token\n{v}\n",
    "k8s last-applied": (
        '{{"metadata": {{"annotations": {{"last": "{{\\"stringData\\":{{\\"api-token\\":\\"{v}\\"}}}}"}}}}}}'
    ),
}


@pytest.mark.parametrize("template", list(SYNTAXES.values()), ids=list(SYNTAXES))
def test_every_syntax_an_agent_reads(template: str) -> None:
    value = _value(template)
    text = template.format(v=value)
    redacted = Redactor().text(text)
    assert _gone(value, redacted), redacted


@pytest.mark.parametrize("template", list(FORMATS.values()), ids=list(FORMATS))
def test_every_credential_file_format(template: str) -> None:
    value = _value(template, 40)
    redacted = Redactor().text(template.format(v=value))
    assert _gone(value, redacted), redacted


def test_only_the_value_goes() -> None:
    """Around the value every byte stays: the names, quotes, separators, the rest of the URL or line."""
    value = _value("keep")
    changed = []
    for name, template in (*SYNTAXES.items(), *FORMATS.items()):
        text = template.format(v=value)
        before, after = text.split(value)
        redacted = Redactor().text(text)
        if not re.fullmatch(re.escape(before) + r"<redacted:[a-z_]+:\d+>" + re.escape(after), redacted):
            changed.append((name, redacted))
    assert changed == []


def test_a_private_key_block_in_every_armour() -> None:
    body = base64.b64encode(random.Random(1).randbytes(200)).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    for armour in ("PGP PRIVATE KEY BLOCK", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY"):
        block = f"-----BEGIN {armour}-----\n\n{lines}\n=AbCd\n-----END {armour}-----"
        redacted = Redactor().text(f"$ gpg --export-secret-keys -a\n{block}\n")
        assert _gone(body, redacted) and redacted.endswith("<redacted:private_key:1>\n"), redacted
    age = "AGE-SECRET-KEY-1" + "".join(random.Random(2).choice("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L") for _ in range(58))
    assert Redactor().text(f"# created: 2026\n{age}\n") == "# created: 2026\n<redacted:age_key:1>\n"
    ppk = (
        "PuTTY-User-Key-File-3: ssh-ed25519\nPublic-Lines: 1\nAAAAC3NzaC1lZDI1NTE5AAAAIOnly\n"
        f"Private-Lines: 1\n{body[:64]}\nPrivate-MAC: {'ab12' * 16}\n"
    )
    redacted = Redactor().text(ppk)
    assert _gone(body[:64], redacted) and "AAAAC3NzaC1lZDI1NTE5AAAAIOnly" in redacted


@pytest.mark.parametrize("callee", sorted(CALLS), ids=sorted(CALLS))
def test_positional_arguments_of_each_known_call(callee: str) -> None:
    call = CALLS[callee]
    receiver = f"{sorted(call.receivers)[0]}." if call.receivers else "sdk."
    positions = sorted({*call.tokens, *call.passwords})
    count = max(positions) + 1
    if call.max_args is not None:
        count = min(count, call.max_args)
        positions = [p for p in positions if p < count]
    values = [_value(f"{callee}-{i}", 32) for i in range(count)]
    args = ", ".join(f'"{v}"' if i in positions else f'"public-{i}"' for i, v in enumerate(values))
    redacted = Redactor().text(f"client = {receiver}{callee}({args})\n")
    for index in positions:
        assert _gone(values[index], redacted), (callee, redacted)
    assert all(f'"public-{i}"' in redacted for i in range(count) if i not in positions)


def test_positional_arguments_that_are_variables_or_other_calls_stay() -> None:
    for text in (
        "client = Client(account_sid, auth_token)",
        'subprocess.run("make test")',
        'client.run("python manage.py migrate", check=True)',
        'pusher.Pusher(app_id, key, os.environ["PUSHER_SECRET"], "eu")',
        "bot.run(os.getenv('DISCORD_TOKEN'))",
        'sqlite3.connect("app.db")',
    ):
        assert Redactor().text(text) == text


def test_webhook_and_signed_urls() -> None:
    rng = random.Random(3)
    slack = "https://hooks.slack.com/services/T0" + _value("s1", 9) + "/B0" + _value("s2", 9) + "/" + _value("s3", 24)
    discord = f"https://discord.com/api/webhooks/{rng.randrange(10**17, 10**18)}/{_value('d', 68)}"
    s3 = (
        "https://b.s3.amazonaws.com/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAZ%2F20261201"
        f"&X-Amz-Date=20261201T000000Z&X-Amz-Expires=900&X-Amz-Signature={_value('amz', 64).lower()}"
    )
    cloudfront = f"https://d1.cloudfront.net/v.mp4?Expires=1767225600&Signature={_value('cf', 60)}&Key-Pair-Id=K2JCJMD"
    for url, secret in (
        (slack, slack.rsplit("/", 1)[1]),
        (discord, discord.rsplit("/", 1)[1]),
        (s3, s3.rsplit("=", 1)[1]),
        (cloudfront, cloudfront.split("Signature=")[1].split("&")[0]),
    ):
        redacted = Redactor().text(f"curl -X POST '{url}' -d @payload.json")
        assert _gone(secret, redacted), redacted
    assert "Key-Pair-Id=K2JCJMD" in Redactor().text(cloudfront)  # the key pair id is public
    assert "X-Amz-Expires=900" in Redactor().text(s3)


def test_a_secret_found_once_is_found_again_without_its_prefix_and_in_pieces() -> None:
    rng = random.Random(7)
    key = "dapi" + "".join(rng.choice("0123456789abcdef") for _ in range(32))
    red = Redactor()
    assert red.text(f"[DEFAULT]\ntoken = {key}\n") == "[DEFAULT]\ntoken = <redacted:databricks_token:1>\n"
    body = key[4:]
    # the body without its prefix, a 12-character piece, a piece cut across two later texts
    assert red.text(f"the part after dapi is {body}.") == "the part after dapi is <redacted:databricks_token:1>."
    assert red.text(f"it ends in `{body[-12:]}`") == "it ends in `<redacted:databricks_token:1>`"
    assert red.text(f"middle {body[5:19]} here") == "middle <redacted:databricks_token:1> here"
    # 11 characters are not a piece: too short to tell from chance
    assert red.text(f"short {body[:11]} stays") == f"short {body[:11]} stays"


def test_a_piece_quoted_before_the_key_in_the_same_text_goes_too() -> None:
    secret = _value("same", 30)
    text = f"the tail {secret[-14:]} belongs to\nPASSWORD={secret}\n"
    redacted = Redactor().text(text)
    assert _gone(secret, redacted) and redacted.count("<redacted:password:1>") == 2


def test_a_key_found_by_its_shape_is_found_again_in_pieces() -> None:
    key = "lin_api_" + _value("linear", 40)
    red = Redactor()
    red.text(f"LINEAR_API_KEY={key}")
    streamed = json.dumps({"delta": f"it ends in {key[-22:]}"})
    assert key[-22:] not in red.text(streamed)


LOOK_ALIKES = [
    "secretName: prod-db-credentials",
    "          secretKeyRef:\n            name: stripe-keys\n            key: webhook-secret\n",
    "To sort them, call sorted(jobs, key=timeout. Then retry.",
    "OPENAI_API_KEY=sk-...your-key-here",
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "STRIPE_WEBHOOK_SECRET=whsec_your_signing_secret_here",
    'password: "{{ resolve:secretsmanager:prod/orders/db:SecretString:password }}"',
    "aws secretsmanager get-secret-value --secret-id prod/orders/db",
    "def rotate(api_key_name: str, secret_id: str) -> None:\n    password_reset_token_ttl = 3600\n",
    "request_id=572ebedc-14e0-4ebd-9abd-d1d56bef5552 trace_id=a246a4f047714591b41e354e86d39afb",
    "commit a6d8536908889ccfa679e7edd59755539ea80ce2\nMerge: 07deef0 f1a9a81\n",
    'hash = "sha256:37e195b9dcaf16ac83c7743d20f780321d5bc4ce4fa4f05250ee552bbbddbf8d"',
    '"integrity": "sha512-Pj+7D5y6q+rIo8cpPfec/Rv6b0xu1CM7TsOKuzT5uE/nSlq4POHUo0arYNdRg5UFsI+hS///1lqthgJ1fi0LLg=="',
    "image: ghcr.io/acme/api@sha256:330957e53bed1efa8583cd782c981e3ce239acc68fd51b12f970471e8f2139fe",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAItcclZyVBLhA+CGebmXMAffwFM0N1kfsdvKxy1SmDuo9 dev@laptop",
    "env:\n  CLIENT_SECRET: ${{ secrets.CLIENT_SECRET }}\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n",
    "the cache key 5f4dcc3b5aa765d61d8327deb882cf99 was evicted",
    "token_bucket = TokenBucket(rate=10)\nmax_tokens = 4096\n",
    "$ ls\nReportFor2024Q3Final.pdf\nREADME.md\n",
    "pk_live_51Hc8r2KQ9z3XyXaBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n",
    "the keyName is key1 and the token type is Bearer",
    "docker run -e API_KEY -e TOKEN_FILE=/run/secrets/token app",
    "Set `api_key` in the config; the token is read from $HOME/.acme/token.",
    'env_key = "OPENAI_API_KEY"  # the variable that holds it',
    "    trace_key: str\n    span_key: str = ''\n",
    'span_key = f"{trace_key}/turn/{n}"',
    "BYTES_PER_TOKEN = 4",
]


def test_a_plain_word_found_as_a_value_is_not_searched_for_everywhere() -> None:
    red = Redactor()
    assert red.text("password: sunshine") == "password: <redacted:password:1>"
    prose = "Deploy in sunshine or rain: the sunshine release ships on Friday."
    assert red.text(prose) == prose


@pytest.mark.parametrize("text", LOOK_ALIKES, ids=[t[:30] for t in LOOK_ALIKES])
def test_look_alikes_stay_byte_for_byte(text: str) -> None:
    assert Redactor().text(text) == text
