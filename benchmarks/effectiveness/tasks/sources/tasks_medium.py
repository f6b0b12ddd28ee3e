"""Medium coding tasks."""

# ruff: noqa: E501 - long lines here are test data (calls and expected values)

from benchmarks.effectiveness.tasks.sources.taskdef import Raises, T

T(
    id="merge_touching_intervals",
    difficulty="medium",
    signature="merge_touching_intervals(intervals: list[list[int]]) -> list[list[int]]",
    desc="""
    merges closed integer intervals. `intervals` is a list of [start, end] pairs with
    start <= end, in any order. Every group of intervals that overlap OR touch is merged
    into one interval; two intervals touch when one ends exactly where the other starts, so
    [1, 3] and [3, 5] merge into [1, 5], while [1, 3] and [4, 5] stay separate. Return the
    merged intervals as a list of [start, end] lists sorted by start. An empty input returns
    an empty list. Do not modify the input.
    """,
    visible=[
        (
            "test_overlapping_pair",
            "merge_touching_intervals([[1, 3], [2, 6], [8, 10]])",
            "[[1, 6], [8, 10]]",
        ),
        (
            "test_touching_and_unsorted",
            "merge_touching_intervals([[5, 7], [1, 3], [3, 4]])",
            "[[1, 4], [5, 7]]",
        ),
        ("test_empty_input", "merge_touching_intervals([])", "[]"),
    ],
    hidden=[
        (
            "test_adjacent_integers_do_not_merge",
            "merge_touching_intervals([[1, 3], [4, 5]])",
            "[[1, 3], [4, 5]]",
        ),
        (
            "test_containing_interval",
            "merge_touching_intervals([[1, 10], [2, 3], [4, 5]])",
            "[[1, 10]]",
        ),
        ("test_single_point", "merge_touching_intervals([[2, 2]])", "[[2, 2]]"),
        ("test_duplicate_points", "merge_touching_intervals([[2, 2], [2, 2]])", "[[2, 2]]"),
        (
            "test_negative_values",
            "merge_touching_intervals([[-5, -1], [-1, 0], [3, 3]])",
            "[[-5, 0], [3, 3]]",
        ),
        (
            "test_chain_merges_into_one",
            "merge_touching_intervals([[6, 8], [1, 9], [2, 4], [4, 7]])",
            "[[1, 9]]",
        ),
        ("test_bridge_interval", "merge_touching_intervals([[0, 1], [2, 3], [1, 2]])", "[[0, 3]]"),
        """
        def test_input_is_not_modified():
            data = [[5, 7], [1, 3], [3, 4]]
            merge_touching_intervals(data)
            assert data == [[5, 7], [1, 3], [3, 4]]
        """,
    ],
    reference="""
    def merge_touching_intervals(intervals):
        merged = []
        for start, end in sorted(intervals):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        return merged
    """,
    naive="""
    def merge_touching_intervals(intervals):
        merged = []
        for start, end in sorted(intervals):
            if merged and start <= merged[-1][1]:
                merged[-1][1] = end
            else:
                merged.append([start, end])
        return merged
    """,
)

T(
    id="free_slots",
    difficulty="medium",
    signature="free_slots(busy: list[tuple[int, int]], day_start: int, day_end: int) -> list[tuple[int, int]]",
    desc="""
    finds free time in a day. `busy` is a list of (start, end) integer pairs, each a
    half-open range [start, end) with start < end; the ranges may be unsorted, may overlap
    or contain each other, and may extend outside the day. Return the free ranges inside
    [day_start, day_end) that are not covered by any busy range, as a list of (start, end)
    tuples sorted by start. Never include empty ranges (start == end): busy ranges such as
    (1, 3) and (3, 5) leave no gap between them. If nothing is busy, the whole day is one
    free range (provided day_start < day_end; otherwise return []).
    """,
    visible=[
        (
            "test_two_meetings",
            "free_slots([(9, 10), (12, 13)], 8, 17)",
            "[(8, 9), (10, 12), (13, 17)]",
        ),
        ("test_fully_booked_by_overlaps", "free_slots([(10, 12), (9, 11)], 9, 12)", "[]"),
        ("test_nothing_busy", "free_slots([], 0, 5)", "[(0, 5)]"),
    ],
    hidden=[
        (
            "test_back_to_back_meetings_leave_no_gap",
            "free_slots([(1, 3), (3, 5)], 0, 6)",
            "[(0, 1), (5, 6)]",
        ),
        ("test_busy_covers_whole_day", "free_slots([(0, 20)], 5, 10)", "[]"),
        ("test_unsorted_input", "free_slots([(3, 4), (1, 2)], 0, 5)", "[(0, 1), (2, 3), (4, 5)]"),
        ("test_nested_busy_range", "free_slots([(2, 8), (3, 4)], 0, 10)", "[(0, 2), (8, 10)]"),
        (
            "test_ranges_sticking_out_of_the_day",
            "free_slots([(-5, 2), (8, 30)], 0, 10)",
            "[(2, 8)]",
        ),
        ("test_busy_entirely_after_the_day", "free_slots([(11, 12)], 0, 10)", "[(0, 10)]"),
        ("test_empty_day", "free_slots([], 5, 5)", "[]"),
        ("test_busy_at_day_start", "free_slots([(0, 3)], 0, 5)", "[(3, 5)]"),
    ],
    reference="""
    def free_slots(busy, day_start, day_end):
        free = []
        cursor = day_start
        for start, end in sorted(busy):
            start, end = max(start, day_start), min(end, day_end)
            if start >= end:
                continue
            if start > cursor:
                free.append((cursor, start))
            cursor = max(cursor, end)
        if cursor < day_end:
            free.append((cursor, day_end))
        return free
    """,
    naive="""
    def free_slots(busy, day_start, day_end):
        free = []
        cursor = day_start
        for start, end in sorted(busy):
            start, end = max(start, day_start), min(end, day_end)
            if start >= end:
                continue
            if start > cursor:
                free.append((cursor, start))
            cursor = end
        if cursor < day_end:
            free.append((cursor, day_end))
        return free
    """,
)

