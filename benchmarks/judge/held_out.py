"""A held-out set: 16 artifacts and 48 pairs that took no part in choosing the judge.

Written apart from `cases.CASES` (other topics, the same kinds, about half met) and graded
by no model until the defaults were chosen: only reported on (`--held-out`).
"""

from __future__ import annotations

from benchmarks.judge import cases as c
from benchmarks.judge.cases import Case, Pair, counted, has, lacks, valid_json, words_below

HELD_OUT: tuple[Case, ...] = (
    Case(
        "garden_autumn",
        "writing",
        "In autumn the maples turn red and the garden smells of wet leaves.",
        (
            Pair("season", c.SEASON, True, "names", has(c.SEASONS)),
            Pair("tree", "It names a kind of tree.", True, "names"),
            Pair("snow", "It mentions snow.", False, "absence", has(r"\bsnow")),
        ),
        family="short_form",
    ),
    Case(
        "menu_italian",
        "writing",
        "Oggi il ristorante offre pasta fresca e una torta al limone.",
        (
            Pair("italian", "It is written in Italian.", True, "language"),
            Pair("english", "It is written in English.", False, "language"),
            Pair("price", c.PRICE, False, "numbers", has(c.DOLLARS)),
        ),
        family="language",
    ),
    Case(
        "lamp_price",
        "writing",
        "The Glow desk lamp has three brightness levels and costs $39.",
        (
            Pair("price", c.PRICE, True, "numbers", has(c.DOLLARS)),
            Pair("levels", "It says how many brightness levels the lamp has.", True, "numbers"),
            Pair("battery", "It mentions a battery.", False, "absence", has(r"batter")),
        ),
        family="product",
    ),
    Case(
        "boots_not_warm",
        "writing",
        "These boots are not insulated, so they are best for mild weather.",
        (
            Pair("insulated", "It says the boots are insulated.", False, "negation"),
            Pair("weather", "It mentions the weather.", True, "presence", has(r"weather")),
            Pair("question", c.QUESTION, False, "question", has(r"\?")),
        ),
        family="product",
    ),
    Case(
        "library_hours",
        "writing",
        "The library is open from Monday to Friday, 9 am to 6 pm. Can we help you find a book?",
        (
            Pair("weekday", c.WEEKDAY, True, "names", has(c.WEEKDAYS)),
            Pair("question", c.QUESTION, True, "question", has(r"\?")),
            Pair("no_digits", c.NO_DIGITS, False, "absence", lacks(r"\d")),
        ),
        family="notice",
    ),
    Case(
        "fever_advice",
        "writing",
        "Drink plenty of fluids, and call your doctor if the fever lasts longer than two days.",
        (
            Pair("contact_doctor", "It advises the reader to contact a doctor.", True, "presence"),
            Pair("fluids", "It recommends drinking fluids.", True, "presence"),
            Pair("medicine", "It names a medicine.", False, "names"),
        ),
        family="explanation",
    ),
    Case(
        "interview_quote",
        "writing",
        'The coach said, "We trained every morning for a year." The team won the final.',
        (
            Pair("quotation", c.QUOTATION, True, "quoting", has(r'"[^"]+"')),
            Pair("won", "It says the team won.", True, "presence"),
            Pair("year", c.YEAR, False, "numbers", has(r"\b\d{4}\b")),
        ),
        family="notice",
    ),
    Case(
        "packing_list",
        "writing",
        "- Passport\n- Charger\n- Sunscreen\n- Hat\n- Towel",
        (
            Pair(
                "five_items",
                "It has exactly five bullet points.",
                True,
                "count",
                counted(r"^- ", 5),
            ),
            Pair("umbrella", "It lists an umbrella.", False, "absence", has(r"umbrella")),
            Pair(
                "three_items",
                "It has exactly three bullet points.",
                False,
                "count",
                counted(r"^- ", 3),
            ),
        ),
        family="short_form",
    ),
    Case(
        "short_notice",
        "writing",
        "Closed today for repairs.",
        (
            Pair("under_ten", "It has fewer than ten words.", True, "count", words_below(10)),
            Pair("reason", "It gives a reason for the closure.", True, "presence"),
            Pair("reopen_date", "It says when it will reopen.", False, "absence"),
        ),
        family="notice",
    ),
    Case(
        "museum_opened",
        "writing",
        "The museum opened in 1998 and holds more than forty thousand paintings.",
        (
            Pair("year", c.YEAR, True, "numbers", has(r"\b1998\b")),
            Pair("city", "It names a city.", False, "names"),
            Pair("sculptures", "It mentions sculptures.", False, "absence", has(r"sculpt")),
        ),
        family="notice",
    ),
    Case(
        "multiply_docstring",
        "code",
        'def multiply(x: int, y: int) -> int:\n    """Return x times y."""\n    return x * y\n',
        (
            Pair("docstring", c.DOCSTRING, True, "code", has(r'"""')),
            Pair("hints", c.TYPE_HINTS, True, "code", has(r"->")),
            Pair("loop", "It uses a for or while loop.", False, "absence", has(r"\b(for|while)\b")),
        ),
        family="code",
    ),
    Case(
        "count_words_loop",
        "code",
        "def count_words(lines):\n    total = 0\n    for line in lines:\n"
        "        total += len(line.split())\n    print(total)\n",
        (
            Pair("loop", "It uses a for or while loop.", True, "code", has(r"\bfor\b")),
            Pair("prints", "The function prints its result.", True, "code", has(r"\bprint\(")),
            Pair("docstring", c.DOCSTRING, False, "absence", has(r'"""|\'\'\'')),
        ),
        family="code",
    ),
    Case(
        "fetch_json",
        "code",
        "import json\nimport urllib.request\n\n\ndef fetch(url):\n"
        "    with urllib.request.urlopen(url) as reply:\n        return json.load(reply)\n",
        (
            Pair("imports", c.IMPORTS, True, "presence", has(r"^import ")),
            Pair("python", "It is written in Python.", True, "language"),
            Pair("retries", "It retries a failed request.", False, "code"),
        ),
        family="code",
    ),
    Case(
        "query_update",
        "code",
        "UPDATE orders SET status = 'shipped' WHERE id = 42;",
        (
            Pair("read_only", "The query only reads data and changes nothing.", False, "code"),
            Pair("where", "The query has a WHERE clause.", True, "presence", has(r"\bwhere\b")),
            Pair("join", "The query joins two tables.", False, "absence", has(r"\bjoin\b")),
        ),
        family="data",
    ),
    Case(
        "config_json_valid",
        "code",
        '{"port": 8080, "debug": false, "hosts": ["a.example", "b.example"]}',
        (
            Pair("valid_json", c.VALID_JSON, True, "code", valid_json),
            Pair("port", "It sets a port.", True, "presence", has(r'"port"')),
            Pair("timeout", "It has a timeout field.", False, "absence", has(r'"timeout"')),
        ),
        family="data",
    ),
    Case(
        "config_json_broken",
        "code",
        "{'port': 8080, 'debug': False}",
        (
            Pair("valid_json", c.VALID_JSON, False, "code", valid_json),
            Pair("port", "It sets a port.", True, "presence", has(r"'port'")),
            Pair("hosts", "It lists hosts.", False, "absence", has(r"hosts")),
        ),
        family="data",
    ),
)
"""The held-out pairs, in the order they are graded."""
