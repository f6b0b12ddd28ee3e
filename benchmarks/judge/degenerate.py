"""Degenerate drafts: a title, topic words, a cut-off sentence, a refusal, a pasted hint, a word.

Against criteria that ask for what they lack (an explanation, an example, bullet points,
how to contact support, a reason), mostly not met; a few short artifacts truly meet a
criterion ("Paris" names a city), so shortness alone is not the answer. A comment names a
draft's run where it comes from one; the rest are written in the same shapes.
"""

from __future__ import annotations

from benchmarks.judge import cases as c
from benchmarks.judge.cases import Case, Pair, counted, has, words_below
from benchmarks.judge.run_drafts import CONTRAST, EXAMPLE, KEYS

DEGENERATE: tuple[Case, ...] = (
    # notebooks/quickstart.ipynb as saved at 3f2a3da: the run's final draft (8 characters)
    Case(
        "hash_map_final",
        "writing",
        "hash map",
        (
            Pair("example", EXAMPLE, False, "absence"),
            Pair("contrast", CONTRAST, False, "absence", has(r"\blists?\b")),
            Pair("keys", KEYS, False, "absence", has(r"\bkeys?\b")),
            Pair("data_structure", "It names a data structure.", True, "names"),
        ),
        family="degenerate",
    ),
    Case(
        "paris",
        "writing",
        "Paris",
        (
            Pair("city", c.CITY, True, "names"),
            Pair("famous_reason", "It gives a reason the city is famous.", False, "absence"),
            Pair("country", "It names a country.", False, "names"),
        ),
        family="degenerate",
    ),
    Case(
        "refund_title",
        "writing",
        "Refund policy",
        (
            Pair(
                "support_contact",
                "It says how to contact customer support.",
                False,
                "absence",
                has(r"e-?mail|phone|call|@"),
            ),
            Pair(
                "refund_days",
                "It says how many days a customer has to ask for a refund.",
                False,
                "absence",
                has(r"\d|days?"),
            ),
        ),
        family="degenerate",
    ),
    Case(
        "summary_label",
        "writing",
        "Summary:",
        (
            Pair("three_items", c.THREE_BULLETS, False, "count", counted(r"^- ", 3)),
            Pair("main_finding", "It states the article's main finding.", False, "absence"),
        ),
        family="degenerate",
    ),
    Case(
        "git_title",
        "writing",
        "Getting Started with Git",
        (
            Pair(
                "create_repo",
                "It explains how to create a repository.",
                False,
                "absence",
                has(r"git init|repositor"),
            ),
            Pair("numbered", "It is a numbered list.", False, "count", has(r"^\d+[.)]")),
            Pair("vcs_tool", "It names a version-control tool.", True, "names", has(r"\bgit\b")),
        ),
        family="degenerate",
    ),
    Case(
        "volcano_words",
        "writing",
        "volcano, lava, eruption, magma",
        (
            Pair("how_erupts", "It explains how a volcano erupts.", False, "absence"),
            Pair("lava", "It mentions lava.", True, "presence", has(r"\blava\b")),
            Pair(
                "two_or_more_sentences",
                "It has at least two sentences.",
                False,
                "count",
                has(r"[.!?]\s+\S[\s\S]*[.!?]"),
            ),
        ),
        family="degenerate",
    ),
    Case(
        "rome_truncated",
        "writing",
        "The main reason the Roman Empire fell was",
        (
            Pair("rome_reason", "It gives a reason the Roman Empire fell.", False, "absence"),
            Pair("complete_sentence", "It is a complete sentence.", False, "absence"),
        ),
        family="degenerate",
    ),
    Case(
        "refusal",
        "writing",
        "I cannot help with that.",
        (
            Pair(
                "grocery_tips",
                "It gives three tips for saving money on groceries.",
                False,
                "absence",
            ),
            Pair("shopping_list", "It includes a shopping list.", False, "absence"),
            Pair("under_ten", c.UNDER_TEN, True, "count", words_below(10)),
        ),
        family="degenerate",
    ),
    # the stock hint of notebooks/quickstart.ipynb's saved run, pasted in as a whole draft
    Case(
        "stock_hint",
        "writing",
        "Make it plain in the artifact, in words a reader can point to.",
        (
            Pair(
                "chair_height",
                "It says the chair's height can be adjusted.",
                False,
                "absence",
                has(r"chair|height"),
            ),
            Pair("price", c.PRICE, False, "numbers", has(c.DOLLARS)),
        ),
        family="degenerate",
    ),
    # benchmarks/memory/results/local-0.5b.json: support_late, memory off
    Case(
        "parcel_echo",
        "writing",
        "When you revise, start from your previous version: change 'parcel'.",
        (
            Pair(
                "parcel_arrival",
                "It tells the customer when the parcel will now arrive.",
                False,
                "absence",
            ),
            Pair("apology", "It apologises.", False, "absence", has(r"sorry|apolog")),
        ),
        family="degenerate",
    ),
    # benchmarks/memory/results/local-0.5b.json: support_charged, memory on
    Case(
        "charge_word",
        "writing",
        "Charge.",
        (
            Pair(
                "refund_promise",
                "It tells the customer the double charge will be refunded.",
                False,
                "absence",
                has(r"refund"),
            ),
            Pair("one_word", "It is a single word.", True, "count", counted(r"\S+", 1, 0)),
        ),
        family="degenerate",
    ),
    # benchmarks/memory/results/local-0.5b-defaults.json: support_late, memory off
    Case(
        "parcel_late_fact",
        "writing",
        "Parcel arrived two days late.",
        (
            Pair("says_late", "It says the parcel arrived late.", True, "presence", has(r"late")),
            Pair(
                "make_up",
                "It offers the customer something to make up for the delay.",
                False,
                "absence",
            ),
            Pair(
                "greets", "It greets the customer.", False, "absence", has(r"\b(hello|hi|dear)\b")
            ),
        ),
        family="degenerate",
    ),
    # benchmarks/effectiveness/results/local-0.5b-range-defaults.json: goldfish_name, single_shot
    Case(
        "goldfish",
        "writing",
        "Goldfish",
        (
            Pair("animal", "It names an animal.", True, "names"),
            Pair("name_reason", "It explains why the name suits the fish.", False, "absence"),
        ),
        family="degenerate",
    ),
    # benchmarks/effectiveness/results/local-0.5b-range-shipped.json: weekdays_list, single_shot
    Case(
        "two_weekdays",
        "writing",
        "Monday Friday",
        (
            Pair(
                "all_weekdays",
                "It lists all five weekdays from Monday to Friday.",
                False,
                "count",
                has(r"tuesday"),
            ),
            Pair("weekday", c.WEEKDAY, True, "names", has(c.WEEKDAYS)),
        ),
        family="degenerate",
    ),
    # benchmarks/effectiveness/results/local-0.5b-defaults.json: quickparse_announcement,
    # single_shot
    Case(
        "hashtag_only",
        "writing",
        "#quickparse open source",
        (
            Pair("what_it_does", "It says what quickparse does.", False, "absence"),
            Pair(
                "where_to_get",
                "It says where to get quickparse.",
                False,
                "absence",
                has(r"http|pip |github"),
            ),
        ),
        family="degenerate",
    ),
    # benchmarks/memory/results/local-0.5b-defaults-repeat2.json: shop_headlamp, memory off
    Case(
        "order_now_only",
        "writing",
        "Order now at Tidewater Outdoor Shop",
        (
            Pair("names_product", "It says which product is for sale.", False, "absence"),
            Pair(
                "tells_order", "It tells the reader to order.", True, "presence", has(r"order now")
            ),
        ),
        family="degenerate",
    ),
)
"""The degenerate drafts, in the order they are graded."""