T(
    id="eval_prefix",
    difficulty="medium",
    signature="eval_prefix(expr: str) -> int",
    desc="""
    evaluates an integer expression written in prefix (Polish) notation. Tokens are
    separated by one or more spaces. An operator token is exactly "+", "-" or "*" and
    applies to the two expressions that follow it; for "-" the result is the first operand
    minus the second. Every other token is an integer literal, which may be negative (like
    "-4": a minus sign directly followed by digits is a number, not an operator). The input
    is always a valid expression. Return the integer result.
    """,
    visible=[
        ("test_simple_sum", 'eval_prefix("+ 1 2")', "3"),
        ("test_nested_operators", 'eval_prefix("- * 2 5 3")', "7"),
        ("test_negative_literal", 'eval_prefix("* -4 + 1 2")', "-12"),
    ],
    hidden=[
        ("test_single_number", 'eval_prefix("42")', "42"),
        ("test_single_negative_number", 'eval_prefix("-7")', "-7"),
        ("test_subtraction_order", 'eval_prefix("- 3 10")', "-7"),
        ("test_multiple_spaces", 'eval_prefix("+  1   2")', "3"),
        ("test_two_subexpressions", 'eval_prefix("* + 1 2 - 10 4")', "18"),
        ("test_left_nested_subtraction", 'eval_prefix("- - 10 2 3")', "5"),
        ("test_two_negative_literals", 'eval_prefix("+ -1 -2")', "-3"),
        ("test_multiply_by_zero", 'eval_prefix("* 0 - 5 6")', "0"),
    ],
    reference="""
    def eval_prefix(expr):
        stack = []
        for token in reversed(expr.split()):
            if token in ("+", "-", "*"):
                a = stack.pop()
                b = stack.pop()
                if token == "+":
                    stack.append(a + b)
                elif token == "-":
                    stack.append(a - b)
                else:
                    stack.append(a * b)
            else:
                stack.append(int(token))
        return stack[0]
    """,
    naive="""
    def eval_prefix(expr):
        stack = []
        for token in reversed(expr.split(" ")):
            if token in ("+", "-", "*"):
                a = stack.pop()
                b = stack.pop()
                if token == "+":
                    stack.append(a + b)
                elif token == "-":
                    stack.append(a - b)
                else:
                    stack.append(a * b)
            else:
                stack.append(int(token))
        return stack[0]
    """,
)

T(
    id="first_bracket_error",
    difficulty="medium",
    signature="first_bracket_error(s: str) -> int",
    desc="""
    checks the brackets (), [] and {} in s; all other characters are ignored. Return -1 if
    every bracket is correctly matched and nested. Otherwise, if some closing bracket does
    not match the most recent still-unmatched opening bracket (or there is no unmatched
    opening bracket at all), return the index of the first such closing bracket. If the
    whole string is scanned without such an error but some opening brackets remain
    unmatched, return len(s).
    """,
    visible=[
        ("test_balanced_with_other_characters", 'first_bracket_error("a(b[c]d)e")', "-1"),
        ("test_wrong_closing_type", 'first_bracket_error("(]")', "1"),
        ("test_unclosed_opener_returns_length", 'first_bracket_error("{[()]")', "5"),
    ],
    hidden=[
        ("test_empty_string", 'first_bracket_error("")', "-1"),
        ("test_lone_closer", 'first_bracket_error(")")', "0"),
        ("test_no_brackets", 'first_bracket_error("abc")', "-1"),
        ("test_crossed_pairs", 'first_bracket_error("([)]")', "2"),
        ("test_only_openers", 'first_bracket_error("(((")', "3"),
        ("test_extra_closer_at_end", 'first_bracket_error("x{y}z]")', "5"),
        ("test_several_balanced_groups", 'first_bracket_error("{[]}()[]")', "-1"),
        ("test_one_unclosed_of_two", 'first_bracket_error("(()")', "3"),
        ("test_error_before_unclosed", 'first_bracket_error("]][[")', "0"),
    ],
    reference="""
    def first_bracket_error(s):
        pairs = {")": "(", "]": "[", "}": "{"}
        stack = []
        for i, ch in enumerate(s):
            if ch in "([{":
                stack.append(ch)
            elif ch in pairs:
                if not stack or stack[-1] != pairs[ch]:
                    return i
                stack.pop()
        return len(s) if stack else -1
    """,
    naive="""
    def first_bracket_error(s):
        pairs = {")": "(", "]": "[", "}": "{"}
        stack = []
        for i, ch in enumerate(s):
            if ch in "([{":
                stack.append((ch, i))
            elif ch in pairs:
                if not stack or stack[-1][0] != pairs[ch]:
                    return i
                stack.pop()
        return stack[0][1] if stack else -1
    """,
)

T(
    id="compress_ranges",
    difficulty="medium",
    signature="compress_ranges(nums: list[int]) -> str",
    desc="""
    takes a list of integers (unsorted, possibly with duplicates, possibly negative) and
    describes the set of distinct values as a comma-separated string in ascending order,
    with no spaces. Every maximal run of consecutive integers a, a+1, ..., b with b > a is
    written as "a-b"; a value that is not part of such a run is written alone. Negative
    numbers keep their sign, so the run -3, -2, -1 is written "-3--1". An empty list
    returns "".
    """,
    visible=[
        ("test_runs_and_singles", "compress_ranges([1, 2, 3, 5, 7, 8])", '"1-3,5,7-8"'),
        ("test_unsorted_with_duplicates", "compress_ranges([4, 2, 3, 3, 10])", '"2-4,10"'),
        ("test_negative_run", "compress_ranges([-3, -2, -1, 1])", '"-3--1,1"'),
    ],
    hidden=[
        ("test_empty_list", "compress_ranges([])", '""'),
        ("test_single_value", "compress_ranges([5])", '"5"'),
        ("test_all_duplicates", "compress_ranges([5, 5, 5])", '"5"'),
        ("test_run_crossing_zero", "compress_ranges([0, -1])", '"-1-0"'),
        ("test_no_runs", "compress_ranges([1, 3, 5])", '"1,3,5"'),
        ("test_descending_input", "compress_ranges([10, 9, 8, 7])", '"7-10"'),
        ("test_mixed", "compress_ranges([-5, -4, 0, 1, 2, 100])", '"-5--4,0-2,100"'),
    ],
    reference="""
    def compress_ranges(nums):
        values = sorted(set(nums))
        parts = []
        i = 0
        while i < len(values):
            j = i
            while j + 1 < len(values) and values[j + 1] == values[j] + 1:
                j += 1
            parts.append(str(values[i]) if i == j else f"{values[i]}-{values[j]}")
            i = j + 1
        return ",".join(parts)
    """,
    naive="""
    def compress_ranges(nums):
        values = sorted(nums)
        parts = []
        i = 0
        while i < len(values):
            j = i
            while j + 1 < len(values) and values[j + 1] == values[j] + 1:
                j += 1
            parts.append(str(values[i]) if i == j else f"{values[i]}-{values[j]}")
            i = j + 1
        return ",".join(parts)
    """,
)

