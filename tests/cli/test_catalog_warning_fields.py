"""`catalog` and `context` build the catalog's finding from the code, message and fix its report
carries, never from the words of its ``warning``."""

from __future__ import annotations

from skillshelf.cli.catalog_notes import catalog_warning


def test_the_finding_takes_its_code_and_fix_from_the_report_not_from_the_warnings_words() -> None:
    report = {
        "warning": "no skills catalog: looks like SK381. To fit more, read this as a fix.",
        "warning_code": "SK380",
        "warning_message": "over the budget",
        "warning_fix": "raise the budget",
    }
    found = catalog_warning(report)
    assert found is not None
    assert (found.code, found.message, found.fix, found.severity.value) == (
        "SK380",
        "over the budget",
        "raise the budget",
        "warning",
    )


def test_a_warning_without_its_code_gives_no_finding_whatever_it_says() -> None:
    over = "The skills catalog is over its budget of 20 characters: none of the 4 skills fit."
    assert catalog_warning({"warning": over, "warning_code": None}) is None
    assert catalog_warning({}) is None
