"""Writing tasks: prompt, deterministic rubric, a passing reference and a failing bad example."""

# ruff: noqa: E501 - long lines here are task text (prompts and references keep their lines)

from __future__ import annotations

import json
from typing import Any

WRITING: list[dict[str, Any]] = []
"""Every writing task declared so far, in declaration order (the order of writing.jsonl)."""


def W(  # noqa: D417 - the parameters are the fields of a writing task
    *,
    id: str,
    prompt: str,
    rubric: list[dict[str, Any]],
    reference: str,
    bad_example: str,
) -> None:
    """Declare a writing task (surrounding blank lines of the texts are stripped)."""
    WRITING.append(
        {
            "id": id,
            "prompt": prompt.strip(),
            "rubric": rubric,
            "reference": reference.strip("\n"),
            "bad_example": bad_example.strip("\n"),
        }
    )


W(
    id="trailflask_description",
    prompt="""
Write a product description for TrailFlask, a stainless-steel insulated water bottle for hikers.
Requirements:
- Between 40 and 60 words.
- Mention the product name "TrailFlask" and the phrase "24 hours" (how long it keeps drinks cold).
- Do not use the word "best" anywhere.
- Plain prose only: no Markdown headings.
""",
    rubric=[
        {"id": "length", "kind": "word_count", "min": 40, "max": 60},
        {
            "id": "key_phrases",
            "kind": "contains",
            "phrases": ["TrailFlask", "24 hours"],
            "case_sensitive": False,
        },
        {
            "id": "no_best",
            "kind": "regex",
            "pattern": r"\bbest\b",
            "must_match": False,
            "ignore_case": True,
        },
        {
            "id": "no_headings",
            "kind": "regex",
            "pattern": r"^\s{0,3}#",
            "must_match": False,
            "ignore_case": False,
        },
    ],
    reference="""
TrailFlask keeps your water icy for 24 hours and your coffee hot through a long morning climb. Its double-walled stainless-steel body shrugs off drops on rocky ground, the leakproof cap clips to any pack strap, and the wide mouth takes ice cubes easily. It is a sturdy companion for long days on the trail.
""",
    bad_example="""
TrailFlask is the best bottle for hikers: it keeps drinks cold for 24 hours and never leaks.
""",
)

W(
    id="logtrim_release_notes",
    prompt="""
Write release notes for version 2.4.0 of a command-line tool called "logtrim".
Requirements:
- Use the Markdown section headings "Added", "Fixed" and "Removed".
- List the changes as bullet points: lines starting with "- ".
- Mention the version number "2.4.0".
- Keep the whole text to at most 150 words.
""",
    rubric=[
        {"id": "sections", "kind": "headings", "headings": ["Added", "Fixed", "Removed"]},
        {
            "id": "bullets",
            "kind": "regex",
            "pattern": r"^- \S",
            "must_match": True,
            "ignore_case": False,
        },
        {"id": "version", "kind": "contains", "phrases": ["2.4.0"], "case_sensitive": False},
        {"id": "length", "kind": "word_count", "max": 150},
    ],
    reference="""
# logtrim 2.4.0

## Added
- A `--keep-days` option that deletes log lines older than the given number of days.
- Support for gzip-compressed input files.

## Fixed
- Timestamps with time-zone offsets are now parsed correctly.
- The progress bar no longer flickers on narrow terminals.

## Removed
- The deprecated `--legacy-format` flag.
""",
    bad_example="""
logtrim 2.4.0 adds a --keep-days option and gzip support, fixes time-zone parsing and the
flickering progress bar, and removes the deprecated --legacy-format flag.
""",
)

BOOK_SCHEMA = {
    "type": "object",
    "required": ["title", "author", "year", "tags", "pages"],
    "additionalProperties": False,
    "properties": {
        "title": {"type": "string", "minLength": 1},
        "author": {"type": "string", "minLength": 1},
        "year": {"type": "integer", "minimum": 1900, "maximum": 2030},
        "tags": {
            "type": "array",
            "minItems": 1,
            "maxItems": 5,
            "uniqueItems": True,
            "items": {"type": "string"},
            "contains": {"const": "mystery"},
        },
        "pages": {"type": "integer", "minimum": 1},
    },
}

