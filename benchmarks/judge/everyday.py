"""Plain everyday pairs of the kinds issue 37 saw a judge fail on, met and not met alike.

Other languages (French, Spanish, German, Italian, Portuguese), prices (in dollars, spelled
out, in pounds), questions (rhetorical ones too), advice to see a doctor in other words,
criteria about absence or manner (a polite request, imports from the standard library only)
and docstring sections. Each joins the family of its kind of text. Two code cases are real
drafts of the effectiveness benchmark (a comment names them).
"""

from __future__ import annotations

from benchmarks.judge import cases as c
from benchmarks.judge.cases import Case, Pair, counted, has, lacks

DEADLINE = "It gives a deadline."
THANKS_READER = "It thanks the reader."
WORKED_EXAMPLE = "It includes a worked example with numbers."

EVERYDAY: tuple[Case, ...] = (
    # --- other languages ---------------------------------------------------------------
    Case(
        "bakery_french",
        "writing",
        "Notre boulangerie ouvre à sept heures. Le pain sort du four chaque matin. Venez tôt "
        "pour les croissants !",
        (
            Pair("french", c.FRENCH, True, "language"),
            Pair("english", c.ENGLISH, False, "language"),
            Pair("opening_time", "It says when it opens.", True, "numbers"),
        ),
        family="language",
    ),
    Case(
        "museum_spanish",
        "writing",
        "El museo cierra los lunes. La entrada cuesta diez euros.",
        (
            Pair("spanish", c.SPANISH, True, "language"),
            Pair("french", c.FRENCH, False, "language"),
            Pair("price", c.PRICE, False, "numbers", has(c.DOLLARS)),
        ),
        family="language",
    ),
    Case(
        "window_german",
        "writing",
        "Bitte schließen Sie das Fenster, wenn Sie das Büro verlassen.",
        (
            Pair("german", "It is written in German.", True, "language"),
            Pair("spanish", c.SPANISH, False, "language"),
            Pair("weekday", c.WEEKDAY, False, "names"),  # no day in any language
        ),
        family="language",
    ),
    Case(
        "meeting_italian",
        "writing",
        "La riunione è spostata a giovedì alle dieci.",
        (
            Pair("italian", "It is written in Italian.", True, "language"),
            Pair("portuguese", c.PORTUGUESE, False, "language"),
        ),
        family="language",
    ),
    Case(
        "order_portuguese",
        "writing",
        "Obrigado pela sua encomenda. Ela será enviada amanhã.",
        (
            Pair("portuguese", c.PORTUGUESE, True, "language"),
            Pair("spanish", c.SPANISH, False, "language"),
            Pair("thanks", "It thanks the customer.", True, "presence"),
        ),
        family="language",
    ),
    Case(
        "cafe_english",
        "writing",
        "Our café bakes croissants every morning, just as they do in France.",
        (
            Pair("french", c.FRENCH, False, "language"),
            Pair("english", c.ENGLISH, True, "language"),
            Pair("country", "It names a country.", True, "names", has(r"\bFrance\b")),
        ),
        family="language",
    ),
    Case(
        "bus_spanish",
        "writing",
        "¿Dónde puedo comprar un billete de autobús?",
        (
            Pair("spanish", c.SPANISH, True, "language"),
            Pair("portuguese", c.PORTUGUESE, False, "language"),
            Pair("question", c.QUESTION, True, "question", has(r"\?")),
        ),
        family="language",
    ),
    # --- prices and questions in product copy --------------------------------------------
    Case(
        "wraps_price",
        "writing",
        "Only $12.99 for a set of four beeswax food wraps.",
        (
            Pair("price", c.PRICE, True, "numbers", has(c.DOLLARS)),
            Pair("set_size", "It says how many items come in the set.", True, "numbers"),
            Pair("euros", "It states a price in euros.", False, "numbers", has(r"€|euro")),
        ),
        family="product",
    ),
    Case(
        "fan_spelled_price",
        "writing",
        "The clip-on desk fan costs twelve dollars and ninety-nine cents.",
        (
            Pair("price", c.PRICE, True, "numbers"),  # spelled out: no digit to match
            Pair("asks_reader", c.ASKS_READER, False, "question", has(r"\?")),
        ),
        family="product",
    ),
    Case(
        "shipping_pounds",
        "writing",
        "Free shipping on every order over fifty pounds.",
        (
            Pair("price", c.PRICE, False, "numbers", has(c.DOLLARS)),
            Pair(
                "free_shipping", "It offers free shipping.", True, "presence", has(r"free shipping")
            ),
        ),
        family="product",
    ),
    Case(
        "cable_question",
        "writing",
        "Tired of tangled cables? The CordClip organiser keeps them tidy on any desk.",
        (
            Pair("asks_reader", c.ASKS_READER, True, "question", has(r"\?")),
            Pair("price", c.PRICE, False, "numbers", has(c.DOLLARS)),
        ),
        family="product",
    ),
    Case(
        "backpack_price",
        "writing",
        "The RidgeLine backpack holds 30 litres and weighs 900 grams. $79 at any of our stores.",
        (
            Pair("price", c.PRICE, True, "numbers", has(c.DOLLARS)),
            Pair("waterproof", c.WATERPROOF, False, "absence", has(r"waterproof")),
            Pair("colour", "It names a colour.", False, "names"),
        ),
        family="product",
    ),
    # --- advice and explanations -------------------------------------------------------
    Case(
        "cough_doctor",
        "writing",
        "If your cough lasts more than two weeks, see a doctor.",
        (
            Pair("doctor", c.DOCTOR, True, "presence", has(r"see a doctor")),
            Pair("medicine", "It names a medicine.", False, "names"),
        ),
        family="explanation",
    ),
    Case(
        "throat_rest",
        "writing",
        "A sore throat from shouting usually heals within a few days if you rest your voice.",
        (
            Pair("doctor", c.DOCTOR, False, "absence", has(r"doctor|physician")),
            Pair("rest", "It recommends rest.", True, "presence", has(r"\brest\b")),
        ),
        family="explanation",
    ),
    Case(
        "rash_physician",
        "writing",
        "Make an appointment with your physician if the rash spreads.",
        (
            Pair("doctor", c.DOCTOR, True, "presence"),  # a physician, in other words
            Pair("medicine", "It names a medicine.", False, "names"),
        ),
        family="explanation",
    ),
    Case(
        "ice_question",
        "writing",
        "Why does ice float? Water expands as it freezes, so ice is lighter than the same amount "
        "of liquid water.",
        (
            Pair("asks_reader", c.ASKS_READER, True, "question", has(r"\?")),
            Pair("temperature", "It names a temperature.", False, "numbers", has(r"\d|degree")),
        ),
        family="explanation",
    ),
    Case(
        "interest_example",
        "writing",
        "Compound interest means you also earn interest on interest already earned: 100 coins at "
        "10% a year become 110 after one year and 121 after two.",
        (
            Pair("worked_example", WORKED_EXAMPLE, True, "numbers", has(r"\d")),
            Pair("asks_reader", c.ASKS_READER, False, "question", has(r"\?")),
        ),
        family="explanation",
    ),
    Case(
        "interest_plain",
        "writing",
        "Compound interest means you also earn interest on the interest you have already earned.",
        (
            Pair("worked_example", WORKED_EXAMPLE, False, "numbers", has(r"\d")),
            Pair("no_digits", c.NO_DIGITS, True, "absence", lacks(r"\d")),
        ),
        family="explanation",
    ),
    # --- messages: manner, deadlines, questions ------------------------------------------
    Case(
        "contract_polite",
        "writing",
        "Hi Jordan,\n\nCould you send me the signed contract when you have a moment? Thank you "
        "very much for your help.\n\nBest wishes,\nAmira",
        (
            Pair("polite", c.POLITE, True, "absence"),
            Pair("asks_reader", c.ASKS_READER, True, "question", has(r"\?")),
            Pair("deadline", DEADLINE, False, "absence"),
        ),
        family="message",
    ),
    Case(
        "contract_threat",
        "writing",
        "Jordan, send me the signed contract by Friday or I will cancel the deal.",
        (
            Pair("polite", c.POLITE, False, "absence"),
            Pair("deadline", DEADLINE, True, "presence"),
            Pair("thanks_reader", THANKS_READER, False, "absence", has(r"thank")),
        ),
        family="message",
    ),
    Case(
        "invoice_reminder",
        "writing",
        "Dear Mr Okafor,\n\nThis is a friendly reminder that the invoice of 2 March is still "
        "open. We would be grateful if you could settle it this week.\n\nKind regards,\nLena",
        (
            Pair("polite", c.POLITE, True, "absence"),
            Pair("threat", "It threatens the reader with a penalty.", False, "absence"),
            Pair("date", c.DATE, True, "numbers", has(r"\d")),
        ),
        family="message",
    ),
    Case(
        "invoice_demand",
        "writing",
        "Pay the overdue invoice today. Late payers will be reported to a debt collector.",
        (
            Pair("polite", c.POLITE, False, "absence"),
            Pair("threat", "It threatens the reader with a penalty.", True, "presence"),
        ),
        family="message",
    ),
    Case(
        "anniversary_question",
        "writing",
        "Can you believe it has been ten years since we opened? Thank you for every visit.",
        (
            Pair("asks_reader", c.ASKS_READER, True, "question", has(r"\?")),
            Pair("year", c.YEAR, False, "numbers", has(r"\b\d{4}\b")),
        ),
        family="message",
    ),
    # --- code: imports and docstrings ---------------------------------------------------
    Case(
        "slugify_re",
        "code",
        "import re\n\n\ndef slugify(title: str) -> str:\n"
        '    """Turn a title into a URL slug: lowercase words joined by hyphens."""\n'
        '    words = re.findall(r"[a-z0-9]+", title.lower())\n    return "-".join(words)\n',
        (
            Pair("stdlib_only", c.STDLIB_ONLY, True, "absence"),
            Pair("imports", c.IMPORTS, True, "presence", has(r"^import ")),
            Pair("returns_section", c.RETURNS_SECTION, False, "code", has(r"^\s+Returns:")),
        ),
        family="code",
    ),
    Case(
        "release_requests",
        "code",
        "import json\n\nimport requests\n\n\ndef latest_release(repo: str) -> str:\n"
        '    """Return the tag of a GitHub repository\'s latest release."""\n'
        '    url = f"https://api.github.com/repos/{repo}/releases/latest"\n'
        "    reply = requests.get(url, timeout=10)\n"
        '    return json.loads(reply.text)["tag_name"]\n',
        (
            Pair("stdlib_only", c.STDLIB_ONLY, False, "absence"),
            Pair("docstring", c.DOCSTRING, True, "code", has(r'"""')),
            Pair("returns_section", c.RETURNS_SECTION, False, "code", has(r"^\s+Returns:")),
        ),
        family="code",
    ),
    Case(
        "word_count_google",
        "code",
        'def word_count(text: str) -> int:\n    """Count the words in a text.\n\n    Args:\n'
        "        text: The text to count.\n\n    Returns:\n"
        '        The number of words, split on whitespace.\n    """\n'
        "    return len(text.split())\n",
        (
            Pair("returns_section", c.RETURNS_SECTION, True, "code", has(r"^\s+Returns:")),
            Pair("stdlib_only", c.STDLIB_ONLY, True, "absence"),  # it imports nothing at all
            Pair("imports", c.IMPORTS, False, "absence", has(r"^(import|from) ")),
        ),
        family="code",
    ),
    Case(
        "mean_numpy",
        "code",
        'import numpy as np\n\n\ndef mean(values):\n    """Return the mean of the values.\n\n'
        '    Returns:\n        The arithmetic mean, as a float.\n    """\n'
        "    return float(np.mean(values))\n",
        (
            Pair("stdlib_only", c.STDLIB_ONLY, False, "absence"),
            Pair("returns_section", c.RETURNS_SECTION, True, "code", has(r"^\s+Returns:")),
            Pair("hints", c.TYPE_HINTS, False, "absence", has(r"->|\w+:\s*(list|int|float)")),
        ),
        family="code",
    ),
    # benchmarks/effectiveness/results/local-0.5b-2026-12-01-defaults-50.json: top_k_words,
    # single_shot (its final, fences and all)
    Case(
        "top_k_counter",
        "code",
        "```python\nfrom collections import Counter\n\ndef top_k_words(text: str, k: int) -> "
        "list[str]:\n    # Count the frequency of each word in the text\n    word_counts = "
        "Counter(text.lower().split())\n    \n    # Get the k most frequent words\n    "
        "top_k_words = word_counts.most_common(k)\n    \n    return [word for word, count in "
        "top_k_words]\n```",
        (
            Pair("stdlib_only", c.STDLIB_ONLY, True, "absence"),
            Pair("docstring", c.DOCSTRING, False, "absence", has(r'"""|\'\'\'')),
            Pair("comment", "It has a comment.", True, "presence", has(r"#")),
        ),
        family="code",
    ),
    # benchmarks/effectiveness/results/local-0.5b-2026-12-01-defaults-50.json: lru_misses,
    # default (its final: it calls datetime.now() without importing datetime)
    Case(
        "lru_datetime",
        "code",
        "```python\nfrom collections import OrderedDict\n\ndef lru_misses(capacity: int, "
        "accesses: list) -> tuple[int, list]:\n    cache = OrderedDict()\n    \n    for key in "
        "accesses:\n        if key in cache:\n            # If the key is already in the cache, "
        "update its last use time\n            cache[key] = datetime.now()\n        else:\n"
        "            # If the key is not in the cache, add it with a new last use time\n"
        "            cache[key] = datetime.now()\n    \n    misses = len(cache)\n    contents = "
        "list(cache.keys())\n    \n    return misses, contents\n\n# Example usage:\n"
        'print(lru_misses(2, ["a", "b", "a", "c", "b"]))  # Output: (4, [\'c\', \'b\'])\n'
        "print(lru_misses(0, [1, 1]))          # Output: (2, [])\n"
        "print(lru_misses(3, [1, 2, 3, 1, 4, 2]))  # Output: (5, [1, 4, 2])\n```",
        (
            Pair("imports_all", "It imports every module it uses.", False, "absence"),
            Pair("stdlib_only", c.STDLIB_ONLY, True, "absence"),
            Pair("prints", c.PRINTS, False, "code"),  # the calls below it print; it returns
        ),
        family="code",
    ),
    Case(
        "greet_args_only",
        "code",
        'def greet_user(name: str) -> str:\n    """Build a greeting for a user.\n\n    Args:\n'
        '        name: Who to greet.\n    """\n    return f"Hello, {name}!"\n',
        (
            Pair("returns_section", c.RETURNS_SECTION, False, "code", has(r"^\s+Returns:")),
            Pair("fstring", "It uses an f-string.", True, "code", has(r'\bf"|\bf\'')),
        ),
        family="code",
    ),
    # --- short forms and notices with questions -----------------------------------------
    Case(
        "wind_question",
        "writing",
        "Where does the wind go\nwhen the evening falls still?\nNo one follows it.",
        (
            Pair("asks_reader", c.ASKS_READER, True, "question", has(r"\?")),
            Pair("season", c.SEASON, False, "names", has(c.SEASONS)),
            Pair("lines", "It has exactly three lines.", True, "count", counted(r"^.+$", 3)),
        ),
        family="short_form",
    ),
    Case(
        "frost_haiku",
        "writing",
        "Morning frost on glass,\nthe kettle begins to sing,\nspring is far away.",
        (
            Pair("season", c.SEASON, True, "names", has(c.SEASONS)),
            Pair("asks_reader", c.ASKS_READER, False, "question", has(r"\?")),
        ),
        family="short_form",
    ),
    Case(
        "towing_notice",
        "writing",
        "Is your car parked on Elm Street? It will be towed after 8 am tomorrow to make way for "
        "road works.",
        (
            Pair("asks_reader", c.ASKS_READER, True, "question", has(r"\?")),
            Pair("towing_reason", "It gives a reason for the towing.", True, "presence"),
            Pair("year", c.YEAR, False, "numbers", has(r"\b\d{4}\b")),
        ),
        family="notice",
    ),
    Case(
        "pool_reopens",
        "writing",
        "The pool reopens on 4 June after its winter repairs.",
        (
            Pair("asks_reader", c.ASKS_READER, False, "question", has(r"\?")),
            Pair("season", c.SEASON, True, "names", has(c.SEASONS)),
            Pair("date", c.DATE, True, "numbers", has(r"\d")),
        ),
        family="notice",
    ),
)
"""The everyday pairs, in the order they are graded."""
