"""Drafts and revisions the loop's own runs produced, labelled against their tasks' criteria.

What the loop really meets: a first draft that met its criteria and a revision that lost
them, drafts that shrank round by round, the worker's instructions echoed back as a draft,
the critic's stock hint pasted into one. A comment above each case names where its text
comes from: a saved run (a benchmark's results, a notebook's saved outputs in git) or
issue 37, which quotes the runs it reports. Cases written for the same task (what a draft
that truly passes says) are marked as written.
"""

from __future__ import annotations

from benchmarks.judge import cases as c
from benchmarks.judge.cases import Case, Pair, counted, has, words_below

EXAMPLE = "It includes one concrete example of looking up a value by its key."
CONTRAST = "It says how looking something up differs from searching a list."
KEYS = "It says that a hash map stores values under keys."
MEETING = "It gives the meeting day and time: Tuesday at 7 pm."
CHESS_SET = "It asks members to bring their own chess set."
SORTED_FIRST = "It says the list must be sorted first."
HALVES = "It says each step halves the part of the list still searched."
CODE_EXAMPLE = "It includes a code example."
CAPACITY = "It states the mug's capacity: 350 ml."
MUG_DISHWASHER = "It says the mug is dishwasher safe."
ECHO = (
    "When you revise, start from your previous version: change what the feedback asks for "
    "and keep what already works."
)
"""The worker's own instruction, as runs echoed it back for a draft."""