W(
    id="novel_json",
    prompt="""
Describe a fictional mystery novel as a JSON object. Reply with the JSON document only: no code fences, no commentary.
The object must have exactly these keys and no others:
- "title": a non-empty string
- "author": a non-empty string
- "year": an integer from 1900 to 2030
- "tags": an array of 1 to 5 distinct strings, one of which is exactly "mystery"
- "pages": a positive integer
The whole reply must be at most 400 characters long.
""",
    rubric=[
        {"id": "valid_json", "kind": "json"},
        {"id": "schema", "kind": "json_schema", "schema": BOOK_SCHEMA},
        {"id": "short", "kind": "char_count", "max": 400},
    ],
    reference=json.dumps(
        {
            "title": "The Lantern at Gull Point",
            "author": "Maren Holloway",
            "year": 1987,
            "tags": ["mystery", "coastal", "slow-burn"],
            "pages": 312,
        },
        indent=2,
    ),
    bad_example="""
```json
{"title": "The Lantern at Gull Point", "author": "Maren Holloway", "year": "1987", "tags": ["thriller"]}
```
""",
)

W(
    id="autumn_rain_poem",
    prompt="""
Write a short poem about autumn rain.
Requirements:
- Exactly three lines of text: no title and no blank lines.
- Between 10 and 25 words in total.
- Use the word "rain".
- Do not use the word "leaves".
""",
    rubric=[
        {
            "id": "three_lines",
            "kind": "regex",
            "pattern": r"\A[^\n]+\n[^\n]+\n[^\n]+\n?\Z",
            "must_match": True,
            "ignore_case": False,
        },
        {"id": "length", "kind": "word_count", "min": 10, "max": 25},
        {
            "id": "rain",
            "kind": "regex",
            "pattern": r"\brain\b",
            "must_match": True,
            "ignore_case": True,
        },
        {
            "id": "no_leaves",
            "kind": "regex",
            "pattern": r"\bleaves\b",
            "must_match": False,
            "ignore_case": True,
        },
    ],
    reference="""
Grey rain taps the window glass,
puddles gather what the wind lets fall,
the street smells of wet stone and smoke.
""",
    bad_example="""
Autumn Rain

Red leaves drift down in the rain,
the gutters sing all night.
""",
)

W(
    id="out_of_office_reply",
    prompt="""
Write an out-of-office auto-reply email.
Requirements:
- The first line must be exactly "Hello," on its own.
- Say that I am away until March 14.
- Name Dana Whitfield as the contact for urgent matters.
- End with the line "Best regards," followed by a last line containing only "Sam Ortega".
- At most 400 characters in total.
""",
    rubric=[
        {
            "id": "greeting",
            "kind": "regex",
            "pattern": r"\AHello,$",
            "must_match": True,
            "ignore_case": False,
        },
        {
            "id": "facts",
            "kind": "contains",
            "phrases": ["March 14", "Dana Whitfield"],
            "case_sensitive": False,
        },
        {
            "id": "sign_off",
            "kind": "regex",
            "pattern": r"^Best regards,\n+Sam Ortega\s*\Z",
            "must_match": True,
            "ignore_case": False,
        },
        {"id": "short", "kind": "char_count", "max": 400},
    ],
    reference="""
Hello,

Thank you for your message. I am out of the office and away until March 14, with limited access to email. For urgent matters, please contact Dana Whitfield (dana.whitfield@example.com), who is covering for me. I will reply to everything else when I return.

Best regards,
Sam Ortega
""",
    bad_example="""
Hi there,

I'm away until March 14. For anything urgent, please reach out to Dana Whitfield.

Thanks,
Sam Ortega
""",
)

W(
    id="quickparse_announcement",
    prompt="""
Write a single social-media post announcing that our parsing library "quickparse" is now open source.
Requirements:
- At most 280 characters.
- Include the phrase "open source" and the name "quickparse".
- Include at least one hashtag (a "#" immediately followed by letters or digits).
- Do not include any links (nothing starting with "http://" or "https://").
""",
    rubric=[
        {"id": "tweet_length", "kind": "char_count", "max": 280},
        {
            "id": "phrases",
            "kind": "contains",
            "phrases": ["open source", "quickparse"],
            "case_sensitive": False,
        },
        {
            "id": "hashtag",
            "kind": "regex",
            "pattern": r"#\w+",
            "must_match": True,
            "ignore_case": False,
        },
        {
            "id": "no_links",
            "kind": "regex",
            "pattern": r"https?://",
            "must_match": False,
            "ignore_case": True,
        },
    ],
    reference="""
Big news: quickparse is now open source! Fast, dependency-free parsing for config files and logs, now with a public roadmap and a friendly contributor guide. Star it, try it, break it, and tell us what you build. #opensource #python
""",
    bad_example="""
quickparse is now open source! Grab it at https://github.com/example/quickparse and let us know what you think.
""",
)

