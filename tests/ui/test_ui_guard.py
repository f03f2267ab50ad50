"""The page's request checks, as pure functions."""

from __future__ import annotations

import pytest

from skillshelf.serve.ui.guard import check_host, check_same_origin, check_token

PORT = 8123


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1:8123", "127.0.0.1", "localhost:8123", "LocalHost:8123", "[::1]:8123", "127.5.6.7:8123"],
)
def test_a_loopback_host_with_our_port_passes(host: str) -> None:
    assert check_host(host, PORT) is None


@pytest.mark.parametrize(
    "host",
    [
        None,
        "",
        "evil.example:8123",
        "localhost.evil.example:8123",
        "127.0.0.1:8124",
        "127.0.0.1:x",
        "127.0.0.1:8123/x",
        "user@127.0.0.1:8123",
        "127.0.0.1 :8123",
        "[::1",
        "0.0.0.0:8123",
        "192.168.1.5:8123",
        "127.0.0.1\\@evil:8123",
    ],
)
def test_any_other_host_is_refused_with_sv430(host: str | None) -> None:
    denial = check_host(host, PORT)
    assert denial is not None and denial.status == 403 and denial.code == "SV430"


def test_only_the_exact_token_passes() -> None:
    assert check_token("s3cret-token", "s3cret-token") is None
    for given in (None, "", "s3cret-toke", "s3cret-token ", "S3CRET-TOKEN", "\udcff"):
        denial = check_token(given, "s3cret-token")
        assert denial is not None and denial.status == 403 and denial.code == "SV431"


def test_a_post_must_come_from_the_page_itself_as_json() -> None:
    ok = {"host": "127.0.0.1:8123", "origin": "http://127.0.0.1:8123", "content_type": "application/json"}
    assert check_same_origin(**ok, fetch_site=None) is None
    assert check_same_origin(**ok, fetch_site="same-origin") is None
    assert (
        check_same_origin(**{**ok, "content_type": "application/json; charset=utf-8"}, fetch_site=None)
        is None
    )
    for origin in (None, "null", "http://evil.example", "http://127.0.0.1:8124", "https://127.0.0.1:8123"):
        denial = check_same_origin(**{**ok, "origin": origin}, fetch_site=None)
        assert denial is not None and denial.code == "SV432"
    for site in ("cross-site", "same-site", "none"):
        denial = check_same_origin(**ok, fetch_site=site)
        assert denial is not None and denial.code == "SV432"
    for kind in (None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        denial = check_same_origin(**{**ok, "content_type": kind}, fetch_site=None)
        assert denial is not None and (denial.status, denial.code) == (415, "SV433")


def test_every_refusal_says_how_to_fix_it() -> None:
    denials = [
        check_host("evil.example", PORT),
        check_token("wrong", "right"),
        check_same_origin(host="127.0.0.1:1", origin="http://evil", fetch_site=None, content_type=None),
        check_same_origin(
            host="127.0.0.1:1", origin="http://127.0.0.1:1", fetch_site=None, content_type="text/x"
        ),
    ]
    for denial in denials:
        assert denial is not None
        answer = denial.to_dict()
        assert answer["error"] == denial.code and isinstance(answer["fix"], str) and answer["fix"]