T(
    id="expand_ranges",
    difficulty="medium",
    signature="expand_ranges(spec: str) -> list[int]",
    desc="""
    parses a comma-separated list of items, where each item is either a non-negative
    integer "n" or an inclusive range "a-b" of non-negative integers with a <= b. Spaces
    around items and around the "-" are allowed and ignored. Return all the integers
    described, in the order the items appear (each range in increasing order), keeping
    duplicates. An empty string, or a string containing only spaces, returns [].
    """,
    visible=[
        ("test_range_and_number", 'expand_ranges("1-3,5")', "[1, 2, 3, 5]"),
        ("test_spaces_and_item_order", 'expand_ranges(" 7 , 2 - 4 ")', "[7, 2, 3, 4]"),
        ("test_empty_string", 'expand_ranges("")', "[]"),
    ],
    hidden=[
        ("test_only_spaces", 'expand_ranges("   ")', "[]"),
        ("test_single_number", 'expand_ranges("5")', "[5]"),
        ("test_degenerate_range", 'expand_ranges("3-3")', "[3]"),
        ("test_duplicates_kept", 'expand_ranges("1,1,1-2")', "[1, 1, 1, 2]"),
        ("test_multi_digit_range_then_zero", 'expand_ranges("10-12,0")', "[10, 11, 12, 0]"),
        ("test_spaces_around_dash", 'expand_ranges("0 - 2, 8-9")', "[0, 1, 2, 8, 9]"),
        ("test_three_digit_number", 'expand_ranges("100")', "[100]"),
    ],
    reference="""
    def expand_ranges(spec):
        result = []
        if not spec.strip():
            return result
        for item in spec.split(","):
            item = item.strip()
            if "-" in item:
                a, b = item.split("-")
                result.extend(range(int(a), int(b) + 1))
            else:
                result.append(int(item))
        return result
    """,
    naive="""
    def expand_ranges(spec):
        result = []
        if spec == "":
            return result
        for item in spec.split(","):
            if "-" in item:
                a, b = item.split("-")
                result.extend(range(int(a), int(b) + 1))
            else:
                result.append(int(item))
        return result
    """,
)

T(
    id="parse_duration",
    difficulty="medium",
    signature="parse_duration(text: str) -> int",
    desc="""
    converts a duration string such as "1h30m" into a number of seconds. The string is a
    sequence of one or more components; each component is a non-negative integer (one or
    more ASCII digits) immediately followed by a unit letter: "d" (86400 seconds), "h"
    (3600), "m" (60) or "s" (1). The units must appear in the order d, h, m, s, each at most
    once, with nothing else in the string (no spaces, no other characters). Return the total
    number of seconds. If the string is empty or does not follow this format, raise
    ValueError.
    """,
    visible=[
        ("test_hours_and_minutes", 'parse_duration("1h30m")', "5400"),
        ("test_days_and_seconds", 'parse_duration("2d5s")', "172805"),
        ("test_seconds_only", 'parse_duration("45s")', "45"),
    ],
    hidden=[
        ("test_zero_seconds", 'parse_duration("0s")', "0"),
        ("test_all_units", 'parse_duration("1d1h1m1s")', "90061"),
        ("test_large_minutes", 'parse_duration("90m")', "5400"),
        ("test_empty_string_raises", 'parse_duration("")', Raises("ValueError")),
        ("test_number_without_unit_raises", 'parse_duration("5")', Raises("ValueError")),
        ("test_wrong_unit_order_raises", 'parse_duration("1m1h")', Raises("ValueError")),
        ("test_repeated_unit_raises", 'parse_duration("1h1h")', Raises("ValueError")),
        ("test_space_raises", 'parse_duration("1 h")', Raises("ValueError")),
        ("test_unit_without_number_raises", 'parse_duration("h")', Raises("ValueError")),
        ("test_unknown_unit_raises", 'parse_duration("3x")', Raises("ValueError")),
    ],
    reference="""
    import re

    _PATTERN = re.compile(r"(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?")

    def parse_duration(text):
        match = _PATTERN.fullmatch(text)
        if not text or match is None:
            raise ValueError(f"invalid duration: {text!r}")
        total = 0
        for value, factor in zip(match.groups(), (86400, 3600, 60, 1)):
            if value is not None:
                total += int(value) * factor
        return total
    """,
    naive="""
    import re

    def parse_duration(text):
        factors = {"d": 86400, "h": 3600, "m": 60, "s": 1}
        parts = re.findall(r"(\\d+)([dhms])", text)
        if not parts:
            raise ValueError(text)
        return sum(int(n) * factors[u] for n, u in parts)
    """,
)

T(
    id="top_k_words",
    difficulty="medium",
    signature="top_k_words(text: str, k: int) -> list[str]",
    desc="""
    returns the k most frequent words in text. A word is a maximal sequence of ASCII
    letters (a-z, A-Z); every other character separates words. Words are compared
    case-insensitively and returned in lowercase. Order the result by descending frequency,
    breaking ties alphabetically (ascending). If there are fewer than k distinct words,
    return all of them. k is a non-negative integer.
    """,
    visible=[
        (
            "test_most_frequent_then_alphabetical",
            'top_k_words("the cat and the hat", 2)',
            '["the", "and"]',
        ),
        ("test_case_insensitive_with_tie", 'top_k_words("B b a A c", 2)', '["a", "b"]'),
        ("test_empty_text", 'top_k_words("", 3)', "[]"),
    ],
    hidden=[
        ("test_fewer_words_than_k", 'top_k_words("one", 5)', '["one"]'),
        ("test_k_zero", 'top_k_words("x y z", 0)', "[]"),
        ("test_apostrophe_splits_words", "top_k_words(\"it's it's\", 1)", '["it"]'),
        ("test_punctuation_separates", 'top_k_words("dog,dog;cat!CAT cat", 2)', '["cat", "dog"]'),
        ("test_digits_separate_words", 'top_k_words("a1b2a", 3)', '["a", "b"]'),
        ("test_all_ties_alphabetical", 'top_k_words("z y x", 3)', '["x", "y", "z"]'),
        (
            "test_mixed_case_counts_together",
            'top_k_words("Apple apple banana", 2)',
            '["apple", "banana"]',
        ),
    ],
    reference="""
    import re
    from collections import Counter

    def top_k_words(text, k):
        counts = Counter(word.lower() for word in re.findall(r"[A-Za-z]+", text))
        ordered = sorted(counts, key=lambda word: (-counts[word], word))
        return ordered[:k]
    """,
    naive="""
    import re
    from collections import Counter

    def top_k_words(text, k):
        counts = Counter(word.lower() for word in re.findall(r"[A-Za-z]+", text))
        return [word for word, _ in counts.most_common(k)]
    """,
)

T(
    id="anti_diagonals",
    difficulty="medium",
    signature="anti_diagonals(matrix: list[list]) -> list[list]",
    desc="""
    returns the anti-diagonals of a rectangular matrix given as a list of rows (not
    necessarily square). The d-th anti-diagonal (d = 0, 1, 2, ...) contains every element
    matrix[r][c] with r + c == d, ordered by increasing row r. Return the anti-diagonals as
    a list of lists in order of increasing d. A matrix with no rows, or whose rows are all
    empty, returns [].
    """,
    visible=[
        (
            "test_wide_matrix",
            "anti_diagonals([[1, 2, 3], [4, 5, 6]])",
            "[[1], [2, 4], [3, 5], [6]]",
        ),
        (
            "test_tall_matrix",
            "anti_diagonals([[1, 2], [3, 4], [5, 6]])",
            "[[1], [2, 3], [4, 5], [6]]",
        ),
        ("test_no_rows", "anti_diagonals([])", "[]"),
    ],
    hidden=[
        ("test_single_cell", "anti_diagonals([[7]])", "[[7]]"),
        ("test_single_row", "anti_diagonals([[1, 2, 3]])", "[[1], [2], [3]]"),
        ("test_single_column", "anti_diagonals([[1], [2], [3]])", "[[1], [2], [3]]"),
        ("test_rows_without_columns", "anti_diagonals([[], []])", "[]"),
        ("test_two_by_two", "anti_diagonals([[1, 2], [3, 4]])", "[[1], [2, 3], [4]]"),
        (
            "test_three_by_three",
            "anti_diagonals([[1, 2, 3], [4, 5, 6], [7, 8, 9]])",
            "[[1], [2, 4], [3, 5, 7], [6, 8], [9]]",
        ),
        (
            "test_string_elements",
            'anti_diagonals([["a", "b"], ["c", "d"]])',
            '[["a"], ["b", "c"], ["d"]]',
        ),
    ],
    reference="""
    def anti_diagonals(matrix):
        if not matrix or not matrix[0]:
            return []
        rows, cols = len(matrix), len(matrix[0])
        return [
            [matrix[r][d - r] for r in range(rows) if 0 <= d - r < cols]
            for d in range(rows + cols - 1)
        ]
    """,
    naive="""
    def anti_diagonals(matrix):
        if not matrix:
            return []
        rows, cols = len(matrix), len(matrix[0])
        return [
            [matrix[r][d - r] for r in range(rows) if 0 <= d - r < cols]
            for d in range(rows + cols - 1)
        ]
    """,
)