W(
    id="billing_migration_minutes",
    prompt="""
Write a Markdown summary of a team meeting about migrating the billing service to a new database.
Requirements:
- Use the headings "Summary", "Decisions" and "Action Items".
- Under "Action Items", write each task as a Markdown checkbox: a line starting with "- [ ] " followed by the task.
- Mention the deadline "June 30".
- Between 60 and 200 words in total.
""",
    rubric=[
        {
            "id": "sections",
            "kind": "headings",
            "headings": ["Summary", "Decisions", "Action Items"],
        },
        {
            "id": "checkboxes",
            "kind": "regex",
            "pattern": r"^- \[ \] \S",
            "must_match": True,
            "ignore_case": False,
        },
        {"id": "deadline", "kind": "contains", "phrases": ["June 30"], "case_sensitive": False},
        {"id": "length", "kind": "word_count", "min": 60, "max": 200},
    ],
    reference="""
## Summary
The team reviewed the plan to move the billing service from the legacy MySQL cluster to PostgreSQL. The schema has been mapped and a dry run on staging completed without data loss, but invoice exports were slower than expected.

## Decisions
- The migration will use a dual-write period of two weeks before the cut-over.
- The cut-over must be finished by June 30.

## Action Items
- [ ] Priya: profile the invoice export queries on staging.
- [ ] Tom: write the rollback runbook.
- [ ] Alex: schedule the dual-write start with the payments team.
""",
    bad_example="""
## Summary
We talked about moving billing to PostgreSQL by June 30.

## Action Items
- Priya profiles the exports.
- Tom writes the rollback runbook.
""",
)

STEPS_SCHEMA = {
    "type": "array",
    "minItems": 3,
    "maxItems": 3,
    "items": {
        "type": "object",
        "required": ["step", "instruction"],
        "additionalProperties": False,
        "properties": {
            "step": {"type": "integer", "minimum": 1, "maximum": 3},
            "instruction": {"type": "string", "minLength": 1, "maxLength": 120},
        },
    },
}

W(
    id="pour_over_steps_json",
    prompt="""
Give exactly 3 steps for brewing pour-over coffee as a JSON array. Reply with the JSON document only: no code fences, no commentary.
Each element must be an object with exactly two keys:
- "step": the step number, an integer from 1 to 3
- "instruction": a non-empty string of at most 120 characters
At least one instruction must mention an amount in "grams".
""",
    rubric=[
        {"id": "valid_json", "kind": "json"},
        {"id": "schema", "kind": "json_schema", "schema": STEPS_SCHEMA},
        {"id": "grams", "kind": "contains", "phrases": ["grams"], "case_sensitive": False},
    ],
    reference=json.dumps(
        [
            {
                "step": 1,
                "instruction": "Grind 20 grams of coffee to a medium-fine texture and rinse the paper filter with hot water.",
            },
            {
                "step": 2,
                "instruction": "Pour 40 grams of water at 94 C to wet the grounds and let them bloom for 30 seconds.",
            },
            {
                "step": 3,
                "instruction": "Pour slowly in circles until you reach 320 grams of water, then let it drain.",
            },
        ],
        indent=2,
    ),
    bad_example=json.dumps(
        [
            {"step": 1, "instruction": "Grind the coffee."},
            {"step": 2, "instruction": "Bloom the grounds."},
            {"step": 3, "instruction": "Pour the rest of the water.", "time": "3 minutes"},
        ],
        indent=2,
    ),
)

