"""Vendor key formats as data: one row per documented format, as the vendors and the public secret
scanners' rule sets (gitleaks, trufflehog, detect-secrets, secretlint) describe them.

A row is a sequence of segments: literals (or alternatives of literals) and runs of a charset with a
length range. The same segments give the regex the redactor matches (`VendorFormat.pattern`) and a
random key of the format (`sample`), so every row is tested with a key generated from it
(`tests/proxy/redact/test_vendors.py`). `shapes.py` compiles the rows into `Shape`s.

Rows are tried in order (a more specific format first: an Anthropic key is an `sk-` key too). A row's
`valid` is an extra check where the charset alone would take words (`sk-button-primary`); a row's
`checksum` is the vendor's own (`checksums.py`): a key whose checksum holds skips `valid`.
Webhook URLs are rows too: the path that carries their secret goes, the host before it stays.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .checksums import base62_crc32, crc32_tail_ok

__all__ = [
    "PUBLIC_PREFIXES",
    "VENDOR_FORMATS",
    "Run",
    "VendorFormat",
    "mixed_case",
    "random_key",
    "random_looking",
    "sample",
]

_RANDOM_RUN = re.compile(r"[A-Za-z0-9]{20,}")

PUBLIC_PREFIXES = (
    "pk_live_",  # Stripe publishable keys
    "pk_test_",
    "pk.eyJ",  # Mapbox public tokens
    "sb_publishable_",  # Supabase
    "NRJS-",  # New Relic browser key
    "age1",  # age public keys
    "AAAAC3NzaC1",  # OpenSSH public key bodies (ed25519, rsa, ecdsa)
    "AAAAB3NzaC1",
    "AAAAE2VjZHNh",
)
"""Starts of keys vendors document as public: never a credential, whatever their randomness."""


def random_looking(secret: str) -> bool:
    """A run of 20+ letters and digits with both in it: what a generated key has and a word list has not."""
    for run in _RANDOM_RUN.findall(secret):
        if any(c.isdigit() for c in run) and any(c.isalpha() for c in run):
            return True
    return False


_LOWER_HEX = frozenset("0123456789abcdef")


def random_key(secret: str) -> bool:
    """`random_looking`, but a run of lowercase hex alone is a name's hash (`sk-worker-7f9c8d5b6a1e…-xk2lp`,
    a pod or a branch), not the mixed-case body of a generated key."""
    for run in _RANDOM_RUN.findall(secret):
        if any(c.isdigit() for c in run) and any(c.isalpha() for c in run) and not set(run) <= _LOWER_HEX:
            return True
    return False


def mixed_case(secret: str) -> bool:
    """Letters-only keys (Hugging Face): random case, not the few capitals of a CamelCase name."""
    return sum(c.isupper() for c in secret) >= 8 and sum(c.islower() for c in secret) >= 8


@dataclass(frozen=True)
class Charset:
    regex: str
    """A regex character class."""
    alphabet: str
    """The characters `sample` draws from (the class's, or a subset a real key uses)."""


_DIGITS = "0123456789"
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_UPPER = _LOWER.upper()
B62 = Charset("[A-Za-z0-9]", _UPPER + _LOWER + _DIGITS)
B64URL = Charset("[A-Za-z0-9_-]", B62.alphabet + "_-")
B64 = Charset("[A-Za-z0-9+/]", B62.alphabet + "+/")
HEX = Charset("[0-9a-f]", "0123456789abcdef")
ANY_HEX = Charset("[0-9A-Fa-f]", "0123456789abcdefABCDEF")
LOWER36 = Charset("[a-z0-9]", _LOWER + _DIGITS)
UPPER36 = Charset("[A-Z0-9]", _UPPER + _DIGITS)
DIGITS = Charset("[0-9]", _DIGITS)
LETTERS = Charset("[A-Za-z]", _UPPER + _LOWER)
BECH32 = Charset("[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]", "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
# the base64url class, sampled without `_` and `-` (a row whose `valid` wants a long alphanumeric run)
B64URL_RUNS = Charset("[A-Za-z0-9_-]", B62.alphabet)
PADDING = Charset("=", "=")
AZURE = Charset("[A-Za-z0-9_~.]", B62.alphabet + "_~.")
AZURE_TAIL = Charset("[A-Za-z0-9_~.-]", B62.alphabet + "_~.-")
PATH = Charset("[A-Za-z0-9_/+-]", B62.alphabet + "_/-")


@dataclass(frozen=True)
class Run:
    """`low` to `high` characters of `chars` (exactly `low` when `high` is None)."""

    chars: Charset
    low: int
    high: int | None = None


Segment = str | tuple[str, ...] | Run


def _segment_regex(segment: Segment) -> str:
    if isinstance(segment, str):
        return re.escape(segment)
    if isinstance(segment, tuple):
        return "(?:" + "|".join(re.escape(s) for s in segment) + ")"
    count = f"{{{segment.low}}}" if segment.high is None else f"{{{segment.low},{segment.high}}}"
    return segment.chars.regex + count


@dataclass(frozen=True)
class VendorFormat:
    """One documented key format (see the module docstring)."""

    kind: str
    """The placeholder kind (`<redacted:KIND:N>`)."""
    vendor: str
    segments: tuple[Segment, ...]
    hints: tuple[str, ...] = ()
    """Literals one of which every key contains (text without them is not searched); by default the
    alternatives of the first literal segment."""
    checksum: Callable[[str], bool] | None = None
    valid: Callable[[str], bool] | None = None
    sample_tail: Callable[[str], str] | None = field(default=None, repr=False)
    """How `sample` completes a key whose tail is a checksum of the rest."""

    @property
    def pattern(self) -> str:
        return "".join(_segment_regex(s) for s in self.segments)

    @property
    def literals(self) -> tuple[str, ...]:
        if self.hints:
            return self.hints
        for segment in self.segments:
            if isinstance(segment, str):
                return (segment,)
            if isinstance(segment, tuple):
                return segment
        raise ValueError(f"{self.vendor}: a row without a literal needs hints")


def sample(fmt: VendorFormat, rng: random.Random) -> str:
    """A random key of `fmt` (what the tests plant): each run at a random length in its range, drawn
    again while the row's `valid` refuses it (a 32-character key without a digit: 1 draw in 250)."""
    for _ in range(100):
        key = _draw(fmt, rng)
        if fmt.valid is None or fmt.valid(key):
            return key
    raise ValueError(f"{fmt.vendor}: no valid sample in 100 draws")


def _draw(fmt: VendorFormat, rng: random.Random) -> str:
    parts: list[str] = []
    for segment in fmt.segments:
        if isinstance(segment, str):
            parts.append(segment)
        elif isinstance(segment, tuple):
            parts.append(rng.choice(segment))
        else:
            high = segment.low if segment.high is None else min(segment.high, segment.low + 24)
            length = rng.randint(segment.low, high)
            parts.append("".join(rng.choice(segment.chars.alphabet) for _ in range(length)))
    key = "".join(parts)
    return fmt.sample_tail(key) if fmt.sample_tail is not None else key


def _crc32_tail(key: str) -> str:
    prefix, _, body = key.partition("_")
    return f"{prefix}_{body[:-6]}{base62_crc32(body[:-6])}"


def _uuid() -> tuple[Segment, ...]:
    return (Run(HEX, 8), "-", Run(HEX, 4), "-", Run(HEX, 4), "-", Run(HEX, 4), "-", Run(HEX, 12))


def _f(kind: str, vendor: str, *segments: Segment, **extra: object) -> VendorFormat:
    return VendorFormat(kind, vendor, segments, **extra)  # type: ignore[arg-type]


VENDOR_FORMATS: tuple[VendorFormat, ...] = (
    # -- AI providers ------------------------------------------------------------------------------
    _f("api_key", "Anthropic", "sk-ant-", Run(LETTERS, 3, 5), Run(DIGITS, 2), "-", Run(B64URL, 40, 200)),
    _f("openrouter_key", "OpenRouter", "sk-or-v1-", Run(HEX, 64)),
    _f("api_key", "OpenAI", "sk-", Run(B64URL_RUNS, 20, 300), valid=random_key),
    _f("groq_key", "Groq", "gsk_", Run(B62, 52)),
    _f("xai_key", "xAI", "xai-", Run(B62, 80)),
    _f("perplexity_key", "Perplexity", "pplx-", Run(B62, 48)),
    _f("replicate_token", "Replicate", "r8_", Run(B62, 37)),
    _f("hf_token", "Hugging Face organisation", "api_org_", Run(LETTERS, 34), valid=mixed_case),
    _f("hf_token", "Hugging Face", "hf_", Run(LETTERS, 34), valid=mixed_case),
    _f("langsmith_key", "LangSmith", "lsv2_", ("pt_", "sk_"), Run(HEX, 32), "_", Run(HEX, 10)),
    _f("pinecone_key", "Pinecone", "pcsk_", Run(B62, 5, 6), "_", Run(B62, 60, 70)),
    _f("fireworks_key", "Fireworks", "fw_", Run(B62, 24), valid=random_key),
    _f("elevenlabs_key", "ElevenLabs", "sk_", Run(HEX, 48)),
    # -- clouds and hosting ------------------------------------------------------------------------
    _f("google_api_key", "Google API key", "AIza", Run(B64URL, 35)),
    _f("google_oauth_secret", "Google OAuth client secret", "GOCSPX-", Run(B64URL, 28)),
    _f("google_oauth_token", "Google OAuth access token", "ya29.", Run(B64URL_RUNS, 30, 2048), valid=random_looking),
    _f("google_oauth_token", "Google OAuth refresh token", "1//0", Run(B64URL_RUNS, 40, 512), valid=random_looking),
    _f("aws_bedrock_key", "Amazon Bedrock API key", "ABSK", Run(B64, 109, 269), Run(PADDING, 0, 2)),
    _f("alibaba_key", "Alibaba Cloud AccessKey id", "LTAI", Run(B62, 20)),
    _f("tencent_key", "Tencent Cloud SecretId", "AKID", Run(B62, 32)),
    _f(
        "azure_client_secret",
        "Microsoft Entra client secret",
        Run(AZURE, 3),
        Run(DIGITS, 1),
        "Q~",
        Run(AZURE_TAIL, 31, 34),
        hints=("Q~",),
    ),
    _f("azure_devops_pat", "Azure DevOps PAT", Run(B62, 76), "AZDO", Run(B62, 4), hints=("AZDO",)),
    _f("digitalocean_token", "DigitalOcean", ("dop_v1_", "doo_v1_", "dor_v1_"), Run(HEX, 64)),
    _f("heroku_key", "Heroku", "HRKU-AA", Run(B64URL, 58)),
    _f("flyio_token", "Fly.io", "fo1_", Run(B64URL, 43)),
    _f("flyio_token", "Fly.io macaroon", ("fm1a_", "fm1r_", "fm2_"), Run(B64, 100, 4000), Run(PADDING, 0, 3)),
    _f("supabase_token", "Supabase PAT", "sbp_", Run(HEX, 40)),
    _f("supabase_token", "Supabase secret key", "sb_secret_", Run(B64URL, 20, 64)),
    _f("planetscale_token", "PlanetScale", ("pscale_tkn_", "pscale_oauth_", "pscale_pw_"), Run(B64URL, 32, 64)),
    _f("databricks_token", "Databricks", "dapi", Run(HEX, 32)),
    _f("render_key", "Render", "rnd_", Run(B62, 32), valid=random_key),
    _f("netlify_token", "Netlify", "nfp_", Run(B62, 36), valid=random_key),
    _f("deno_token", "Deno Deploy", "ddp_", Run(B62, 36), valid=random_key),
    _f("cloudflare_key", "Cloudflare origin CA key", "v1.0-", Run(HEX, 24), "-", Run(HEX, 146)),
    # -- secrets managers, infrastructure ------------------------------------------------------------
    _f("doppler_token", "Doppler", "dp.", ("pt.", "st.", "sa.", "ct.", "scim.", "audit."), Run(B62, 40, 44)),
    _f("doppler_token", "Doppler service token", "dp.st.", Run(B64URL, 2, 35), ".", Run(B62, 40, 44)),
    _f("onepassword_token", "1Password service account", "ops_eyJ", Run(B64, 250, 4000), Run(PADDING, 0, 3)),
    _f(
        "onepassword_key",
        "1Password secret key",
        "A3-",
        Run(UPPER36, 6),
        "-",
        Run(UPPER36, 11),
        "-",
        Run(UPPER36, 5),
        "-",
        Run(UPPER36, 5),
        "-",
        Run(UPPER36, 5),
    ),
    _f("vault_token", "HashiCorp Vault", ("hvs.", "hvr."), Run(B64URL, 24, 300)),
    _f("vault_token", "HashiCorp Vault batch", "hvb.", Run(B64URL, 138, 300)),
    _f(
        "terraform_token",
        "Terraform Cloud",
        Run(LOWER36, 14),
        ".atlasv1.",
        Run(B64URL, 60, 70),
        hints=(".atlasv1.",),
    ),
    _f("pulumi_token", "Pulumi", "pul-", Run(HEX, 40)),
    _f("age_key", "age secret key", "AGE-SECRET-KEY-1", Run(BECH32, 58)),
    _f(
        "tailscale_key",
        "Tailscale",
        "tskey-",
        ("api-", "auth-", "client-", "scim-", "webhook-"),
        Run(B62, 10, 20),
        "-",
        Run(B62, 20, 40),
    ),
    # -- package registries --------------------------------------------------------------------------
    _f("docker_token", "Docker Hub", ("dckr_pat_", "dckr_oat_"), Run(B64URL, 27, 40)),
    _f(
        "npm_token",
        "npm",
        "npm_",
        Run(B62, 36),
        checksum=crc32_tail_ok,
        valid=random_looking,
        sample_tail=_crc32_tail,
    ),
    _f("pypi_token", "PyPI", "pypi-AgEIcHlwaS5vcmc", Run(B64URL, 50, 1000)),
    _f("rubygems_token", "RubyGems", "rubygems_", Run(HEX, 48)),
    _f("nuget_key", "NuGet", "oy2", Run(LOWER36, 43), valid=random_looking),
    _f("clojars_token", "Clojars", "CLOJARS_", Run(LOWER36, 60)),
    _f("jfrog_key", "JFrog API key", "AKCp", Run(B62, 69)),
    _f("jfrog_key", "JFrog reference token", "cmVmd", Run(B62, 59)),
    _f("crates_token", "crates.io", "cio", Run(B62, 32), valid=random_key),
    # -- code hosting, CI, dev tools -----------------------------------------------------------------
    _f(
        "github_token",
        "GitHub",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        Run(B62, 36, 255),
        checksum=crc32_tail_ok,
        sample_tail=_crc32_tail,
    ),
    _f("github_token", "GitHub fine-grained", "github_pat_", Run(B62, 22), "_", Run(B62, 59)),
    _f(
        "gitlab_token",
        "GitLab",
        ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glffct-"),
        Run(B64URL, 20, 300),
    ),
    _f("gitlab_token", "GitLab pipeline trigger", "glptt-", Run(HEX, 40)),
    _f("gitlab_token", "GitLab OAuth secret", "gloas-", Run(B64URL, 64)),
    _f("gitlab_token", "GitLab agent", "glagent-", Run(B64URL, 50, 1024)),
    _f("gitlab_token", "GitLab CI job", "glcbt-", Run(B62, 1, 5), "_", Run(B64URL, 20)),
    _f("gitlab_token", "GitLab runner registration", "GR1348941", Run(B64URL, 20, 50)),
    # Atlassian: the body, `=`, and eight hex characters of checksum
    _f("atlassian_token", "Atlassian API token", ("ATATT3", "ATCTT3"), Run(B64URL, 100, 300), "=", Run(ANY_HEX, 8)),
    _f("atlassian_token", "Atlassian API token (no tail)", ("ATATT3", "ATCTT3"), Run(B64URL, 100, 300)),
    _f("bitbucket_token", "Bitbucket app password", "ATBB", Run(B62, 32)),
    _f("linear_key", "Linear", ("lin_api_", "lin_oauth_"), Run(B62, 40)),
    _f("notion_token", "Notion", "ntn_", Run(B62, 46), valid=random_key),
    _f("notion_token", "Notion integration secret", "secret_", Run(B62, 43), valid=random_key),
    _f("airtable_token", "Airtable", "pat", Run(B62, 14), ".", Run(HEX, 64)),
    _f("clickup_token", "ClickUp", "pk_", Run(DIGITS, 6, 10), "_", Run(UPPER36, 32)),
    _f(
        "asana_token",
        "Asana PAT",
        ("1/", "2/"),
        Run(DIGITS, 10, 19),
        "/",
        Run(DIGITS, 10, 19),
        ":",
        Run(HEX, 32),
    ),
    _f("youtrack_token", "YouTrack", "perm:", Run(B64, 4, 80), ".", Run(B64URL, 4, 80), ".", Run(B62, 20, 40)),
    _f("figma_token", "Figma", "figd_", Run(B64URL, 40, 64)),
    _f("contentful_token", "Contentful", "CFPAT-", Run(B64URL, 43)),
    _f("typeform_token", "Typeform", "tfp_", Run(B64URL, 59)),
    _f("postman_key", "Postman", "PMAK-", Run(HEX, 24), "-", Run(HEX, 34)),
    _f("sentry_token", "Sentry org token", "sntrys_eyJ", Run(B64, 60, 600), Run(PADDING, 0, 2), "_", Run(B64, 43)),
    _f("sentry_token", "Sentry user token", "sntryu_", Run(HEX, 64)),
    _f("newrelic_key", "New Relic", ("NRAK-", "NRII-", "NRRA-"), Run(UPPER36, 27, 32)),
    _f("grafana_token", "Grafana Cloud", "glc_", Run(B64, 32, 400), Run(PADDING, 0, 2)),
    _f("grafana_token", "Grafana service account", "glsa_", Run(B62, 32), "_", Run(ANY_HEX, 8)),
    _f("grafana_token", "Grafana API key", "eyJrIjoi", Run(B62, 70, 400), Run(PADDING, 0, 2)),
    _f("dynatrace_token", "Dynatrace", "dt0c01.", Run(UPPER36, 24), ".", Run(UPPER36, 64)),
    _f("honeybadger_token", "Honeybadger", "hbp_", Run(B62, 36)),
    _f("sonar_token", "SonarQube", ("squ_", "sqp_", "sqa_"), Run(HEX, 40)),
    _f("sourcegraph_token", "Sourcegraph", "sgp_", Run(HEX, 16), "_", Run(HEX, 40)),
    _f("sourcegraph_token", "Sourcegraph local", "sgp_local_", Run(HEX, 40)),
    _f("buildkite_token", "Buildkite", "bkua_", Run(HEX, 40)),
    _f("circleci_token", "CircleCI", "CCIPAT_", Run(B62, 22), "_", Run(HEX, 40)),
    _f(
        "harness_key",
        "Harness",
        ("pat.", "sat."),
        Run(B64URL, 22),
        ".",
        Run(B62, 24),
        ".",
        Run(B62, 20),
    ),
    _f("prefect_key", "Prefect", "pnu_", Run(B62, 36)),
    _f("readme_key", "ReadMe", "rdme_", Run(LOWER36, 70)),
    _f("scalingo_token", "Scalingo", "tk-us-", Run(B64URL, 48)),
    _f("infracost_key", "Infracost", "ico-", Run(B62, 32)),
    _f("octopus_key", "Octopus Deploy", "API-", Run(UPPER36, 26), valid=random_looking),
    _f("openshift_token", "OpenShift", "sha256~", Run(B64URL, 43)),
    _f("adobe_secret", "Adobe client secret", "p8e-", Run(B62, 32)),
    _f("maxmind_key", "MaxMind", Run(B62, 6), "_", Run(B62, 29), "_mmk", hints=("_mmk",)),
    # -- payments, e-commerce --------------------------------------------------------------------
    # Stripe: secret and restricted keys, live and test; current keys run to ~107 characters (up to 255)
    _f("stripe_key", "Stripe", ("sk_live_", "sk_test_", "rk_live_", "rk_test_"), Run(B62, 24, 247)),
    _f("webhook_secret", "webhook signing secret (Stripe, Svix, Clerk)", "whsec_", Run(B64, 24, 100)),
    _f("shopify_token", "Shopify", ("shpat_", "shpca_", "shppa_", "shpss_"), Run(ANY_HEX, 32)),
    _f("woocommerce_key", "WooCommerce", ("ck_", "cs_"), Run(HEX, 40)),
    _f("square_token", "Square", ("sq0atp-", "sq0csp-"), Run(B64URL, 22, 60)),
    _f("square_token", "Square access token", "EAAA", Run(B64URL, 60)),
    _f(
        "braintree_token",
        "Braintree",
        "access_token$production$",
        Run(LOWER36, 16),
        "$",
        Run(HEX, 32),
    ),
    _f("plaid_token", "Plaid", "access-", ("sandbox-", "development-", "production-"), *_uuid()),
    _f("flutterwave_key", "Flutterwave", ("FLWSECK-", "FLWSECK_TEST-"), Run(HEX, 32), "-X"),
    _f("shippo_token", "Shippo", ("shippo_live_", "shippo_test_"), Run(HEX, 40)),
    _f("easypost_key", "EasyPost", ("EZAK", "EZTK"), Run(B62, 54)),
    _f("duffel_token", "Duffel", ("duffel_test_", "duffel_live_"), Run(B64URL, 43)),
    # -- messaging, email ------------------------------------------------------------------------
    _f("twilio_key", "Twilio API key SID", "SK", Run(HEX, 32)),
    _f("sendgrid_key", "SendGrid", "SG.", Run(B64URL, 22), ".", Run(B64URL, 43)),
    _f("mailgun_key", "Mailgun", "key-", Run(HEX, 32)),
    _f("mailchimp_key", "Mailchimp", Run(HEX, 32), "-us", Run(DIGITS, 1, 2), hints=("-us",)),
    _f("brevo_key", "Brevo", ("xkeysib-", "xsmtpsib-"), Run(HEX, 64), "-", Run(B62, 16)),
    _f("resend_key", "Resend", "re_", Run(Charset("[A-Za-z0-9_]", B62.alphabet), 30, 40), valid=random_key),
    _f("slack_token", "Slack", "xox", ("a", "b", "p", "o", "s", "r", "e"), "-", Run(B64URL, 10, 300)),
    _f(
        "slack_token",
        "Slack app-level token",
        "xapp-",
        Run(DIGITS, 1),
        "-",
        Run(UPPER36, 9, 12),
        "-",
        Run(DIGITS, 10, 16),
        "-",
        Run(HEX, 64),
    ),
    # Discord: the base64 of the bot's numeric id (so `MT`…`OT`), a timestamp, an HMAC
    _f(
        "discord_token",
        "Discord bot token",
        ("MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"),
        Run(B64URL_RUNS, 22, 24),
        ".",
        Run(B64URL, 6),
        ".",
        Run(B64URL, 27, 38),
        valid=random_looking,
    ),
    # Telegram: `<bot id>:<35 characters>`; the secret part of every token the Bot API issues starts `AA`
    _f("telegram_token", "Telegram bot", Run(DIGITS, 8, 10), ":AA", Run(B64URL, 33), hints=(":AA",)),
    _f("facebook_token", "Meta access token", "EAA", Run(B62, 100, 400), valid=random_looking),
    _f("twitter_token", "X bearer token", "A" * 22, Run(Charset("[A-Za-z0-9%]", B62.alphabet + "%"), 80, 100)),
    _f("dropbox_token", "Dropbox", ("sl.u.", "sl."), Run(B64URL, 130, 1400)),
    _f("mapbox_token", "Mapbox secret token", "sk.eyJ", Run(B64URL, 50, 200), ".", Run(B64URL, 20, 40)),
    _f("firebase_key", "Firebase Cloud Messaging", "AAAA", Run(B64URL, 7), ":", Run(B64URL, 140)),
    # -- webhook URLs: the path carries the secret ------------------------------------------------
    _f(
        "webhook",
        "Slack webhook",
        "hooks.slack.com/",
        ("services/", "workflows/", "triggers/"),
        Run(PATH, 40, 120),
    ),
    _f(
        "webhook",
        "Discord webhook",
        ("discord.com/api/webhooks/", "discordapp.com/api/webhooks/"),
        Run(DIGITS, 17, 20),
        "/",
        Run(B64URL, 60, 80),
    ),
    _f(
        "webhook",
        "Microsoft Teams webhook",
        ("webhook.office.com/webhookb2/", "outlook.office.com/webhook/"),
        Run(Charset("[A-Za-z0-9@/_-]", B62.alphabet + "@/-"), 60, 300),
    ),
    _f("webhook", "Zapier webhook", "hooks.zapier.com/hooks/catch/", Run(DIGITS, 3, 12), "/", Run(LOWER36, 5, 12)),
    _f("webhook", "IFTTT webhook", "maker.ifttt.com/", ("trigger/", "use/"), Run(PATH, 20, 200)),
)
