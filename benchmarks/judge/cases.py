"""The judge benchmark's labelled set: artifacts, criteria and the labels any reader agrees on.

This module is the set's source of truth (`labels.jsonl`, which `critic-loop calibrate`
reads, is built from it by `python -m benchmarks.judge.labelset --write`). Every artifact
comes with two or three `llm` criteria, each labelled True (met) or False (not met). The
criteria are the kinds small judges get wrong: counts, absence, language, "names X",
quoting, negation, numbers, questions, and what a piece of code does. Their ids are the
kind users write (`season`, `french`, `price`), and some criterion texts give examples
(`spring`, `summer`) that a weak judge echoes back as ids.

Where code can decide a label (a count, the presence of a word, valid JSON), the pair
carries an `oracle`: a function of the artifact that returns the label, so a mislabel
fails `tests/benchmarks/test_judge_set.py`. Labels no code can decide (meaning, language,
what code does) were written so that any reader agrees: nothing depends on taste.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

Trap = Literal[
    "count",
    "absence",
    "language",
    "names",
    "quoting",
    "negation",
    "numbers",
    "question",
    "presence",
    "code",
]
"""Why a criterion is hard for a small judge."""


@dataclass(frozen=True)
class Pair:
    """One criterion of an artifact, its label and what makes it hard."""

    id: str
    text: str
    label: bool
    trap: Trap
    oracle: Callable[[str], bool] | None = None
    """Decides the label from the artifact alone, where code can (checked by the tests)."""


Family = Literal[
    "product",
    "notice",
    "explanation",
    "message",
    "short_form",
    "language",
    "code",
    "data",
    "run_draft",
    "degenerate",
]
"""The kind of text and criteria a case belongs to: the unit a judge is fitted and measured
on leave-one-family-out. `product`: product copy and prices; `notice`: notices,
announcements, reports and short stories; `explanation`: explanations and advice;
`message`: messages and emails; `short_form`: poems, slogans and lists; `language`: text
in a language other than English, or criteria about its language; `code`: functions in
Python and JavaScript; `data`: queries, JSON, settings and scripts; `run_draft`: drafts
and revisions the loop's own runs produced (echoes and pasted hints among them);
`degenerate`: a title, topic words, a truncated sentence, a refusal, one word."""


@dataclass(frozen=True)
class Case:
    """An artifact, its labelled criteria and its family."""

    id: str
    kind: Literal["writing", "code"]
    artifact: str
    pairs: tuple[Pair, ...] = field(default_factory=tuple)
    family: Family = field(kw_only=True)


def has(pattern: str, flags: int = re.IGNORECASE) -> Callable[[str], bool]:
    """Return an oracle: does the artifact match `pattern` (case ignored by default)?"""
    return lambda artifact: re.search(pattern, artifact, flags | re.MULTILINE) is not None


def lacks(pattern: str, flags: int = re.IGNORECASE) -> Callable[[str], bool]:
    """Return an oracle: does the artifact not match `pattern`?"""
    return lambda artifact: re.search(pattern, artifact, flags | re.MULTILINE) is None


def counted(pattern: str, expected: int, flags: int = re.MULTILINE) -> Callable[[str], bool]:
    """Return an oracle: does `pattern` occur exactly `expected` times?"""
    return lambda artifact: len(re.findall(pattern, artifact, flags)) == expected


def words_below(limit: int) -> Callable[[str], bool]:
    """Return an oracle: has the artifact fewer than `limit` words?"""
    return lambda artifact: len(artifact.split()) < limit


def valid_json(artifact: str) -> bool:
    """Tell whether the artifact parses as JSON (an oracle)."""
    try:
        json.loads(artifact)
    except ValueError:
        return False
    return True


SEASON = "It names a season (spring, summer, autumn or winter)."
SEASONS = r"\b(spring|summer|autumn|winter)\b"
FRENCH = "It is written in French."
ENGLISH = "It is written in English."
QUESTION = "It asks a question."
PRICE = "It states a price in dollars."
DOLLARS = r"\$\s?\d|\d+\s*dollars?\b"
WATERPROOF = "It says the product is waterproof."
DOCTOR = "It advises the reader to see a doctor."
THREE_BULLETS = "It has exactly three bullet points."
UNDER_TEN = "It has fewer than ten words."
QUOTATION = "It includes a direct quotation in double quotes."
YEAR = "It states a year."
NO_DIGITS = "It contains no digits."
NO_EXCLAMATION = "It does not use an exclamation mark."
DOCSTRING = "The function has a docstring."
PRINTS = "The function prints its result."
EMPTY_LIST = "It handles an empty list without raising an error."
TYPE_HINTS = "The function has type hints."
RECURSION = "The function calls itself (it is recursive)."
IMPORTS = "It imports a module."
VALID_JSON = "It is valid JSON."
WEEKDAY = "It names a day of the week."
WEEKDAYS = r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
CITY = "It names a city."
DATE = "It gives a calendar date such as 3 May."
SPANISH = "It is written in Spanish."
PORTUGUESE = "It is written in Portuguese."
ASKS_READER = "It asks the reader a question."
POLITE = "It asks politely, without threats or demands."
STDLIB_ONLY = "It imports nothing outside the Python standard library."
RETURNS_SECTION = "Its docstring has a Returns: section."

CASES: tuple[Case, ...] = (
    # --- writing ---------------------------------------------------------------------
    Case(
        "haiku_rain",
        "writing",
        "Raindrops fall,\nSilent clouds dance,\nWhispers of rain.",
        (
            Pair("season", SEASON, False, "names", has(SEASONS)),
            Pair("lines", "It has exactly three lines.", True, "count", counted(r"^.+$", 3)),
            Pair("syllables", "Its three lines have 5, 7 and 5 syllables.", False, "count"),
        ),
        family="short_form",
    ),
    Case(
        "haiku_winter",
        "writing",
        "Cold winter morning,\nsnow settles on the quiet pond,\na heron waits there.",
        (
            Pair("season", SEASON, True, "names", has(SEASONS)),
            Pair("bird", "It mentions a bird.", True, "names"),
            Pair("rain", "It mentions rain.", False, "absence", has(r"\brain")),
        ),
        family="short_form",
    ),
    Case(
        "train_english",
        "writing",
        "The train leaves at eight, and we will arrive before noon.",
        (
            Pair("french", FRENCH, False, "language"),
            Pair("departure", "It says when the train leaves.", True, "numbers"),
            Pair("question", QUESTION, False, "question", has(r"\?")),
        ),
        family="language",
    ),
    Case(
        "train_french",
        "writing",
        "Le train part à huit heures et nous arriverons avant midi.",
        (
            Pair("french", FRENCH, True, "language"),
            Pair("english", ENGLISH, False, "language"),
            Pair("price", PRICE, False, "numbers", has(DOLLARS)),
        ),
        family="language",
    ),
    Case(
        "station_spanish",
        "writing",
        "¿Dónde está la estación de tren? Necesito llegar antes de las nueve.",
        (
            Pair("spanish", "It is written in Spanish.", True, "language"),
            Pair("question", QUESTION, True, "question", has(r"\?")),
            Pair("french", FRENCH, False, "language"),
        ),
        family="language",
    ),
    Case(
        "delay_german",
        "writing",
        "Der Zug hat zehn Minuten Verspätung. Bitte warten Sie am Gleis drei.",
        (
            Pair("german", "It is written in German.", True, "language"),
            Pair("english", ENGLISH, False, "language"),
            Pair("late", "It says the train is late.", True, "presence"),
        ),
        family="language",
    ),
    Case(
        "bottle_price",
        "writing",
        "The TrailFlask keeps drinks cold for 24 hours. It costs $29 and ships free. Order now.",
        (
            Pair("price", PRICE, True, "numbers", has(DOLLARS)),
            Pair("waterproof", WATERPROOF, False, "absence", has(r"waterproof")),
            Pair("cold_24h", "It says drinks stay cold for 24 hours.", True, "numbers"),
        ),
        family="product",
    ),
    Case(
        "jacket_waterproof",
        "writing",
        "Our StormShell jacket is fully waterproof and weighs only 400 grams. "
        "Available in three colours.",
        (
            Pair("waterproof", WATERPROOF, True, "presence", has(r"waterproof")),
            Pair("price", PRICE, False, "numbers", has(DOLLARS)),
            Pair("weight", "It states the jacket's weight in grams.", True, "numbers"),
        ),
        family="product",
    ),
    Case(
        "jacket_not_waterproof",
        "writing",
        "This jacket is not waterproof, so keep it for dry days. It costs 45 dollars.",
        (
            Pair("waterproof", WATERPROOF, False, "negation"),
            Pair("price", PRICE, True, "numbers", has(DOLLARS)),
            Pair("dry_days", "It tells the reader to wear it on dry days.", True, "presence"),
        ),
        family="product",
    ),
    Case(
        "pain_doctor",
        "writing",
        "If the pain lasts more than three days, see a doctor. Until then, rest and drink water.",
        (
            Pair("doctor", DOCTOR, True, "presence", has(r"see a doctor")),
            Pair("days", "It says how many days to wait.", True, "numbers"),
            Pair("medicine", "It names a medicine.", False, "names"),
        ),
        family="explanation",
    ),
    Case(
        "cold_no_doctor",
        "writing",
        "A mild cold usually clears up on its own. Rest, drink warm tea and sleep early.",
        (
            Pair("doctor", DOCTOR, False, "absence", has(r"doctor|physician")),
            Pair("rest", "It recommends rest.", True, "presence", has(r"\brest\b")),
            Pair("question", QUESTION, False, "question", has(r"\?")),
        ),
        family="explanation",
    ),
    Case(
        "bruise_negated",
        "writing",
        "You do not need to see a doctor for a small bruise; a cold compress is enough.",
        (
            Pair("doctor", DOCTOR, False, "negation"),
            Pair("compress", "It suggests a cold compress.", True, "presence"),
            Pair("injury", "It names an injury.", True, "names"),
        ),
        family="explanation",
    ),
    Case(
        "shopping_four",
        "writing",
        "- Flour\n- Sugar\n- Eggs\n- Butter",
        (
            Pair("three_items", THREE_BULLETS, False, "count", counted(r"^- ", 3)),
            Pair("eggs", "It lists eggs.", True, "presence", has(r"\beggs\b")),
            Pair("milk", "It lists milk.", False, "absence", has(r"\bmilk\b")),
        ),
        family="short_form",
    ),
    Case(
        "trip_three",
        "writing",
        "- Check the tyres\n- Fill the tank\n- Pack the map",
        (
            Pair("three_items", THREE_BULLETS, True, "count", counted(r"^- ", 3)),
            Pair("tyres", "It mentions tyres.", True, "presence", has(r"\btyres\b")),
            Pair("numbered", "It is a numbered list.", False, "count", has(r"^\d+[.)]")),
        ),
        family="short_form",
    ),
    Case(
        "order_short",
        "writing",
        "Thanks for your order. It ships tomorrow.",
        (
            Pair("under_ten", UNDER_TEN, True, "count", words_below(10)),
            Pair("thanks", "It thanks the customer.", True, "presence", has(r"\bthank")),
            Pair("date", "It gives a calendar date such as 3 May.", False, "numbers", has(r"\d")),
        ),
        family="message",
    ),
    Case(
        "order_long",
        "writing",
        "We are delighted to let you know that your order has been packed with care and "
        "will leave our warehouse tomorrow morning by courier.",
        (
            Pair("under_ten", UNDER_TEN, False, "count", words_below(10)),
            Pair("thanks", "It thanks the customer.", False, "absence", has(r"\bthank")),
            Pair("delivery", "It says how the order will be delivered.", True, "presence"),
        ),
        family="message",
    ),
    Case(
        "launch_quote",
        "writing",
        'As Ada said at the launch, "We built this for the people who fix things." '
        "The crowd applauded.",
        (
            Pair("quotation", QUOTATION, True, "quoting", has(r'"[^"]+"')),
            Pair("person", "It names a person.", True, "names"),
            Pair("year", YEAR, False, "numbers", has(r"\b\d{4}\b")),
        ),
        family="notice",
    ),
    Case(
        "launch_reported",
        "writing",
        "Ada told the crowd that the tool was built for the people who fix things.",
        (
            Pair("quotation", QUOTATION, False, "quoting", has(r'"')),
            Pair("person", "It names a person.", True, "names"),
            Pair("crowd", "It mentions an audience or a crowd.", True, "presence"),
        ),
        family="notice",
    ),
    Case(
        "bridge_numbers",
        "writing",
        "The bridge opened in 1932 and is 503 metres long.",
        (
            Pair("year", YEAR, True, "numbers", has(r"\b1932\b")),
            Pair(
                "km",
                "It gives the bridge's length in kilometres.",
                False,
                "numbers",
                has(r"kilomet|\bkm\b"),
            ),
            Pair("city", "It names a city.", False, "names"),
        ),
        family="notice",
    ),
    Case(
        "bridge_sydney",
        "writing",
        "Sydney's Harbour Bridge is a steel arch bridge that carries rail, road and foot traffic.",
        (
            Pair("city", "It names a city.", True, "names"),
            Pair("year", YEAR, False, "numbers", has(r"\d")),
            Pair("material", "It says what the bridge is made of.", True, "presence"),
        ),
        family="notice",
    ),
    Case(
        "sky_question",
        "writing",
        "Have you ever wondered why the sky turns red at sunset?",
        (
            Pair("question", QUESTION, True, "question", has(r"\?")),
            Pair("sunset", "It mentions sunset.", True, "presence", has(r"sunset")),
            Pair("explains", "It explains why the sky turns red.", False, "absence"),
        ),
        family="explanation",
    ),
    Case(
        "sky_answer",
        "writing",
        "The sky turns red at sunset because the air scatters blue light, and red light "
        "travels farthest.",
        (
            Pair("question", QUESTION, False, "question", has(r"\?")),
            Pair("explains", "It explains why the sky turns red.", True, "presence"),
            Pair("exclamation", "It contains an exclamation mark.", False, "count", has(r"!")),
        ),
        family="explanation",
    ),
    Case(
        "meeting_moved",
        "writing",
        "Hi Sam,\n\nThe meeting moved to Thursday at 3 pm in room 4B. Please bring the budget "
        "figures.\n\nBest,\nLena",
        (
            Pair("weekday", WEEKDAY, True, "names", has(WEEKDAYS)),
            Pair("signed", "It is signed with a name.", True, "names"),
            Pair("apology", "It apologises.", False, "absence", has(r"sorry|apolog")),
        ),
        family="message",
    ),
    Case(
        "standup_cancelled",
        "writing",
        "Hello team,\n\nSorry for the late notice: today's stand-up is cancelled. We will "
        "meet again next week.\n\nMarta",
        (
            Pair("apology", "It apologises.", True, "presence", has(r"sorry")),
            Pair("weekday", WEEKDAY, False, "names", has(WEEKDAYS)),
            Pair("cancelled", "It says a meeting is cancelled.", True, "presence"),
        ),
        family="message",
    ),
    Case(
        "report_words",
        "writing",
        "The report finds that remote staff work longer hours but take fewer sick days. "
        "It recommends flexible schedules.",
        (
            Pair("no_digits", NO_DIGITS, True, "absence", lacks(r"\d")),
            Pair("recommends", "It makes a recommendation.", True, "presence"),
            Pair("more_sick", "It says remote staff take more sick days.", False, "negation"),
        ),
        family="notice",
    ),
    Case(
        "sales_digits",
        "writing",
        "Sales rose 12% in 2023, led by the northern region; costs fell 3%.",
        (
            Pair("no_digits", NO_DIGITS, False, "absence", lacks(r"\d")),
            Pair("sales_up", "It says sales rose.", True, "presence"),
            Pair("costs_up", "It says costs rose.", False, "negation"),
        ),
        family="notice",
    ),
    Case(
        "dishwasher_warning",
        "writing",
        "Keep the lid closed. Do not put the bottle in the dishwasher.",
        (
            Pair("dishwasher", "It says the bottle is dishwasher safe.", False, "negation"),
            Pair(
                "two_sentences",
                "It has exactly two sentences.",
                True,
                "count",
                counted(r"[.!?](\s|$)", 2),
            ),
            Pair("lid", "It mentions the lid.", True, "presence", has(r"\blid\b")),
        ),
        family="product",
    ),
    Case(
        "bread_calm",
        "writing",
        "Fresh bread, every morning, from our oven to your table.",
        (
            Pair("no_exclamation", NO_EXCLAMATION, True, "absence", lacks(r"!")),
            Pair("bread", "It mentions bread.", True, "presence", has(r"\bbread\b")),
            Pair("price", PRICE, False, "numbers", has(DOLLARS)),
        ),
        family="product",
    ),
    Case(
        "bread_loud",
        "writing",
        "Fresh bread every morning! Only $3 a loaf!",
        (
            Pair("no_exclamation", NO_EXCLAMATION, False, "absence", lacks(r"!")),
            Pair("price", PRICE, True, "numbers", has(DOLLARS)),
            Pair("home_delivery", "It offers home delivery.", False, "absence"),
        ),
        family="product",
    ),
    Case(
        "curie",
        "writing",
        "Marie Curie won two Nobel Prizes, one in physics and one in chemistry.",
        (
            Pair("two_prizes", "It says she won two Nobel Prizes.", True, "numbers"),
            Pair(
                "birthplace",
                "It names the country where she was born.",
                False,
                "names",
                has(r"poland|france"),
            ),
            Pair("fields", "It names two fields of science.", True, "names"),
        ),
        family="notice",
    ),
    Case(
        "readme_two_headings",
        "writing",
        "# Install\n\nRun pip install critic-loop.\n\n# Usage\n\nRun critic-loop demo.",
        (
            Pair(
                "two_headings", "It has exactly two headings.", True, "count", counted(r"^#+ ", 2)
            ),
            Pair("install", "It says how to install the tool.", True, "presence"),
            Pair("license", "It has a License section.", False, "absence", has(r"licen[cs]e")),
        ),
        family="notice",
    ),
    Case(
        "refund_policy",
        "writing",
        "Refunds are paid back to your card within five working days of the request.",
        (
            Pair("question", QUESTION, False, "question", has(r"\?")),
            Pair("price", PRICE, False, "numbers", has(DOLLARS)),
            Pair("weekday", WEEKDAY, False, "names", has(WEEKDAYS)),
        ),
        family="notice",
    ),
    Case(
        "card_single_quotes",
        "writing",
        "She wrote 'see you soon' on the card and left it by the door.",
        (
            Pair("quotation", QUOTATION, False, "quoting", has(r'"')),
            Pair("person", "It names a person.", False, "names"),
            Pair("card", "It mentions a card.", True, "presence", has(r"\bcard\b")),
        ),
        family="notice",
    ),
    # --- code ------------------------------------------------------------------------
    Case(
        "add_docstring",
        "code",
        'def add(a, b):\n    """Return the sum of a and b."""\n    return a + b\n',
        (
            Pair("docstring", DOCSTRING, True, "code", has(r'"""')),
            Pair("two_params", "The function takes exactly two parameters.", True, "count"),
            Pair("prints", PRINTS, False, "code", has(r"\bprint\(")),
        ),
        family="code",
    ),
    Case(
        "add_prints",
        "code",
        "def add(a, b):\n    print(a + b)\n",
        (
            Pair("docstring", DOCSTRING, False, "absence", has(r'"""|\'\'\'')),
            Pair("prints", PRINTS, True, "code", has(r"\bprint\(")),
            Pair("returns", "The function returns its result.", False, "code", has(r"\breturn\b")),
        ),
        family="code",
    ),
    Case(
        "average_guarded",
        "code",
        "def average(numbers):\n    if not numbers:\n        return 0.0\n"
        "    return sum(numbers) / len(numbers)\n",
        (
            Pair("empty", EMPTY_LIST, True, "code"),
            Pair("hints", TYPE_HINTS, False, "absence", has(r"->|\w+:\s*(list|int|float)")),
            Pair("loop", "It uses a for or while loop.", False, "absence", has(r"\b(for|while)\b")),
        ),
        family="code",
    ),
    Case(
        "average_unguarded",
        "code",
        "def average(numbers: list[float]) -> float:\n    total = 0.0\n    for n in numbers:\n"
        "        total += n\n    return total / len(numbers)\n",
        (
            Pair("empty", EMPTY_LIST, False, "code"),
            Pair("hints", TYPE_HINTS, True, "code", has(r"->")),
            Pair("loop", "It uses a for or while loop.", True, "code", has(r"\bfor\b")),
        ),
        family="code",
    ),
    Case(
        "factorial_recursive",
        "code",
        "def factorial(n):\n    if n <= 1:\n        return 1\n    return n * factorial(n - 1)\n",
        (
            Pair("recursive", RECURSION, True, "code", counted(r"factorial\(", 2)),
            Pair("imports", IMPORTS, False, "absence", has(r"^(import|from) ")),
            Pair("comment", "It has a comment.", False, "absence", has(r"#")),
        ),
        family="code",
    ),
    Case(
        "factorial_library",
        "code",
        "import math\n\n\ndef factorial(n):\n    # the standard library does it\n"
        "    return math.factorial(n)\n",
        (
            Pair("recursive", RECURSION, False, "code"),
            Pair("imports", IMPORTS, True, "presence", has(r"^import ")),
            Pair("comment", "It has a comment.", True, "presence", has(r"#")),
        ),
        family="code",
    ),
    Case(
        "greet_javascript",
        "code",
        "function greet(name) {\n  return `Hello, ${name}!`;\n}\n",
        (
            Pair("javascript", "It is written in JavaScript.", True, "language"),
            Pair("python", "It is written in Python.", False, "language"),
            Pair("uses_name", "The greeting it returns includes the name.", True, "code"),
        ),
        family="code",
    ),
    Case(
        "greet_python",
        "code",
        'def greet(name):\n    return "Hello, " + name + "!"\n',
        (
            Pair("javascript", "It is written in JavaScript.", False, "language"),
            Pair("python", "It is written in Python.", True, "language"),
            Pair("fstring", "It uses an f-string.", False, "absence", has(r'\bf"|\bf\'')),
        ),
        family="code",
    ),
    Case(
        "settings_thirty",
        "code",
        "TIMEOUT_SECONDS = 30\nRETRIES = 3\n\n\ndef fetch(url):\n"
        "    return download(url, timeout=TIMEOUT_SECONDS, retries=RETRIES)\n",
        (
            Pair(
                "timeout_30",
                "The timeout is 30 seconds.",
                True,
                "numbers",
                has(r"TIMEOUT_SECONDS = 30\b"),
            ),
            Pair("retries_5", "It retries 5 times.", False, "numbers", has(r"RETRIES = 5\b")),
            Pair("no_todo", "It has no TODO comment.", True, "absence", lacks(r"TODO")),
        ),
        family="data",
    ),
    Case(
        "settings_ten",
        "code",
        "TIMEOUT_SECONDS = 10  # TODO: read it from the environment\nRETRIES = 5\n",
        (
            Pair(
                "timeout_30",
                "The timeout is 30 seconds.",
                False,
                "numbers",
                has(r"TIMEOUT_SECONDS = 30\b"),
            ),
            Pair("retries_5", "It retries 5 times.", True, "numbers", has(r"RETRIES = 5\b")),
            Pair("no_todo", "It has no TODO comment.", False, "absence", lacks(r"TODO")),
        ),
        family="data",
    ),
    Case(
        "query_select",
        "code",
        "SELECT name, email FROM customers WHERE country = 'France' ORDER BY name;",
        (
            Pair("email", "The query selects the email column.", True, "names"),
            Pair("sorted", "The query sorts its results.", True, "presence", has(r"order by")),
            Pair(
                "limit", "The query limits the number of rows.", False, "absence", has(r"\blimit\b")
            ),
        ),
        family="data",
    ),
    Case(
        "query_delete",
        "code",
        "DELETE FROM customers WHERE last_order < '2020-01-01';",
        (
            Pair("read_only", "The query only reads data and changes nothing.", False, "code"),
            Pair("where", "The query has a WHERE clause.", True, "presence", has(r"\bwhere\b")),
            Pair("sorted", "The query sorts its results.", False, "absence", has(r"order by")),
        ),
        family="data",
    ),
    Case(
        "stack_class",
        "code",
        "class Stack:\n    def __init__(self):\n        self._items = []\n\n"
        "    def push(self, item):\n        self._items.append(item)\n\n"
        "    def pop(self):\n        return self._items.pop()\n",
        (
            Pair(
                "three_methods",
                "The class defines exactly three methods.",
                True,
                "count",
                counted(r"^\s+def ", 3),
            ),
            Pair("peek", "The class has a peek method.", False, "absence", has(r"def peek")),
            Pair("push", "The class has a push method.", True, "names", has(r"def push")),
        ),
        family="code",
    ),
    Case(
        "package_json",
        "code",
        '{"name": "critic-loop", "version": "1.2.0", "private": true}',
        (
            Pair("valid_json", VALID_JSON, True, "code", valid_json),
            Pair("version", "It has a version field.", True, "presence", has(r'"version"')),
            Pair("license_field", "It has a license field.", False, "absence", has(r'"license"')),
        ),
        family="data",
    ),
    Case(
        "package_json_trailing_comma",
        "code",
        '{"name": "critic-loop", "version": "1.2.0", "license": "MIT",}',
        (
            Pair("valid_json", VALID_JSON, False, "code", valid_json),
            Pair("version", "It has a version field.", True, "presence", has(r'"version"')),
            Pair("license_field", "It has a license field.", True, "presence", has(r'"license"')),
        ),
        family="data",
    ),
    Case(
        "build_script",
        "code",
        "#!/usr/bin/env bash\nset -euo pipefail\nrm -rf build/\npython -m build\n",
        (
            Pair(
                "strict",
                "It makes the script stop at the first failing command (set -e).",
                True,
                "code",
                has(r"set -e"),
            ),
            Pair("deletes", "It deletes files.", True, "code", has(r"\brm\b")),
            Pair("tests", "It runs the tests.", False, "absence", has(r"pytest|test")),
        ),
        family="data",
    ),
)
"""The labelled set, in the order it is graded."""

QUICK_IDS: tuple[str, ...] = (
    "haiku_rain",
    "train_english",
    "jacket_not_waterproof",
    "add_prints",
)
"""The slice `--quick` grades (12 pairs, for CI): the issue's own failures among them."""