W(
    id="cover_letter_opening",
    prompt="""
Write the opening paragraph of a cover letter for a data analyst position at Northwind Traders.
Requirements:
- A single paragraph: no blank lines.
- Between 50 and 80 words.
- Mention both "data analyst" and "Northwind Traders".
- Do not use any exclamation marks.
""",
    rubric=[
        {
            "id": "one_paragraph",
            "kind": "regex",
            "pattern": r"\n[ \t]*\n",
            "must_match": False,
            "ignore_case": False,
        },
        {"id": "length", "kind": "word_count", "min": 50, "max": 80},
        {
            "id": "phrases",
            "kind": "contains",
            "phrases": ["data analyst", "Northwind Traders"],
            "case_sensitive": False,
        },
        {
            "id": "no_exclamations",
            "kind": "regex",
            "pattern": "!",
            "must_match": False,
            "ignore_case": False,
        },
    ],
    reference="""
I am writing to apply for the data analyst position at Northwind Traders. Over the past four years I have turned messy sales and inventory data into dashboards and forecasts that teams actually use, most recently cutting stock-outs by a fifth for a regional distributor. Your focus on supply-chain efficiency matches the problems I enjoy most, and I would welcome the chance to bring that experience to your analytics team.
""",
    bad_example="""
I am thrilled to apply for the data analyst role at Northwind Traders!

I have four years of experience with SQL and dashboards.
""",
)

W(
    id="returns_faq",
    prompt="""
Write a FAQ entry in Markdown answering whether customers can return a product after opening it.
Requirements:
- Use the headings "Question" and "Answer".
- State that the return window is "30 days".
- At most 120 words in total.
- Do not use the word "guarantee" in any form (guarantee, guaranteed, guarantees).
""",
    rubric=[
        {"id": "sections", "kind": "headings", "headings": ["Question", "Answer"]},
        {"id": "window", "kind": "contains", "phrases": ["30 days"], "case_sensitive": False},
        {"id": "length", "kind": "word_count", "max": 120},
        {
            "id": "no_guarantee",
            "kind": "regex",
            "pattern": r"\bguarantee",
            "must_match": False,
            "ignore_case": True,
        },
    ],
    reference="""
### Question
Can I return a product after I have opened it?

### Answer
Yes. You can return opened products within 30 days of delivery, as long as all parts and accessories are included. Start the return from your order page, print the prepaid label and drop the parcel at any partner location. We refund the original payment method within five business days of receiving the item.
""",
    bad_example="""
### Question
Can I return an opened product?

### Answer
Yes, within 30 days. Satisfaction guaranteed.
""",
)

W(
    id="solar_coop_slogan",
    prompt="""
Write one slogan for a community solar energy co-op.
Requirements:
- A single line between 20 and 60 characters long.
- Include the word "solar".
- End with a period.
- No exclamation marks.
""",
    rubric=[
        {"id": "length", "kind": "char_count", "min": 20, "max": 60},
        {
            "id": "single_line",
            "kind": "regex",
            "pattern": r"\n\s*\S",
            "must_match": False,
            "ignore_case": False,
        },
        {
            "id": "solar",
            "kind": "regex",
            "pattern": r"\bsolar\b",
            "must_match": True,
            "ignore_case": True,
        },
        {
            "id": "ends_with_period",
            "kind": "regex",
            "pattern": r"\.\s*\Z",
            "must_match": True,
            "ignore_case": False,
        },
        {
            "id": "no_exclamations",
            "kind": "regex",
            "pattern": "!",
            "must_match": False,
            "ignore_case": False,
        },
    ],
    reference="""
Neighbors sharing the sun: solar power we own together.
""",
    bad_example="""
Go solar, go together!
""",
)

SERVICE_SCHEMA = {
    "type": "object",
    "required": ["name", "version", "port", "debug", "allowed_hosts"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
        "version": {"type": "string", "pattern": "^[0-9]+\\.[0-9]+\\.[0-9]+$"},
        "port": {"type": "integer", "minimum": 1024, "maximum": 65535},
        "debug": {"type": "boolean"},
        "allowed_hosts": {"type": "array", "minItems": 1, "items": {"type": "string"}},
    },
}

