"""Well-known token formats: model providers, cloud, version control, chat, payment, package
registries and SaaS APIs, each matched whole (vendors' documented prefixes and lengths).

A token's body is at most 1,024 chars: unbounded, a line that repeats a prefix inside one long
run of token chars (``Apypi-AgEI...Apypi-AgEI...``) took quadratic time; a longer run is left to
the high-entropy finder."""

from __future__ import annotations

import re

from skillshelf.memory.redact.rule import B as _B
from skillshelf.memory.redact.rule import E as _E
from skillshelf.memory.redact.rule import Rule

__all__ = ["TOKEN_FORMATS"]

TOKEN_FORMATS: tuple[Rule, ...] = (
    # --- model providers --------------------------------------------------------------------
    Rule(
        kind="anthropic-key",
        category="model-provider",
        needles=("sk-ant-",),
        pattern=_B + r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,1024}",
    ),
    Rule(
        kind="openai-project-key",
        category="model-provider",
        needles=("sk-",),
        pattern=_B + r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,1024}",
    ),
    Rule(kind="openai-key", category="model-provider", needles=("sk-",), pattern=r"sk-[A-Za-z0-9]{20,1024}"),
    Rule(
        kind="huggingface-token",
        category="model-provider",
        needles=("hf_",),
        pattern=_B + r"hf_[A-Za-z0-9]{30,1024}" + _E,
    ),
    Rule(
        kind="groq-key",
        category="model-provider",
        needles=("gsk_",),
        pattern=_B + r"gsk_[A-Za-z0-9]{40,1024}" + _E,
    ),
    Rule(
        kind="replicate-token",
        category="model-provider",
        needles=("r8_",),
        pattern=_B + r"r8_[A-Za-z0-9]{30,1024}" + _E,
    ),
    Rule(
        kind="perplexity-key",
        category="model-provider",
        needles=("pplx-",),
        pattern=_B + r"pplx-[A-Za-z0-9]{40,1024}" + _E,
    ),
    Rule(
        kind="xai-key",
        category="model-provider",
        needles=("xai-",),
        pattern=_B + r"xai-[A-Za-z0-9]{60,1024}" + _E,
    ),
    # --- cloud ------------------------------------------------------------------------------
    Rule(
        kind="aws-access-key-id",
        category="cloud",
        anchors=("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA"),
        pattern=r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b",
    ),
    Rule(
        kind="aws-secret-access-key",
        category="cloud",
        group="v",
        flags=re.IGNORECASE,
        anchors=("aws",),
        pattern=(
            r"aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
    ),
    Rule(
        kind="google-api-key",
        category="cloud",
        needles=("AIza",),
        pattern=_B + r"AIza[0-9A-Za-z_-]{35}" + r"(?![A-Za-z0-9_-])",
    ),
    Rule(
        kind="google-oauth-secret",
        category="cloud",
        needles=("GOCSPX-",),
        pattern=_B + r"GOCSPX-[A-Za-z0-9_-]{28}",
    ),
    Rule(
        kind="azure-account-key",
        category="cloud",
        group="v",
        flags=re.IGNORECASE,
        anchors=("accountkey", "sharedaccesskey"),
        pattern=r"(?:AccountKey|SharedAccessKey)\s*=\s*(?P<v>[A-Za-z0-9+/]{20,1024}={0,2})",
    ),
    Rule(
        kind="digitalocean-token",
        category="cloud",
        needles=("_v1_",),
        pattern=_B + r"do[opr]_v1_[a-f0-9]{64}" + _E,
    ),
    Rule(
        kind="alibaba-access-key", category="cloud", needles=("LTAI",), pattern=r"\bLTAI[A-Za-z0-9]{16,24}\b"
    ),
    # --- version control --------------------------------------------------------------------
    Rule(
        kind="github-token",
        category="vcs",
        anchors=("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        pattern=_B + r"gh[pousr]_[A-Za-z0-9]{36,255}" + _E,
    ),
    Rule(
        kind="github-fine-grained-pat",
        category="vcs",
        needles=("github_pat_",),
        pattern=_B + r"github_pat_[A-Za-z0-9_]{60,255}",
    ),
    Rule(
        kind="gitlab-token",
        category="vcs",
        anchors=("glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "glcbt-"),
        pattern=_B + r"gl(?:pat|dt|rt|ptt|ft|soat|cbt)-[A-Za-z0-9_-]{20,1024}" + r"(?![A-Za-z0-9_-])",
    ),
    Rule(
        kind="bitbucket-app-password",
        category="vcs",
        needles=("ATBB",),
        pattern=r"\bATBB[A-Za-z0-9_=.-]{28,256}",  # bounded: "=" and "." inside make runs long
    ),
    # --- chat -------------------------------------------------------------------------------
    Rule(
        kind="slack-token",
        category="chat",
        needles=("xox",),
        pattern=_B + r"xox[abposr]-(?:\d+-)?[A-Za-z0-9-]{10,1024}",
    ),
    Rule(
        kind="slack-webhook",
        category="chat",
        needles=("https://hooks.slack.com/",),
        pattern=r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/]+",
    ),
    Rule(
        kind="discord-webhook",
        category="chat",
        needles=("/api/webhooks/",),
        pattern=r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]+",
    ),
    Rule(
        kind="discord-bot-token",
        category="chat",
        pattern=r"\b[MNO][A-Za-z\d_-]{23,27}\.[A-Za-z\d_-]{6}\.[A-Za-z\d_-]{27,40}\b",
    ),
    Rule(
        kind="telegram-bot-token",
        category="chat",
        pattern=r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b",
        anchors=(":AA",),
        back=(8, 10),
    ),
    # --- payment ----------------------------------------------------------------------------
    Rule(
        kind="stripe-key",
        category="payment",
        anchors=("_live_", "_test_"),
        back=(2, 2),
        pattern=_B + r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,1024}" + _E,
    ),
    Rule(
        kind="stripe-webhook-secret",
        category="payment",
        needles=("whsec_",),
        pattern=_B + r"whsec_[A-Za-z0-9]{24,1024}" + _E,
    ),
    Rule(
        kind="square-token",
        category="payment",
        anchors=("sq0atp-", "sq0csp-", "sq0idp-"),
        pattern=_B + r"(?:sq0atp|sq0csp|sq0idp)-[A-Za-z0-9_-]{22,43}",
    ),
    Rule(
        kind="braintree-token",
        category="payment",
        needles=("access_token$",),
        pattern=r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}",
    ),
    Rule(
        kind="shopify-token",
        category="payment",
        anchors=("shpat_", "shpss_", "shpca_", "shppa_"),
        pattern=_B + r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}" + _E,
    ),
    # --- package registries -----------------------------------------------------------------
    Rule(
        kind="npm-token",
        category="package-registry",
        needles=("npm_",),
        pattern=_B + r"npm_[A-Za-z0-9]{36}" + _E,
    ),
    Rule(
        kind="pypi-token",
        category="package-registry",
        needles=("pypi-AgEIcHlwaS5vcmc",),
        pattern=_B + r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{40,1024}",
    ),
    Rule(
        kind="rubygems-key",
        category="package-registry",
        needles=("rubygems_",),
        pattern=_B + r"rubygems_[a-f0-9]{48}" + _E,
    ),
    Rule(kind="nuget-key", category="package-registry", needles=("oy2",), pattern=r"\boy2[a-z0-9]{43}\b"),
    Rule(
        kind="dockerhub-pat",
        category="package-registry",
        needles=("dckr_pat_",),
        pattern=_B + r"dckr_pat_[A-Za-z0-9_-]{27,1024}",
    ),
    Rule(
        kind="crates-io-token",
        category="package-registry",
        needles=("cio",),
        pattern=r"\bcio[A-Za-z0-9]{32}\b",
    ),
    # --- email / messaging APIs -------------------------------------------------------------
    Rule(
        kind="sendgrid-key",
        category="saas",
        needles=("SG.",),
        pattern=r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b",
    ),
    Rule(kind="twilio-api-key", category="saas", needles=("SK",), pattern=r"\bSK[0-9a-fA-F]{32}\b"),
    Rule(kind="mailgun-key", category="saas", needles=("key-",), pattern=_B + r"key-[0-9a-f]{32}" + _E),
    # --- developer platforms: hex bodies the high-entropy scan leaves (a digest looks the same) --
    *(
        Rule(kind=kind, category="saas", needles=(prefix,), pattern=_B + re.escape(prefix) + body + _E)
        for kind, prefix, body in (
            ("openrouter-key", "sk-or-v1-", r"[0-9a-f]{64}"),
            ("databricks-token", "dapi", r"[0-9a-f]{32}(?:-\d)?"),
            ("pulumi-token", "pul-", r"[0-9a-f]{40}"),
            ("supabase-token", "sbp_", r"[0-9a-f]{40}"),
            ("sentry-token", "sntryu_", r"[0-9a-f]{64}"),
            ("grafana-token", "glsa_", r"[A-Za-z0-9]{32}_[0-9a-f]{8}"),
            ("postman-key", "PMAK-", r"[0-9a-f]{24}-[0-9a-f]{34}"),
            ("newrelic-key", "NRAK-", r"[0-9A-Z]{27}"),
            ("age-secret-key", "AGE-SECRET-KEY-1", r"[02-9AC-HJ-NP-Z]{58}"),
            ("hashicorp-vault-token", "hvs.", r"[A-Za-z0-9_-]{24,1024}"),
        )
    ),
)