T(
    id="stack_machine",
    difficulty="medium",
    signature="stack_machine(program: list[str]) -> list[int]",
    desc="""
    executes a list of instruction strings on an initially empty stack of integers and
    returns the final stack as a list, bottom first. Instructions:
    - "push N" pushes the integer N (which may be negative);
    - "pop" removes the top value;
    - "dup" pushes a copy of the top value;
    - "swap" exchanges the top two values;
    - "add" and "mul" pop the top two values and push their sum or product;
    - "sub" pops the top value b, then the next value a, and pushes a - b.

    If an instruction needs more values than the stack holds, or an instruction is not one
    of these, raise ValueError.
    """,
    visible=[
        ("test_add_dup_mul", 'stack_machine(["push 3", "push 4", "add", "dup", "mul"])', "[49]"),
        (
            "test_sub_order_and_negative_push",
            'stack_machine(["push 10", "push 4", "sub", "push -2"])',
            "[6, -2]",
        ),
        ("test_swap_then_pop", 'stack_machine(["push 1", "push 2", "swap", "pop"])', "[2]"),
    ],
    hidden=[
        ("test_empty_program", "stack_machine([])", "[]"),
        ("test_push_then_pop", 'stack_machine(["push 5", "pop"])', "[]"),
        ("test_pop_on_empty_raises", 'stack_machine(["pop"])', Raises("ValueError")),
        (
            "test_swap_with_one_value_raises",
            'stack_machine(["push 1", "swap"])',
            Raises("ValueError"),
        ),
        (
            "test_unknown_instruction_raises",
            'stack_machine(["push 1", "jump"])',
            Raises("ValueError"),
        ),
        ("test_add_on_empty_raises", 'stack_machine(["add"])', Raises("ValueError")),
        (
            "test_mul_then_sub",
            'stack_machine(["push 2", "push 3", "push 4", "mul", "sub"])',
            "[-10]",
        ),
        ("test_square_negative", 'stack_machine(["push -3", "dup", "mul"])', "[9]"),
        (
            "test_swap_only_touches_top_two",
            'stack_machine(["push 1", "push 2", "push 3", "swap"])',
            "[1, 3, 2]",
        ),
    ],
    reference="""
    def stack_machine(program):
        stack = []

        def need(count):
            if len(stack) < count:
                raise ValueError("stack underflow")

        for instruction in program:
            parts = instruction.split()
            op = parts[0] if parts else ""
            if op == "push" and len(parts) == 2:
                stack.append(int(parts[1]))
            elif op == "pop" and len(parts) == 1:
                need(1)
                stack.pop()
            elif op == "dup" and len(parts) == 1:
                need(1)
                stack.append(stack[-1])
            elif op == "swap" and len(parts) == 1:
                need(2)
                stack[-1], stack[-2] = stack[-2], stack[-1]
            elif op in ("add", "mul", "sub") and len(parts) == 1:
                need(2)
                b = stack.pop()
                a = stack.pop()
                stack.append(a + b if op == "add" else a * b if op == "mul" else a - b)
            else:
                raise ValueError(f"unknown instruction: {instruction!r}")
        return stack
    """,
    naive="""
    def stack_machine(program):
        stack = []
        for instruction in program:
            parts = instruction.split()
            op = parts[0]
            if op == "push":
                stack.append(int(parts[1]))
            elif op == "pop":
                stack.pop()
            elif op == "dup":
                stack.append(stack[-1])
            elif op == "swap":
                stack[-1], stack[-2] = stack[-2], stack[-1]
            elif op in ("add", "mul", "sub"):
                b = stack.pop()
                a = stack.pop()
                stack.append(a + b if op == "add" else a * b if op == "mul" else a - b)
            else:
                raise ValueError(instruction)
        return stack
    """,
)

T(
    id="server_finish_times",
    difficulty="medium",
    signature="server_finish_times(arrivals: list[int], durations: list[int]) -> list[int]",
    desc="""
    simulates a single server that processes jobs one at a time in order of arrival.
    arrivals[i] is the arrival time of job i (the list is non-decreasing) and durations[i]
    is its processing time (a non-negative integer); both lists have the same length. A job
    starts at the later of its arrival time and the time the previous job finished, so the
    server may sit idle between jobs. Return the list of finish times, one per job, in input
    order. Empty inputs return [].
    """,
    visible=[
        ("test_back_to_back_jobs", "server_finish_times([0, 1, 2], [3, 3, 3])", "[3, 6, 9]"),
        ("test_idle_gap_between_jobs", "server_finish_times([0, 10], [2, 2])", "[2, 12]"),
        ("test_no_jobs", "server_finish_times([], [])", "[]"),
    ],
    hidden=[
        ("test_zero_duration_job", "server_finish_times([5], [0])", "[5]"),
        ("test_simultaneous_arrivals", "server_finish_times([1, 1, 1], [1, 1, 1])", "[2, 3, 4]"),
        (
            "test_queue_then_idle",
            "server_finish_times([0, 2, 3, 20], [5, 1, 1, 1])",
            "[5, 6, 7, 21]",
        ),
        ("test_zero_durations_with_gap", "server_finish_times([3, 4], [0, 0])", "[3, 4]"),
        ("test_second_job_waits", "server_finish_times([2, 3], [5, 1])", "[7, 8]"),
        ("test_first_job_starts_late", "server_finish_times([4, 4], [1, 1])", "[5, 6]"),
    ],
    reference="""
    def server_finish_times(arrivals, durations):
        finished = []
        free_at = None
        for arrival, duration in zip(arrivals, durations):
            start = arrival if free_at is None else max(arrival, free_at)
            free_at = start + duration
            finished.append(free_at)
        return finished
    """,
    naive="""
    def server_finish_times(arrivals, durations):
        # forgets the queue: waits only for the previous job's own arrival + duration
        finished = []
        for i, (arrival, duration) in enumerate(zip(arrivals, durations)):
            previous_end = arrivals[i - 1] + durations[i - 1] if i else arrival
            finished.append(max(arrival, previous_end) + duration)
        return finished
    """,
)

