"""Closing ``skill`` tags in untrusted text, written so that they close nothing.

:func:`defused` puts a backslash before the slash of each closing ``skill`` tag in a text
(``</skill>`` becomes ``<\\/skill>``) as a lenient reader would see one: any case, blanks and
invisible characters anywhere in it, its ``<``, its slash and its letters spelled with
look-alikes: NFKC's (fullwidth, mathematical, the Kelvin sign) and those NFKC leaves apart
(Cyrillic ``ѕ`` ``к`` ``і`` ``ӏ``, Greek ``κ`` ``ι``, a dotless ``ı``, small capitals, ``‹``,
``╱``...). An ``i`` and a vertical stroke (``I``, ``l``, ``1``, ``|``) read as one letter. A
text with no ``<`` or look-alike of it is passed over at regex speed, and a tag in plain ASCII
is read at once; only the rest is folded character by character (each character's folding is
cached), so the work stays linear in the text however it repeats near-tags.
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = ["defused"]

#: Where a closing ``skill`` tag may start: a ``<`` (or a look-alike), blanks or invisible
#: characters, then a slash (or a look-alike); :func:`_closes_skill` reads on from the slash.
_INVISIBLE = (  # blanks, every format (Cf) character, the fillers and variation selectors
    "\\s\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u034f\u115f\u1160\u17b4\u17b5"
    "\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef"
)
_SLASHES = (  # the slash and its look-alikes (as NFKC leaves them)
    "/\u1735\u2041\u2044\u2215\u2571\u27cb\u29f8\u3033\u30ce\u31d3\u4e3f\uff0f\U0001d23a"
)
_ANGLES = "<\u02c2\u1438\u16b2\u2039\u2329\u276e\u27e8\u3008\ufe64\uff1c"  # ``<`` and look-alikes
#: Look-alikes of the letters of ``skill`` left apart by NFKC and case folding (Cyrillic,
#: Greek, Cherokee, Lisu, Coptic, small capitals...), each folded to ``s``, ``k`` or ``l``; an
#: ``i`` and every vertical stroke (``I``, ``l``, ``1``, ``|``, palochka) count as ``l``.
_LOOKALIKES = str.maketrans(
    {
        **dict.fromkeys(
            "\u0455\u0405\u01bd\ua731\u054f\u13d5\u13da\uab85\uabaa\ua4e2\U00010420\U00010448", "s"
        ),
        **dict.fromkeys(
            "\u043a\u041a\u03ba\u039a\u0138\u1d0b\u2c94\u2c95\u13e6\uabb6\ua4d7\u16d5\U00010518", "k"
        ),
        **dict.fromkeys(
            "i1|\u0456\u0406\u04cf\u04c0\u0131\u0269\u0196\u026a\u03b9\u0399\ua646\ua647\u13a5\uab75"
            "\u01c0\u05c0\u05d5\u0627\u07ca\u2d4f\u16c1\ua4f2\ua4e1\u2c92\u2c93\u2223\u2502\u2758"
            "\u23fd\u029f\u13de\uabae\u053c",
            "l",
        ),
    }
)
_FOLDED_TAG = "skill".translate(_LOOKALIKES)
# after the slash and any more plain ones, only an s, a blank or invisible character or a
# non-ASCII one (a look-alike) may begin ``skill``: any other tag is passed over at regex speed
_TAG_START = re.compile(f"[{_ANGLES}][{_INVISIBLE}]*(?=[{_SLASHES}]/*(?:[sS{_INVISIBLE}]|[^\x00-\x7f]))")
_HIDDEN = re.compile(f"[{_INVISIBLE}]")
_SLASH_RUN = re.compile("/*")


def _closes_skill(text: str, slash: int) -> bool:
    """Whether ``text`` reads as ``/skill`` from ``slash`` on, once look-alikes are folded
    (NFKC, any case, :data:`_LOOKALIKES`) and blanks and invisible characters are dropped; more
    slashes may lead. Plain ASCII after the slashes (nearly every tag) is read at once, the rest
    char by char."""
    start = _SLASH_RUN.match(text, slash + 1).end()  # type: ignore[union-attr]  # '/*' always matches
    window = text[start : start + 32]
    if window.isascii():  # NFKC leaves ASCII as it is and holds no format character
        letters = _HIDDEN.sub("", window).lower()
        if len(letters) >= 5 or start + 32 >= len(text):
            return letters.startswith("sk") and letters[2:5].translate(_LOOKALIKES) == _FOLDED_TAG[2:]
    letters = ""
    for index in range(slash, len(text)):
        for char in _folded(text[index]):
            if not letters and char in _SLASHES:
                continue
            letters += char
            if not _FOLDED_TAG.startswith(letters):
                return False
            if letters == _FOLDED_TAG:
                return True
    return False


@functools.lru_cache(maxsize=4096)
def _folded(char: str) -> str:
    """``char`` as :func:`_closes_skill` reads it: NFKC, case-folded, look-alikes folded
    (:data:`_LOOKALIKES`), blanks and invisible characters dropped."""
    return "".join(
        folded
        for folded in unicodedata.normalize("NFKC", char).casefold().translate(_LOOKALIKES)
        if not _HIDDEN.match(folded) and unicodedata.category(folded) != "Cf"
    )


def defused(text: str) -> str:
    """``text`` with a backslash before the slash of each closing ``skill`` tag (``</skill>``
    becomes ``<\\/skill>``, ``</ SKILL >`` ``<\\/ SKILL >``): the text cannot close a ``<skill>``
    block it is put in."""
    return _TAG_START.sub(
        lambda match: match[0] + "\\" if _closes_skill(text, match.end()) else match[0], text
    )