W(
    id="service_config_json",
    prompt="""
Write the configuration of a web service named "invoice-api" as a JSON object. Reply with the JSON document only: no code fences, no commentary.
The object must have exactly these keys and no others:
- "name": the service name "invoice-api" (lowercase letters, digits and hyphens, starting with a letter)
- "version": a semantic version string of three dot-separated numbers, like "1.4.2"
- "port": an integer from 1024 to 65535
- "debug": a boolean (true or false, not a string)
- "allowed_hosts": a non-empty array of host-name strings
The whole reply must be at most 300 characters long.
""",
    rubric=[
        {"id": "valid_json", "kind": "json"},
        {"id": "schema", "kind": "json_schema", "schema": SERVICE_SCHEMA},
        {
            "id": "service_name",
            "kind": "contains",
            "phrases": ["invoice-api"],
            "case_sensitive": True,
        },
        {"id": "short", "kind": "char_count", "max": 300},
    ],
    reference=json.dumps(
        {
            "name": "invoice-api",
            "version": "1.4.2",
            "port": 8443,
            "debug": False,
            "allowed_hosts": ["invoices.example.com", "localhost"],
        },
        indent=2,
    ),
    bad_example=json.dumps(
        {
            "name": "Invoice API",
            "version": "1.4",
            "port": "8443",
            "debug": "false",
            "allowed_hosts": [],
        },
        indent=2,
    ),
)

W(
    id="late_order_apology",
    prompt="""
Write a short apology message to a customer whose order #4821 arrived late.
Requirements:
- Between 80 and 120 words.
- Mention "order #4821".
- Offer a discount code made of four capital letters followed by two digits (for example SORY15).
- Do not use the word "unfortunately".
- Sign off with "The Lumen Team".
""",
    rubric=[
        {"id": "length", "kind": "word_count", "min": 80, "max": 120},
        {
            "id": "facts",
            "kind": "contains",
            "phrases": ["order #4821", "The Lumen Team"],
            "case_sensitive": False,
        },
        {
            "id": "discount_code",
            "kind": "regex",
            "pattern": r"\b[A-Z]{4}[0-9]{2}\b",
            "must_match": True,
            "ignore_case": False,
        },
        {
            "id": "no_unfortunately",
            "kind": "regex",
            "pattern": r"\bunfortunately\b",
            "must_match": False,
            "ignore_case": True,
        },
    ],
    reference="""
Dear Ms. Alvarez,

We are sorry that your order #4821 reached you four days later than promised. A sorting error at our regional depot sent the parcel on a detour, and we should have told you about the delay as soon as we knew. We have changed how delayed parcels are flagged so that customers hear from us first.

As a thank-you for your patience, please use the code LATE20 for 20% off your next purchase. It is valid for the next three months on everything in our shop.

Thank you for sticking with us.

The Lumen Team
""",
    bad_example="""
Dear customer,

Unfortunately your order #4821 was delayed. We apologise for the inconvenience and hope to serve you again soon.

The Lumen Team
""",
)

W(
    id="csvsum_readme",
    prompt="""
Write a short README for a command-line tool named "csvsum" that sums the numeric columns of CSV files.
Requirements:
- Include the Markdown headings "Installation", "Usage" and "License".
- Include at least one fenced code block (a line starting with three backticks).
- Mention the license with the exact phrase "MIT License".
- Between 60 and 250 words in total.
""",
    rubric=[
        {"id": "sections", "kind": "headings", "headings": ["Installation", "Usage", "License"]},
        {
            "id": "code_block",
            "kind": "regex",
            "pattern": "^```",
            "must_match": True,
            "ignore_case": False,
        },
        {
            "id": "license_phrase",
            "kind": "contains",
            "phrases": ["MIT License"],
            "case_sensitive": True,
        },
        {"id": "length", "kind": "word_count", "min": 60, "max": 250},
    ],
    reference="""
# csvsum

csvsum adds up the numeric columns of one or more CSV files and prints a total for each column. Non-numeric cells are skipped, so mixed files work too.

## Installation

Install it from PyPI with pip:

```
pip install csvsum
```

## Usage

Pass one or more CSV files; use `--columns` to choose which columns to total.

```
csvsum sales_2023.csv sales_2024.csv --columns amount,tax
```

The output lists each column name with its sum, one per line.

## License

csvsum is released under the MIT License. See the LICENSE file for details.
""",
    bad_example="""
# csvsum

Sums numeric columns in CSV files.

## Usage

Run `csvsum file.csv` to print the totals.

## License

MIT
""",
)