T(
    id="elimination_order",
    difficulty="medium",
    signature="elimination_order(n: int, k: int) -> list[int]",
    desc="""
    simulates a counting-out game. n people numbered 1 to n stand in a circle. Starting at
    person 1, count k people clockwise (person 1 is counted as 1); the k-th person counted
    leaves the circle, and counting restarts at 1 with the next person still in the circle.
    Repeat until everyone has left. Return the numbers of the people in the order they leave.
    n >= 0 and k >= 1; for n = 0 return [].
    """,
    visible=[
        ("test_every_second_person", "elimination_order(5, 2)", "[2, 4, 1, 5, 3]"),
        ("test_k_one_is_in_order", "elimination_order(4, 1)", "[1, 2, 3, 4]"),
        ("test_k_larger_than_n", "elimination_order(3, 5)", "[2, 3, 1]"),
    ],
    hidden=[
        ("test_nobody", "elimination_order(0, 3)", "[]"),
        ("test_one_person", "elimination_order(1, 7)", "[1]"),
        ("test_seven_people_every_third", "elimination_order(7, 3)", "[3, 6, 2, 7, 5, 1, 4]"),
        ("test_k_equal_to_n", "elimination_order(6, 6)", "[6, 1, 3, 2, 5, 4]"),
        ("test_two_people", "elimination_order(2, 2)", "[2, 1]"),
        (
            "test_ten_people_every_third",
            "elimination_order(10, 3)",
            "[3, 6, 9, 2, 7, 1, 8, 5, 10, 4]",
        ),
    ],
    reference="""
    def elimination_order(n, k):
        people = list(range(1, n + 1))
        order = []
        index = 0
        while people:
            index = (index + k - 1) % len(people)
            order.append(people.pop(index))
        return order
    """,
    naive="""
    def elimination_order(n, k):
        people = list(range(1, n + 1))
        order = []
        index = 0
        while people:
            index = (index + k) % len(people)
            order.append(people.pop(index))
        return order
    """,
)

T(
    id="count_step_sequences",
    difficulty="medium",
    signature="count_step_sequences(n: int, steps: list[int]) -> int",
    desc="""
    returns the number of ordered sequences of step sizes, each taken from `steps` (a list
    of distinct positive integers, each usable any number of times), whose sum is exactly n.
    Different orders count as different sequences: with steps [1, 2] there are 3 sequences
    for n = 3 (1+1+1, 1+2 and 2+1). For n = 0 the answer is 1 (the empty sequence); for a
    negative n it is 0.
    """,
    visible=[
        ("test_ones_and_twos", "count_step_sequences(3, [1, 2])", "3"),
        ("test_ones_and_threes", "count_step_sequences(4, [1, 3])", "3"),
        ("test_zero_has_one_empty_sequence", "count_step_sequences(0, [5])", "1"),
    ],
    hidden=[
        ("test_negative_n", "count_step_sequences(-2, [1])", "0"),
        ("test_unreachable", "count_step_sequences(5, [2])", "0"),
        ("test_ten_with_ones_and_twos", "count_step_sequences(10, [1, 2])", "89"),
        ("test_twos_and_threes", "count_step_sequences(7, [2, 3])", "3"),
        ("test_three_step_sizes", "count_step_sequences(4, [1, 2, 3])", "7"),
        ("test_twenty_with_ones_and_twos", "count_step_sequences(20, [1, 2])", "10946"),
        ("test_single_step_exact", "count_step_sequences(1, [1, 2])", "1"),
        ("test_unsorted_steps", "count_step_sequences(5, [3, 1])", "4"),
    ],
    reference="""
    def count_step_sequences(n, steps):
        if n < 0:
            return 0
        ways = [0] * (n + 1)
        ways[0] = 1
        for total in range(1, n + 1):
            ways[total] = sum(ways[total - s] for s in steps if s <= total)
        return ways[n]
    """,
    naive="""
    def count_step_sequences(n, steps):
        if n < 0:
            return 0
        ways = [0] * (n + 1)
        ways[0] = 1
        for s in steps:
            for total in range(s, n + 1):
                ways[total] += ways[total - s]
        return ways[n]
    """,
)

T(
    id="factorization_string",
    difficulty="medium",
    signature="factorization_string(n: int) -> str",
    desc="""
    returns the prime factorization of an integer n >= 1 as a string: the distinct prime
    factors in increasing order, each written as "p" if it divides n exactly once or as
    "p^e" if it appears e > 1 times, joined by " * " (space, asterisk, space). For n = 1
    return "1". n can be as large as 10**12.
    """,
    visible=[
        ("test_mixed_exponents", "factorization_string(360)", '"2^3 * 3^2 * 5"'),
        ("test_prime", "factorization_string(13)", '"13"'),
        ("test_one", "factorization_string(1)", '"1"'),
    ],
    hidden=[
        ("test_two", "factorization_string(2)", '"2"'),
        ("test_power_of_two", "factorization_string(1024)", '"2^10"'),
        ("test_distinct_primes", "factorization_string(30)", '"2 * 3 * 5"'),
        ("test_square_of_prime", "factorization_string(49)", '"7^2"'),
        ("test_square_of_larger_prime", "factorization_string(9409)", '"97^2"'),
        ("test_large_prime_factor", "factorization_string(1999966)", '"2 * 999983"'),
        (
            "test_twelve_digit_number",
            "factorization_string(600851475143)",
            '"71 * 839 * 1471 * 6857"',
        ),
        ("test_million", "factorization_string(1000000)", '"2^6 * 5^6"'),
    ],
    reference="""
    def factorization_string(n):
        if n == 1:
            return "1"
        parts = []
        d = 2
        while d * d <= n:
            exponent = 0
            while n % d == 0:
                n //= d
                exponent += 1
            if exponent:
                parts.append(str(d) if exponent == 1 else f"{d}^{exponent}")
            d += 1
        if n > 1:
            parts.append(str(n))
        return " * ".join(parts)
    """,
    naive="""
    def factorization_string(n):
        if n == 1:
            return "1"
        parts = []
        d = 2
        while d * d < n:
            exponent = 0
            while n % d == 0:
                n //= d
                exponent += 1
            if exponent:
                parts.append(str(d) if exponent == 1 else f"{d}^{exponent}")
            d += 1
        if n > 1:
            parts.append(str(n))
        return " * ".join(parts)
    """,
)