RUN_DRAFTS: tuple[Case, ...] = (
    # notebooks/quickstart.ipynb as saved at d477b97: the real run's draft (265 characters)
    Case(
        "hashmap_data_structure",
        "writing",
        "A hash map is a data structure that allows for fast lookups and insertions of "
        "elements. It uses a hash function to determine the index in an array where the "
        "element should be stored, which helps in reducing the time complexity of these "
        "operations compared to lists.",
        (
            Pair("example", EXAMPLE, False, "absence"),
            Pair(
                "hash_function",
                "It mentions a hash function.",
                True,
                "presence",
                has(r"hash function"),
            ),
            Pair(
                "length",
                "The explanation is at most 120 words long.",
                True,
                "count",
                words_below(121),
            ),
        ),
        family="run_draft",
    ),
    # notebooks/quickstart.ipynb as saved at 3f2a3da shrank 344 -> 113 -> 8 characters ("hash
    # map", in degenerate.py); only the last draft's text was saved, so the first two are
    # written to those lengths, in the model's manner: round 1 met both criteria, round 2 lost them
    Case(
        "hashmap_round1",
        "writing",
        "A hash map is like a list, except that each value is stored under a key instead of a "
        "numbered position. For example, you can store the phone number 555-0142 under the key "
        '"Ada"; asking the map for "Ada" gives back 555-0142 at once. Searching a list means '
        "checking the items one by one, while a hash map jumps straight to the value from its key.",
        (
            Pair("example", EXAMPLE, True, "presence"),
            Pair("contrast", CONTRAST, True, "presence", has(r"\blists?\b")),
            Pair("keys", KEYS, True, "presence", has(r"\bkeys?\b")),
        ),
        family="run_draft",
    ),
    Case(
        "hashmap_round2",
        "writing",
        "A hash map is a data structure that stores key-value pairs, so a program can find "
        "every value quickly by its key.",
        (
            Pair("example", EXAMPLE, False, "absence"),
            Pair("contrast", CONTRAST, False, "absence", has(r"\blists?\b")),
            Pair("keys", KEYS, True, "presence", has(r"\bkeys?\b")),
        ),
        family="run_draft",
    ),
    # issue 37: the chess-club run's final draft, declared passed (the part the issue elides
    # with an ellipsis is left out)
    Case(
        "chess_final",
        "writing",
        "Welcome to our chess club! If you encounter any problems, don't hesitate to ask for "
        "help. How may I assist you today?",
        (
            Pair("meeting", MEETING, False, "absence", has(r"tuesday")),
            Pair("chess_set", CHESS_SET, False, "absence", has(r"chess set")),
            Pair("asks_reader", c.ASKS_READER, True, "question", has(r"\?")),
        ),
        family="run_draft",
    ),
    # benchmarks/effectiveness/results/local-0.5b-range-defaults.json: two_paragraphs, single_shot
    Case(
        "chess_thursday",
        "writing",
        "Welcome to our chess club! Thursday evenings are a great opportunity for everyone to "
        "meet and learn about the latest developments in chess. We have a team of experienced "
        "chess players who will be able to provide valuable insights and strategies to help you "
        "improve your skills. If you're interested in learning more, feel free to ask any "
        "questions or join us on our website.",
        (
            Pair("meeting", MEETING, False, "names", has(r"tuesday")),
            Pair("weekday", c.WEEKDAY, True, "names", has(c.WEEKDAYS)),
            Pair("chess_set", CHESS_SET, False, "absence", has(r"chess set")),
        ),
        family="run_draft",
    ),
    # written for the chess-club task of issue 37: what a draft that passes says
    Case(
        "chess_passing",
        "writing",
        "Welcome to the Riverside Chess Club! We meet every Tuesday at 7 pm in the community "
        "hall. Please bring your own chess set; tea and biscuits are on us.",
        (
            Pair("meeting", MEETING, True, "numbers", has(r"tuesday at 7 pm")),
            Pair("chess_set", CHESS_SET, True, "presence", has(r"chess set")),
            Pair("asks_reader", c.ASKS_READER, False, "question", has(r"\?")),
        ),
        family="run_draft",
    ),
    # issue 37: the binary-search run's first draft "truly met both" criteria; its text is not
    # quoted, so this one is written to meet both as plainly
    Case(
        "binary_first",
        "writing",
        "Binary search finds a value in a list that must be sorted first. It looks at the "
        "middle item: if the value is smaller, it keeps the left half, and if larger, the right "
        "half. Each step halves the part of the list still searched, so even a list of a "
        "million items takes about twenty steps.",
        (
            Pair("sorted_first", SORTED_FIRST, True, "presence", has(r"sorted")),
            Pair("halves", HALVES, True, "presence", has(r"halves")),
            Pair("code_example", CODE_EXAMPLE, False, "absence", has(r"def |```|\w\(")),
        ),
        family="run_draft",
    ),
    # issue 37: the same run's final draft, the worker's instruction echoed back (also the final
    # of serendipity_sentence, default, in
    # benchmarks/effectiveness/results/local-0.5b-range-defaults.json)
    Case(
        "binary_echo",
        "writing",
        ECHO,
        (
            Pair("sorted_first", SORTED_FIRST, False, "absence", has(r"sort")),
            Pair("halves", HALVES, False, "absence", has(r"half|halv")),
            Pair(
                "explains_binary",
                "It explains what binary search is.",
                False,
                "absence",
                has(r"binary"),
            ),
        ),
        family="run_draft",
    ),
    # written: a revision of binary_first that keeps one criterion and loses the other
    Case(
        "binary_revision",
        "writing",
        "Binary search only works on a list that is already sorted. It checks the middle "
        "element and compares it with the value it is looking for.",
        (
            Pair("sorted_first", SORTED_FIRST, True, "presence", has(r"sorted")),
            Pair("halves", HALVES, False, "absence", has(r"half|halv")),
            Pair("code_example", CODE_EXAMPLE, False, "absence", has(r"def |```|\w\(")),
        ),
        family="run_draft",
    ),
    # issue 37: the coffee-mug run's final draft, the stock hint pasted in
    Case(
        "mug_pasted_hint",
        "writing",
        "A ceramic coffee mug that is plain in its words and simple to use, is a practical tool "
        "for brewing drinks without using sugar.",
        (
            Pair("capacity", CAPACITY, False, "numbers", has(r"350")),
            Pair("mug_dishwasher", MUG_DISHWASHER, False, "absence", has(r"dishwasher")),
            Pair(
                "mug_material",
                "It says what the mug is made of.",
                True,
                "presence",
                has(r"ceramic"),
            ),
        ),
        family="run_draft",
    ),
    # written for the coffee-mug task of issue 37: what a draft that passes says
    Case(
        "mug_passing",
        "writing",
        "This 350 ml ceramic mug holds a generous morning coffee, and it is dishwasher safe, so "
        "washing up takes seconds.",
        (
            Pair("capacity", CAPACITY, True, "numbers", has(r"350 ml")),
            Pair("mug_dishwasher", MUG_DISHWASHER, True, "presence", has(r"dishwasher safe")),
            Pair("price", c.PRICE, False, "numbers", has(c.DOLLARS)),
        ),
        family="run_draft",
    ),
    # benchmarks/memory/results/local-0.5b.json: support_size, memory on (an echo of the
    # worker's instruction, with the task's words pasted in)
    Case(
        "shoes_echo",
        "writing",
        "When you revise, start from your previous version: change the feedback asks for a size "
        "of running shoes that is larger than the previous one. Keep what already works.",
        (
            Pair("apology", "It apologises.", False, "absence", has(r"sorry|apolog")),
            Pair(
                "exchange",
                "It offers to exchange the shoes for the right size.",
                False,
                "absence",
                has(r"exchange|replace|swap"),
            ),
            Pair("shoes", "It mentions running shoes.", True, "presence", has(r"running shoes")),
        ),
        family="run_draft",
    ),
    # benchmarks/memory/results/local-0.5b.json: photosynthesis, memory on
    Case(
        "photosynthesis",
        "writing",
        "Photosynthesis is the process by which plants convert light energy into chemical "
        "energy, primarily in the form of glucose. It occurs in the chloroplasts of plant cells "
        "and uses water from the air to produce oxygen and carbon dioxide.",
        (
            Pair(
                "where_in_cell",
                "It says where in the plant cell photosynthesis happens.",
                True,
                "names",
                has(r"chloroplast"),
            ),
            Pair("takes_in_co2", "It says plants take in carbon dioxide.", False, "negation"),
            Pair(
                "two_sentences",
                "It has exactly two sentences.",
                True,
                "count",
                counted(r"[.!?](\s|$)", 2),
            ),
        ),
        family="run_draft",
    ),
    # benchmarks/effectiveness/results/local-0.5b-range-defaults.json: question_ending, default
    Case(
        "rosa_question",
        "writing",
        "Why should we not use the Rosa's Diner for this Friday lunch?\n\nTo keep work on a new "
        "version from scratch, I will now revise my previous version.",
        (
            Pair("question", c.QUESTION, True, "question", has(r"\?")),
            Pair(
                "ends_question", "It ends with a question mark.", False, "question", has(r"\?\s*\Z")
            ),
            Pair("place", "It mentions Rosa's Diner.", True, "names", has(r"Rosa's Diner")),
        ),
        family="run_draft",
    ),
    # benchmarks/effectiveness/results/local-0.5b-range-defaults.json: thank_you_note_names,
    # default (the check's pattern pasted in)
    Case(
        "priya_pattern",
        "writing",
        "Priya, your neighbour Tom for watering her plants.\nI am writing a thank-you note from "
        "Priya to her neighbor Tom for watering her plants. This includes text that matches "
        r"/\n\s*(?:-\s*)?Priya\s*\Z/.",
        (
            Pair(
                "names_both",
                "It names both Priya and Tom.",
                True,
                "names",
                has(r"(?=[\s\S]*\bPriya\b)(?=[\s\S]*\bTom\b)", 0),
            ),
            Pair(
                "signed_priya",
                "Its last line is Priya's name alone.",
                False,
                "names",
                has(r"^\s*Priya\s*\Z"),
            ),
            Pair("forty_words", "It has at most 40 words.", True, "count", words_below(41)),
        ),
        family="run_draft",
    ),
)
"""The run drafts, in the order they are graded."""
