"""What counts as a secret value, and the finders regular expressions cannot express well.

- :func:`looks_like_credential`: a word that reads as a password or key, not as prose or code
  (``Hunter2Secret99``, not ``Manager2``, ``my-secret-v2`` or ``*oauth2.Token``).
- :func:`is_placeholder`, :func:`is_code_like`: values that are not secrets (``${TOKEN}``,
  ``<your-key>``, ``sk-xxxx``, ``get_password()``). A ``$`` followed by a name is a variable
  reference only when the name reads like one (``$DB_PASSWORD``, ``$db_pass``, ``$dbPass``):
  ``$Te7dCyUmSSwLH`` is a password that starts with ``$``.
- :func:`high_entropy_spans`: runs of 32+ token chars that look random; a dotted token
  (``v1.<random>``, a JWT with a non-JSON payload) is redacted whole.
- :func:`pem_tail_spans`: the key lines before an ``-----END ... PRIVATE KEY-----`` whose
  ``BEGIN`` line is elsewhere (a key split over two records).
- :func:`config_line_spans`: ``password: correct horse battery staple`` as a YAML, INI or
  dotenv line, where the value runs to the end of the line.

The entropy constants (32 chars, 4.2 bits a char, the letter-run limits) were chosen on the
skill corpora in ``../shared/corpora`` (no finding in prose or code that is not a secret) and
on generated tokens; the tests and ``bench/redact.py`` report on other data.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator

from skillshelf.memory.redact.matching import Views, anchor_starts
from skillshelf.memory.redact.rules import KEY_WORD_STARTS, KEY_WORDS
from skillshelf.memory.redact.rules_env import ENV_REFERENCE, ENV_SETTING_WORDS, ENV_URL

__all__ = [
    "HIGH_ENTROPY",
    "HIGH_ENTROPY_ASCII",
    "REDACTED",
    "config_line_spans",
    "high_entropy_spans",
    "is_code_like",
    "is_env_secret_value",
    "is_file_path",
    "is_named_stand_in",
    "is_placeholder",
    "looks_like_credential",
    "looks_random",
    "pem_tail_spans",
]

REDACTED = "[REDACTED_SECRET]"
_TOKEN_CHARS = r"A-Za-z0-9+/_=-"
HIGH_ENTROPY = re.compile(rf"(?<![{_TOKEN_CHARS}])[{_TOKEN_CHARS}]{{32,}}(?![{_TOKEN_CHARS}])")
HIGH_ENTROPY_ASCII = re.compile(HIGH_ENTROPY.pattern.encode("ascii"))
#: What a dotted token is made of around its random run (not ``=``: ``session=v1.<run>`` keeps its name).
_TOKEN_RUN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_SRI = re.compile(r"^sha(?:1|256|384|512)-[A-Za-z0-9+/]+$")  # a lock file's integrity digest
_BASE64_LINE = re.compile(r"^[A-Za-z0-9+/]{64}(?:[A-Za-z0-9+/]{6})?$")  # PEM (64) and OpenSSH (70) lines
# skillshelf's own rollout-summary file names (layout.summary_file_stem): UTC time, 4 base-62
# characters, a slug lowercased to [a-z0-9_] (redacted when the model wrote it), then ``.md``
_SUMMARY_STEM = re.compile(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-[A-Za-z0-9]{4}(?:-[a-z0-9_]{1,60})?(?:\.md)?")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_WORD = r"(?:[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+)"  # a word of a stand-in: key, r2, base58, 64, KEY
_MARKER = re.compile(r"EXAMPLE|example|x{4,}|X{4,}|\*{3,}|\.{3}|…|REDACTED|redacted|placeholder|PLACEHOLDER")
"""What marks a stand-in anywhere in a value (``sk-...``, ``AKIAIOSFODNN7EXAMPLE``)."""
_MARKER_OR_SPACE = re.compile(rf"{_MARKER.pattern}|\s+")
_MASK = re.compile(r"x{4,}|X{4,}|\*{3,}")
_MASKED_LEFT = 8  # a value masked in part with 8 or more characters beside the mask is a secret
_PLACEHOLDER = re.compile(
    r"^<.*>$|^\{\{.*\}\}$|^\$\{\{.*\}\}$|^\$\{[^}]*\}$|^%[A-Za-z_]+%$|^\$env:[A-Za-z_]\w*$"
    r"|^\$(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*|[a-z]+(?:[A-Z][a-z]+)+[0-9]?|[A-Z][a-z]+(?:[A-Z][a-z]+)*)$"
    rf"|^(?:your|YOUR|my|MY)[-_]{_WORD}(?:[-_]{_WORD})*(?![A-Za-z0-9_-])"
)
_REPEATED = re.compile(r"(.)\1{7,}")
_CODE_LIKE = re.compile(
    r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:[(\[].*)?$|^[a-z]+(?:_[a-z]+)+$"
    # a call (``getenv("X``, ``$client->create(``), a command substitution; not any "(": two of
    # three Django secret keys have one
    r"""|^[\s'".]*\$?(?:#?[A-Za-z_]\w*(?:\.|::|->|\?\.))*#?[A-Za-z_]\w{2,}\(|^["']?\$\(|\$\([a-z][\w-]* """
    r"""|^[A-Za-z_]\w*\[["']"""  # a subscript: config['db_password']
)
_PATH_LIKE = re.compile(r"^(?:~|\.{1,2})?/[^\s]*$")
#: What no file path a secret's key names holds: an empty segment, base64 padding, a password's symbols
_NOT_IN_PATH = re.compile(r"//|[=!#]")
#: A run of capitals, lower case or digits: a piece of a file name (``My``, ``Project``, ``2024``)
_NAME_PIECE = re.compile(r"[A-Z]+[a-z]*|[a-z]+|[0-9]+")
_NAME_PIECE_CHARS = 4  # a file name's pieces are this long on average; a random token's about 2
_PATH_SEPARATORS = re.compile(r"[/._-]")
_SECRET_PART_CHARS = 6


def is_placeholder(value: str) -> bool:
    """A stand-in, a variable reference, a redaction already made, or mostly one char repeated
    (``0000000000000000``; runs like the ``AAAAAAAA`` of key bodies do not count). ``your-`` and
    ``my_`` start a stand-in only when words follow (``your-api-key``, ``your_r2_secret_key``,
    ``MY_TOKEN&format=json``): ``my_Secret2024``, ``my-s3cret`` and ``MY-0000112233AbC`` are
    secrets. A marker (``xxxx``, ``...``, ``***``, ``EXAMPLE``) makes a stand-in only when what
    is left beside it, or all of it together, does not look random (:func:`looks_random`):
    ``sk-proj-abcd...wxyz`` and ``AKIAIOSFODNN7EXAMPLE`` are stand-ins, a real token with its
    last four characters masked (``ghp_<32 chars>XXXX``) or its middle cut out is a secret."""
    if REDACTED in value or _PLACEHOLDER.search(value):
        return True
    if _MARKER.search(value):
        # a token masked or cut in part is still a secret: ``ghp_<32 of its 36 chars>XXXX``,
        # ``000111234A***a``; ``sk-xxxx``, ``p***w0rd`` and ``sk-proj-abcd...wxyz`` are not
        if _MASK.search(value) and len(re.sub(r"[\s_.-]", "", _MARKER.sub("", value))) >= _MASKED_LEFT:
            return False
        pieces = (*_MARKER_OR_SPACE.split(value), _MARKER_OR_SPACE.sub("", value))
        return not any(_random_shape(piece) for piece in pieces)
    run = _REPEATED.search(value)
    return run is not None and len(run.group()) * 3 >= len(value) * 2


def is_code_like(value: str, *, paths: bool = False) -> bool:
    """An expression (``os.environ[...]``, ``get_password()``), or with ``paths`` a file path
    (``/run/secrets/db``, ``~/.pgpass``: what ``PWD=`` and ``token_file:`` hold; see
    :func:`is_file_path`)."""
    return bool(_CODE_LIKE.search(value) or (paths and is_file_path(value)))


def is_file_path(value: str) -> bool:
    """A file path (``/run/secrets/db``, ``~/.pgpass``, ``/home/me/MyProject2024``), not a secret
    that opens with ``/``: a base64 key (``/QUl2Z94FHmk/TLSaYxTN0I``, ``/7qkFZ+jP6ODZ==``) or a
    password (``/Hx#K9...``). A path has no ``//``, ``=``, ``!`` or ``#``, and no part of a name
    (between ``/``, ``.``, ``_`` and ``-``) of 6 chars or more mixes three of lower case,
    capitals, digits and symbols unless it is made of words and numbers (pieces of 4 characters
    on average: ``MyProject2024``, ``DirectX12Agility``; random letters and digits average about
    2). Short names that mix them (``Qt5Core``, ``MyApp2``) count as secrets under a secret's key."""
    if not _PATH_LIKE.match(value) or _NOT_IN_PATH.search(value):
        return False
    parts = _PATH_SEPARATORS.split(value.rstrip(")]}"))  # a bracket around the value is no part of it
    return not any(_secret_part(part) for part in parts if part)


def _secret_part(part: str) -> bool:
    """A part of a file name (between ``/``, ``-``, ``_`` and ``.``) that reads as a credential:
    6 chars or more, three of lower case, capitals, digits and symbols, not made of words and
    numbers."""
    if len(part) < _SECRET_PART_CHARS or _NOT_IN_CREDENTIAL.search(part):
        return False
    if sum(bool(c.search(part)) for c in _CREDENTIAL_CLASSES) + bool(_SYMBOL.search(part)) < 3:
        return False
    pieces = _NAME_PIECE.findall(part)
    return not pieces or sum(map(len, pieces)) < _NAME_PIECE_CHARS * len(pieces)


_NAMED_STAND_IN = re.compile(r"[A-Z]{2,}(?:_[A-Z]{2,})*")


def is_named_stand_in(value: str) -> bool:
    """A name in capitals written where the value goes (``PASSWORD``, ``LOCAL_API_KEY``): how
    commands and code are shown in documentation. Capitals with a digit (``HUNTER22``) are a
    value; so is anything beside an assignment's key, where ``SECRET=ABCDEFGHIJKL`` may be one."""
    return _NAMED_STAND_IN.fullmatch(value) is not None


_CREDENTIAL_CLASSES = (re.compile(r"[a-z]"), re.compile(r"[A-Z]"), re.compile(r"[0-9]"))
#: ASCII punctuation but ``_``, ``-`` and ``.``, which identifiers, names and versions hold
_SYMBOL = re.compile(r"[!-,/:-@\[\\\]^`{-~]")
#: What a word of prose or code is not: a path, a URL, a call or subscript, a list, markup
_NOT_IN_CREDENTIAL = re.compile(r"[/\\()\[\]{}<>|,;]")
_WORD_AND_NUMBER = re.compile(r"[A-Za-z][a-z]+[0-9]+|[0-9]+[A-Za-z][a-z]+|0[xX][0-9A-Fa-f]+")


def looks_like_credential(value: str) -> bool:
    """A word that reads as a password or a key where a sentence names one (``the password
    Hunter2Secret99 works``), not prose or code: 8 to 128 chars, three of lower case, capitals,
    digits and symbols (``_``, ``-`` and ``.`` are no symbols: ``my-secret-v2``, ``o200k_base``
    and ``v1.2.3`` stay), none of ``/\\()[]{}<>|,;`` (paths, URLs, calls, types, lists, markup),
    not opening with ``-``, ``=``, ``*`` or ``&`` (an option, an operator, a pointer type), not one
    word and a number (``Manager2``, ``Summer2024``; ``Summer#2024`` counts) nor a ``0x`` number,
    and no placeholder or expression. Lower case and digits alone (``s3cr3tpass``) are not
    enough: kebab and snake names with versions have that shape too."""
    if not 8 <= len(value) <= 128 or value[0] in "-=*&" or _NOT_IN_CREDENTIAL.search(value):
        return False
    classes = sum(bool(c.search(value)) for c in _CREDENTIAL_CLASSES) + bool(_SYMBOL.search(value))
    if classes < 3 or _WORD_AND_NUMBER.fullmatch(value):
        return False
    return not is_placeholder(value) and not is_code_like(value, paths=True)


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def looks_random(value: str) -> bool:
    """A random token rather than a word, an identifier, a digest or a path.

    A full PEM or OpenSSH body line (64 or 70 base64 chars) skips the letter-run test: key
    bodies of a key split over records have no ``BEGIN`` line to be found by."""
    return _random_shape(value) and not is_placeholder(value.strip("="))


def _random_shape(value: str) -> bool:
    """:func:`looks_random` but for the stand-in test."""
    stripped = value.strip("=")
    if len(stripped) < 32 or _HEX.match(stripped) or _UUID.search(stripped) or _SRI.match(stripped):
        return False
    classes = sum(bool(re.search(p, stripped)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]"))
    key_line = bool(_BASE64_LINE.match(value))
    if sum(c.isdigit() for c in stripped) < 2 or (not key_line and _wordy(stripped)):
        return False  # identifiers and words: long runs of letters, hardly any digits
    if classes < 3 or stripped.count("/") > len(stripped) // 8 or stripped.count("-") > len(stripped) // 6:
        return False
    return _entropy(stripped) >= 4.2


_LETTER_RUN = re.compile(r"[a-z]{8,}|[A-Z]{16,}")
# a word between separators: lower case, capitals or capitalised (random letters mix their case)
_LETTER_SEGMENT = re.compile(r"(?<![A-Za-z0-9])(?:[a-z]{4,}|[A-Z]{4,}|[A-Z][a-z]{3,})(?![A-Za-z0-9])")
_RUN_SHARE = 0.15
_RUN_FREE_BELOW = 54


def _wordy(value: str) -> bool:
    """Words or an identifier rather than a random token. Under :data:`_RUN_FREE_BELOW` chars:
    any letter run (8 or more lower-case letters, 16 or more capitals). Longer: runs covering
    more than :data:`_RUN_SHARE` of it, or two words of 4 letters or more, each in one case or
    capitalised, between separators (``/TRI_RELEASE_QTY/``, ``-see-tinyurl-dot-com-``): a long
    random token holds a run by chance (a 180-char one in one case of ten), but seldom much of
    its length in them, and its letters between two ``/`` mix their case.

    Chosen on generated tokens (random base62, base64 and base64url of 32 to 600 chars) and on
    ``../shared/corpora``. With any run counting, 9.5 % of 180-char and 16 % of 300-char base62
    tokens were kept; now at most 0.6 % at any length from 64 chars up. Of the corpus's 2,336
    runs of 54 chars or more, 6 are found (4 base64 texts, a signed image URL, an identifier);
    any all-letter segment as a word would keep 12 % of 180-char base64 tokens, no segment test
    would find 29 corpus runs (URL paths, folder names)."""
    covered = sum(len(run) for run in _LETTER_RUN.findall(value))
    if len(value) < _RUN_FREE_BELOW:
        return covered > 0
    return covered > _RUN_SHARE * len(value) or len(_LETTER_SEGMENT.findall(value)) >= 2


def _dotted_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen [start, end) over the dotted token it belongs to (``v1.<run>``, ``<a>.<b>.<c>``)."""
    while start >= 2 and text[start - 1] == "." and text[start - 2] in _TOKEN_RUN:
        start -= 1
        while start > 0 and text[start - 1] in _TOKEN_RUN:
            start -= 1
    while end + 1 < len(text) and text[end] == "." and text[end + 1] in _TOKEN_RUN:
        end += 1
        while end < len(text) and text[end] in _TOKEN_RUN:
            end += 1
    return start, end


def _pieces(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """A run split at each ``=`` before its padding (``AccountKey=<key>``: the name stays)."""
    core = text[start:end].rstrip("=")
    if "=" not in core:
        yield start, end
        return
    at = start
    for piece in core.split("="):
        piece_end = at + len(piece)
        yield at, (end if piece_end == start + len(core) else piece_end)
        at = piece_end + 1


def high_entropy_spans(
    views: Views, covered: Callable[[int, int], bool] = lambda start, end: False
) -> Iterator[tuple[int, int]]:
    """Random-looking runs, each widened over its dotted token; runs ``covered`` (inside what a
    rule found already) are not looked at, and skillshelf's own rollout-summary file names
    (``2026-12-07T06-03-39-paZU-deploy_staging.md``) are no secret."""
    text = views.text
    for match in HIGH_ENTROPY_ASCII.finditer(views.ascii):  # ASCII classes only: same spans as on the text
        if covered(match.start(), match.end()):
            continue
        for start, end in _pieces(text, match.start(), match.end()):
            if end - start >= 32 and looks_random(text[start:end]):
                span = _dotted_span(text, start, end)
                if not _SUMMARY_STEM.fullmatch(text, *span):
                    yield span


_PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_KEY_BODY_LINE = re.compile(r"[ \t]*[A-Za-z0-9+/=]*[ \t]*(?:\\r|\r)?")
_PEM_TAIL_REACH = 65_536  # far more than the body of any private key (RSA 16384: about 12 KB)


def _line_before(text: str, pos: int, floor: int) -> tuple[int, int]:
    """(start of the line that ends at ``pos``, start of the break before it or -1): lines
    break at a newline or a JSON-escaped ``\\n``."""
    real = text.rfind("\n", floor, pos)
    escaped = text.rfind("\\n", max(real, floor), pos)  # only after the last real break
    if real < 0 and escaped < 0:
        return floor, -1
    if real > escaped:
        return real + 1, real
    return escaped + 2, escaped


def pem_tail_spans(views: Views) -> Iterator[tuple[int, int]]:
    """Key body lines right before an ``END ... PRIVATE KEY`` line (back to the first other line)."""
    if b"PRIVATE KEY" not in views.ascii:
        return
    text = views.text
    for end_match in _PEM_END.finditer(text):
        floor = max(0, end_match.start() - _PEM_TAIL_REACH)
        pos, first = end_match.start(), end_match.start()
        while pos > floor:
            start, brk = _line_before(text, pos, floor)
            if not _KEY_BODY_LINE.fullmatch(text, start, pos):
                break
            if text[start:pos].strip(" \t\r\\"):
                first = start
            if brk < 0:
                break
            pos = brk
        body = text[first : end_match.start()]
        stripped = body.rstrip(" \t\r\n").removesuffix("\\n").rstrip(" \t\r\\")
        if stripped:
            yield first, first + len(stripped)


_CONFIG_LINE = re.compile(
    r"[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?[A-Za-z0-9_.-]*?(?:" + KEY_WORDS + r")[\"']?[ \t]*[:=][ \t]*"
    r"(?P<v>[^\s\"'`#|>&{\[(\\][^\r\n#\"'`\\]*?)[ \t]*(?:[ \t]#[^\r\n]*)?(?=\r?\n|\Z)",
    re.IGNORECASE,
)
_CODE_PUNCTUATION = re.compile(r"[()\[\]{}=<>;]|,\s*[A-Za-z_]\w*\s*:|,$")  # and parameter lists
# a shell assignment before a command (``PGPASSWORD=X psql -h db``): the value ends at the space
_SHELL_PREFIX = re.compile(
    r"[ \t]*(?:export[ \t]+)?[A-Za-z0-9_.-]*?(?:" + KEY_WORDS + r")=(?P<v>[^\s\"'`;&|]{4,})"
    r"[ \t]+(?:[^\r\n]*?[ \t])?(?:--?[A-Za-z]|&&|\|)",
    re.IGNORECASE,
)


def config_line_spans(views: Views) -> Iterator[tuple[int, int]]:
    """Values with spaces on ``KEY: value`` / ``KEY = value`` lines whose key names a secret."""
    text = views.text
    seen: set[int] = set()
    for at in anchor_starts(KEY_WORD_STARTS, (0, 0), views, folded_view=True):
        line = text.rfind("\n", 0, at) + 1
        if line in seen:
            continue
        seen.add(line)
        shell = _SHELL_PREFIX.match(text, line)
        if shell is not None:
            word = shell.group("v")
            if not is_placeholder(word) and not is_code_like(word, paths=True):
                yield shell.span("v")
            continue
        match = _CONFIG_LINE.match(text, line)
        if match is None:
            continue
        value = match.group("v")
        spaced = " " in value and len(value) >= 8
        if spaced and not _CODE_PUNCTUATION.search(value) and not is_placeholder(value):
            yield match.span("v")


_MIN_ENV_VALUE = 6
_MIN_ENV_NUMBER_DIGITS = 10
_ENV_REFERENCE = re.compile(r"^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?.*|\$\(.*|<[^>]*>|\{\{.*\}\}|%[A-Za-z_]+%)$")
_ENV_OWN = re.compile(r"^(?:my|MY|your|YOUR)[-_]")
_ENV_NUMBER = re.compile(r"^[+-]?[\d_.,]+[kKmMgG]?$")
#: A relative path (``.cache/tokens``, ``secrets/db.txt``) or a file name (``service-account.json``)
_ENV_RELATIVE = re.compile(
    r"^[\w.-]+(?:/[\w.-]*)+$|^[\w.-]+\.(?:json|txt|pem|key|crt|env|ya?ml|toml|ini|cfg|conf|p12)$"
)


def is_env_secret_value(value: str) -> bool:
    """Whether ``value``, assigned to a variable named for a secret, is one (see
    :mod:`.rules_env`): not a reference or a call (:data:`~.rules_env.ENV_REFERENCE`), a stand-in
    (:func:`is_placeholder`; a ``my-...`` value with a digit counts as a value), a short number, a
    word for a setting, a file path (absolute or relative) or a URL with no user part or query
    whose path parts do not read as credentials."""
    if len(value) < _MIN_ENV_VALUE or _ENV_REFERENCE.match(value) or ENV_REFERENCE.search(value):
        return False
    if is_placeholder(value) and not (_ENV_OWN.match(value) and any(c.isdigit() for c in value)):
        return False  # a stand-in (sk-xxxx, EXAMPLE, a marker), but my-gateway-key-0001 is a value
    if _ENV_NUMBER.match(value) and sum(c.isdigit() for c in value) < _MIN_ENV_NUMBER_DIGITS:
        return False
    if value.lower() in ENV_SETTING_WORDS or is_file_path(value):
        return False
    url = ENV_URL.match(value)
    named = (url.group("path") or "") if url else value if _ENV_RELATIVE.match(value) else None
    return named is None or any(_secret_part(part) for part in _PATH_SEPARATORS.split(named) if part)