T(
    id="to_base",
    difficulty="medium",
    signature="to_base(n: int, base: int) -> str",
    desc="""
    converts the integer n to its representation in the given base (2 <= base <= 36),
    using the digits 0-9 and then lowercase letters a-z for digit values 10 to 35. Negative
    numbers get a leading "-". Zero is "0". Do not add any prefix such as "0x" or "0b".
    """,
    visible=[
        ("test_hexadecimal", "to_base(255, 16)", '"ff"'),
        ("test_negative_binary", "to_base(-10, 2)", '"-1010"'),
        ("test_zero", "to_base(0, 7)", '"0"'),
    ],
    hidden=[
        ("test_largest_single_digit_base_36", "to_base(35, 36)", '"z"'),
        ("test_base_36_carry", "to_base(36, 36)", '"10"'),
        ("test_one_in_binary", "to_base(1, 2)", '"1"'),
        ("test_negative_hexadecimal", "to_base(-255, 16)", '"-ff"'),
        ("test_large_base_36", "to_base(123456789, 36)", '"21i3v9"'),
        ("test_base_equals_number", "to_base(8, 8)", '"10"'),
        ("test_decimal", "to_base(100, 10)", '"100"'),
        ("test_negative_one", "to_base(-1, 3)", '"-1"'),
    ],
    reference="""
    def to_base(n, base):
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"
        if n == 0:
            return "0"
        sign = "-" if n < 0 else ""
        n = abs(n)
        out = []
        while n:
            n, r = divmod(n, base)
            out.append(digits[r])
        return sign + "".join(reversed(out))
    """,
    naive="""
    def to_base(n, base):
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"
        if n == 0:
            return "0"
        sign = "-" if n < 0 else ""
        n = abs(n)
        out = ""
        while n:
            out = digits[n % base] + out
            n //= base
        return sign + out.upper() if base > 10 else sign + out
    """,
)

T(
    id="wrap_words",
    difficulty="medium",
    signature="wrap_words(text: str, width: int) -> list[str]",
    desc="""
    wraps text into lines of at most `width` characters using a greedy algorithm. Words
    are the maximal runs of non-whitespace characters (split on any whitespace, including
    newlines and tabs). Fill each line with as many words as fit, separated by single
    spaces (a line of exactly width characters is allowed), then start a new line. A word
    longer than width is put alone on its own line without being broken. Return the list of
    lines, with no leading or trailing spaces. Text with no words returns [].
    """,
    visible=[
        ("test_two_lines", 'wrap_words("the quick brown fox", 10)', '["the quick", "brown fox"]'),
        ("test_line_of_exact_width", 'wrap_words("a bb ccc", 4)', '["a bb", "ccc"]'),
        (
            "test_overlong_word_gets_own_line",
            'wrap_words("tiny extraordinarily big", 6)',
            '["tiny", "extraordinarily", "big"]',
        ),
    ],
    hidden=[
        ("test_empty_text", 'wrap_words("", 5)', "[]"),
        ("test_only_whitespace", 'wrap_words("   \\n ", 3)', "[]"),
        ("test_single_word_exact_width", 'wrap_words("one", 3)', '["one"]'),
        ("test_two_words_exact_width", 'wrap_words("aa bb", 5)', '["aa bb"]'),
        ("test_two_words_one_too_wide", 'wrap_words("aa bb", 4)', '["aa", "bb"]'),
        ("test_mixed_whitespace", 'wrap_words("a  b\\tc\\nd", 3)', '["a b", "c d"]'),
        ("test_overlong_first_word", 'wrap_words("xxxxxxx a b", 3)', '["xxxxxxx", "a b"]'),
        ("test_width_one", 'wrap_words("a b c d e", 1)', '["a", "b", "c", "d", "e"]'),
    ],
    reference="""
    def wrap_words(text, width):
        lines = []
        current = ""
        for word in text.split():
            if not current:
                current = word
            elif len(current) + 1 + len(word) <= width:
                current += " " + word
            else:
                lines.append(current)
                current = word
        if current:
            lines.append(current)
        return lines
    """,
    naive="""
    def wrap_words(text, width):
        lines = []
        current = ""
        for word in text.split(" "):
            if not current:
                current = word
            elif len(current) + 1 + len(word) <= width:
                current += " " + word
            else:
                lines.append(current)
                current = word
        if current:
            lines.append(current)
        return lines
    """,
)

T(
    id="version_compare",
    difficulty="medium",
    signature="version_compare(a: str, b: str) -> int",
    desc="""
    compares two version strings made of non-negative integers separated by dots (such as
    "1.10.2"). Compare component by component, numerically, from the left (so "1.10" is
    greater than "1.9"). A missing component counts as 0, so "1.2" and "1.2.0.0" are equal,
    and "2" is less than "2.0.1". Leading zeros in a component do not matter ("1.01" equals
    "1.1"). Return -1 if a < b, 0 if they are equal and 1 if a > b.
    """,
    visible=[
        ("test_numeric_not_lexicographic", 'version_compare("1.10", "1.9")', "1"),
        ("test_missing_component_is_zero", 'version_compare("1.2", "1.2.0")', "0"),
        ("test_shorter_but_greater", 'version_compare("0.9.9", "1")', "-1"),
    ],
    hidden=[
        ("test_leading_zeros", 'version_compare("1.01", "1.1")', "0"),
        ("test_extra_nonzero_component", 'version_compare("2", "2.0.1")', "-1"),
        ("test_trailing_zeros_on_left", 'version_compare("3.0.0", "3")', "0"),
        ("test_identical", 'version_compare("1.2.3", "1.2.3")', "0"),
        ("test_major_wins", 'version_compare("10.0", "9.99")', "1"),
        ("test_last_component_numeric", 'version_compare("1.0.10", "1.0.9")', "1"),
        ("test_many_zero_components", 'version_compare("0", "0.0.0.0")', "0"),
        ("test_longer_left_is_greater", 'version_compare("1.2.0.1", "1.2")', "1"),
    ],
    reference="""
    def version_compare(a, b):
        xs = [int(p) for p in a.split(".")]
        ys = [int(p) for p in b.split(".")]
        length = max(len(xs), len(ys))
        xs += [0] * (length - len(xs))
        ys += [0] * (length - len(ys))
        return (xs > ys) - (xs < ys)
    """,
    naive="""
    def version_compare(a, b):
        for x, y in zip(a.split("."), b.split(".")):
            if int(x) != int(y):
                return 1 if int(x) > int(y) else -1
        return 0
    """,
)

T(
    id="flatten_keys",
    difficulty="medium",
    signature='flatten_keys(d: dict, sep: str = ".") -> dict',
    desc="""
    flattens a nested dictionary whose keys are strings. Every value that is itself a
    dictionary is replaced by its entries, with each child key joined to its parent key by
    `sep`, at any depth. Values that are not dictionaries (including lists and tuples, even
    if they contain dictionaries) are kept as they are. Empty nested dictionaries disappear:
    they contribute no keys. Keys appear in the result in depth-first order of the input
    (the same order you would meet them reading the input from left to right).
    """,
    visible=[
        (
            "test_two_levels_default_separator",
            'flatten_keys({"a": {"b": 1, "c": {"d": 2}}, "e": 3})',
            '{"a.b": 1, "a.c.d": 2, "e": 3}',
        ),
        ("test_custom_separator", 'flatten_keys({"x": {"y": 5}}, "/")', '{"x/y": 5}'),
        (
            "test_empty_dict_dropped_and_lists_kept",
            'flatten_keys({"k": {}, "m": [1, {"n": 2}]})',
            '{"m": [1, {"n": 2}]}',
        ),
    ],
    hidden=[
        ("test_empty_input", "flatten_keys({})", "{}"),
        ("test_already_flat", 'flatten_keys({"a": 1})', '{"a": 1}'),
        (
            "test_deep_nesting_with_none",
            'flatten_keys({"a": {"b": {"c": {"d": None}}}})',
            '{"a.b.c.d": None}',
        ),
        ("test_multi_character_separator", 'flatten_keys({"a": {"b": 1}}, "__")', '{"a__b": 1}'),
        (
            "test_custom_separator_at_every_level",
            'flatten_keys({"a": {"b": {"c": 1}}}, "/")',
            '{"a/b/c": 1}',
        ),
        ("test_only_empty_dicts", 'flatten_keys({"a": {}, "b": {"c": {}}})', "{}"),
        (
            "test_key_order_is_depth_first",
            'list(flatten_keys({"z": 1, "a": {"y": 2}, "b": 3}))',
            '["z", "a.y", "b"]',
        ),
        (
            "test_tuple_value_kept",
            'flatten_keys({"p": {"q": [1, 2]}, "r": (1,)})',
            '{"p.q": [1, 2], "r": (1,)}',
        ),
    ],
    reference="""
    def flatten_keys(d, sep="."):
        out = {}

        def walk(prefix, value):
            for key, child in value.items():
                full = key if prefix is None else prefix + sep + key
                if isinstance(child, dict):
                    walk(full, child)
                else:
                    out[full] = child

        walk(None, d)
        return out
    """,
    naive="""
    def flatten_keys(d, sep="."):
        out = {}
        for key, value in d.items():
            if isinstance(value, dict):
                for child_key, child in flatten_keys(value).items():
                    out[key + sep + child_key] = child
            else:
                out[key] = value
        return out
    """,
)

T(
    id="robot_walk",
    difficulty="medium",
    signature="robot_walk(commands: str) -> tuple[int, int, str]",
    desc="""
    simulates a robot on an infinite grid. It starts at (0, 0) facing north; moving north
    increases y and moving east increases x. `commands` is a string of tokens separated by
    one or more spaces: "L" turns left 90 degrees, "R" turns right 90 degrees, "F" followed
    by a positive integer (e.g. "F3" or "F12") moves forward that many cells, and "B"
    followed by a positive integer moves backward that many cells without changing the
    direction the robot faces. Return (x, y, facing) where facing is one of "N", "E", "S",
    "W". An empty (or all-space) command string leaves the robot at (0, 0) facing "N".
    """,
    visible=[
        ("test_forward_turn_forward", 'robot_walk("F2 R F3")', '(3, 2, "E")'),
        ("test_backward_keeps_facing", 'robot_walk("L L B4")', '(0, 4, "S")'),
        ("test_no_commands", 'robot_walk("")', '(0, 0, "N")'),
    ],
    hidden=[
        ("test_full_turn", 'robot_walk("R R R R")', '(0, 0, "N")'),
        ("test_left_then_forward", 'robot_walk("L F1")', '(-1, 0, "W")'),
        ("test_forward_then_back", 'robot_walk("F10 B3")', '(0, 7, "N")'),
        ("test_multi_digit_and_turns", 'robot_walk("R F12 L F1 L L F5")', '(12, -4, "S")'),
        ("test_extra_spaces", 'robot_walk("  F1   R  ")', '(0, 1, "E")'),
        ("test_backward_while_facing_west", 'robot_walk("L B2")', '(2, 0, "W")'),
        ("test_ending_west_in_negative_quadrant", 'robot_walk("R R F3 R F1")', '(-1, -3, "W")'),
        ("test_only_spaces", 'robot_walk("   ")', '(0, 0, "N")'),
    ],
    reference="""
    def robot_walk(commands):
        headings = ["N", "E", "S", "W"]
        moves = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
        x = y = 0
        facing = 0
        for token in commands.split():
            if token == "L":
                facing = (facing - 1) % 4
            elif token == "R":
                facing = (facing + 1) % 4
            else:
                steps = int(token[1:])
                if token[0] == "B":
                    steps = -steps
                dx, dy = moves[headings[facing]]
                x += dx * steps
                y += dy * steps
        return (x, y, headings[facing])
    """,
    naive="""
    def robot_walk(commands):
        if not commands:
            return (0, 0, "N")
        headings = ["N", "E", "S", "W"]
        moves = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
        x = y = 0
        facing = 0
        for token in commands.split(" "):
            if token == "L":
                facing = (facing - 1) % 4
            elif token == "R":
                facing = (facing + 1) % 4
            else:
                steps = int(token[1:])
                if token[0] == "B":
                    steps = -steps
                dx, dy = moves[headings[facing]]
                x += dx * steps
                y += dy * steps
        return (x, y, headings[facing])
    """,
)

T(
    id="ledger_apply",
    difficulty="medium",
    signature="ledger_apply(balance: int, transactions: list[tuple[str, int]]) -> tuple[int, list[int]]",
    desc="""
    applies transactions to a starting balance (a non-negative integer). Each transaction
    is a tuple (kind, amount) where kind is "deposit" or "withdraw" and amount is a positive
    integer. A withdrawal that would make the balance negative is rejected and skipped (the
    balance does not change); a withdrawal that leaves the balance at exactly 0 is allowed.
    Return a tuple (final_balance, rejected) where rejected is the list of the 0-based
    indices of the rejected transactions, in increasing order.
    """,
    visible=[
        (
            "test_overdraft_rejected",
            'ledger_apply(100, [("withdraw", 30), ("deposit", 10), ("withdraw", 100)])',
            "(80, [2])",
        ),
        (
            "test_withdraw_to_exactly_zero",
            'ledger_apply(50, [("withdraw", 50), ("withdraw", 1)])',
            "(0, [1])",
        ),
        ("test_no_transactions", "ledger_apply(0, [])", "(0, [])"),
    ],
    hidden=[
        ("test_withdraw_from_zero", 'ledger_apply(0, [("withdraw", 1)])', "(0, [0])"),
        (
            "test_rejected_then_allowed_after_deposit",
            'ledger_apply(10, [("withdraw", 20), ("deposit", 15), ("withdraw", 20)])',
            "(5, [0])",
        ),
        (
            "test_only_deposits",
            'ledger_apply(5, [("deposit", 5), ("deposit", 5), ("deposit", 5)])',
            "(20, [])",
        ),
        (
            "test_several_rejections",
            'ledger_apply(1, [("withdraw", 2), ("withdraw", 2), ("withdraw", 1)])',
            "(0, [0, 1])",
        ),
        (
            "test_zero_balance_then_deposit_and_withdraw",
            'ledger_apply(100, [("withdraw", 100), ("deposit", 1), ("withdraw", 1)])',
            "(0, [])",
        ),
        ("test_single_overdraft", 'ledger_apply(7, [("withdraw", 8)])', "(7, [0])"),
    ],
    reference="""
    def ledger_apply(balance, transactions):
        rejected = []
        for index, (kind, amount) in enumerate(transactions):
            if kind == "deposit":
                balance += amount
            elif amount <= balance:
                balance -= amount
            else:
                rejected.append(index)
        return (balance, rejected)
    """,
    naive="""
    def ledger_apply(balance, transactions):
        rejected = []
        for index, (kind, amount) in enumerate(transactions):
            if kind == "deposit":
                balance += amount
            elif balance - amount > 0:
                balance -= amount
            else:
                rejected.append(index)
        return (balance, rejected)
    """,
)

T(
    id="mask_digits",
    difficulty="medium",
    signature="mask_digits(card: str) -> str",
    desc="""
    masks a card number. The string contains ASCII digits and possibly separator characters
    (spaces or hyphens). Replace every digit with "*" except the last 4 DIGITS of the string
    (separators do not count towards the 4), keeping every separator in its place. If the
    string contains 4 or fewer digits, return it unchanged.
    """,
    visible=[
        ("test_grouped_card_number", 'mask_digits("1234-5678-9012-3456")', '"****-****-****-3456"'),
        ("test_separator_inside_last_four_digits", 'mask_digits("12 345")', '"*2 345"'),
        ("test_too_few_digits", 'mask_digits("987")', '"987"'),
    ],
    hidden=[
        ("test_empty_string", 'mask_digits("")', '""'),
        ("test_exactly_four_digits", 'mask_digits("1234")', '"1234"'),
        ("test_five_digits", 'mask_digits("12345")', '"*2345"'),
        ("test_plain_digits", 'mask_digits("1234567890")', '"******7890"'),
        ("test_hyphen_pairs", 'mask_digits("12-34-56")', '"**-34-56"'),
        ("test_spaced_digits", 'mask_digits("1 2 3 4 5 6")', '"* * 3 4 5 6"'),
        ("test_separators_at_the_ends", 'mask_digits("--1234--")', '"--1234--"'),
    ],
    reference="""
    def mask_digits(card):
        total = sum(ch.isdigit() for ch in card)
        seen = 0
        out = []
        for ch in card:
            if ch.isdigit():
                seen += 1
                out.append("*" if seen <= total - 4 else ch)
            else:
                out.append(ch)
        return "".join(out)
    """,
    naive="""
    def mask_digits(card):
        if len(card) <= 4:
            return card
        head = "".join("*" if ch.isdigit() else ch for ch in card[:-4])
        return head + card[-4:]
    """,
)

T(
    id="is_valid_ipv4",
    difficulty="medium",
    signature="is_valid_ipv4(s: str) -> bool",
    desc="""
    returns True if s is a valid dotted-decimal IPv4 address and False otherwise. A valid
    address has exactly four parts separated by single dots; each part is a decimal number
    from 0 to 255 written with ASCII digits only: no sign, no spaces or other characters,
    and no leading zeros (the part "0" is fine, but "00" and "01" are not). Never raise an
    exception; return False for anything that is not valid.
    """,
    visible=[
        ("test_valid_address", 'is_valid_ipv4("192.168.0.1")', "True"),
        ("test_part_too_large", 'is_valid_ipv4("256.1.1.1")', "False"),
        ("test_leading_zero_rejected", 'is_valid_ipv4("01.2.3.4")', "False"),
    ],
    hidden=[
        ("test_all_zero", 'is_valid_ipv4("0.0.0.0")', "True"),
        ("test_all_max", 'is_valid_ipv4("255.255.255.255")', "True"),
        ("test_three_parts", 'is_valid_ipv4("1.2.3")', "False"),
        ("test_five_parts", 'is_valid_ipv4("1.2.3.4.5")', "False"),
        ("test_empty_part", 'is_valid_ipv4("1..2.3")', "False"),
        ("test_negative_part", 'is_valid_ipv4("1.2.3.-4")', "False"),
        ("test_plus_sign", 'is_valid_ipv4("+1.2.3.4")', "False"),
        ("test_leading_space", 'is_valid_ipv4(" 1.2.3.4")', "False"),
        ("test_letter_part", 'is_valid_ipv4("1.2.3.a")', "False"),
        ("test_empty_string", 'is_valid_ipv4("")', "False"),
    ],
    reference="""
    def is_valid_ipv4(s):
        parts = s.split(".")
        if len(parts) != 4:
            return False
        for part in parts:
            if not part or any(ch not in "0123456789" for ch in part):
                return False
            if len(part) > 1 and part[0] == "0":
                return False
            if int(part) > 255:
                return False
        return True
    """,
    naive="""
    def is_valid_ipv4(s):
        parts = s.split(".")
        if len(parts) != 4:
            return False
        for part in parts:
            try:
                value = int(part)
            except ValueError:
                return False
            if not 0 <= value <= 255:
                return False
            if len(part) > 1 and part[0] == "0":
                return False
        return True
    """,
)

T(
    id="histogram_bars",
    difficulty="medium",
    signature="histogram_bars(counts: dict[str, int]) -> str",
    desc="""
    draws a text histogram. `counts` maps label strings to non-negative integer counts.
    Return one line per label: the label left-justified (padded with spaces on the right) to
    the length of the longest label, then " | " (space, bar, space), then as many "#"
    characters as the count. A count of 0 still gets a line, which then ends with "| "
    (keep that trailing space). Order the lines by count, highest first, breaking ties by
    label in ascending order. Join the lines with "\\n", with no trailing newline. An empty
    dict returns "".
    """,
    visible=[
        (
            "test_ties_sorted_by_label_and_padding",
            'histogram_bars({"cat": 3, "ox": 1, "bee": 3})',
            r'"bee | ###\ncat | ###\nox  | #"',
        ),
        ("test_single_label", 'histogram_bars({"a": 2})', '"a | ##"'),
        ("test_empty_dict", "histogram_bars({})", '""'),
    ],
    hidden=[
        (
            "test_zero_count_keeps_trailing_space",
            'histogram_bars({"x": 0, "yy": 1})',
            r'"yy | #\nx  | "',
        ),
        ("test_all_ties", 'histogram_bars({"b": 1, "a": 1, "c": 1})', r'"a | #\nb | #\nc | #"'),
        (
            "test_long_label_pads_short_one",
            'histogram_bars({"long": 1, "s": 4})',
            r'"s    | ####\nlong | #"',
        ),
        ("test_five_hashes", 'histogram_bars({"q": 5})', '"q | #####"'),
        ("test_no_trailing_newline", 'histogram_bars({"a": 1, "b": 2}).endswith("\\n")', "False"),
        ("test_line_count", 'len(histogram_bars({"a": 1, "b": 2, "c": 0}).split("\\n"))', "3"),
    ],
    reference="""
    def histogram_bars(counts):
        if not counts:
            return ""
        width = max(len(label) for label in counts)
        ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        return "\\n".join(f"{label.ljust(width)} | {'#' * count}" for label, count in ordered)
    """,
    naive="""
    def histogram_bars(counts):
        if not counts:
            return ""
        width = max(len(label) for label in counts)
        ordered = sorted(counts.items(), key=lambda item: -item[1])
        return "\\n".join(f"{label.ljust(width)} | {'#' * count}" for label, count in ordered)
    """,
)
