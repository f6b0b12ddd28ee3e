"""Easy coding tasks (short single functions)."""

# ruff: noqa: E501 - long lines here are test data (calls and expected values)

from benchmarks.effectiveness.tasks.sources.taskdef import T

T(
    id="run_length_compact",
    difficulty="easy",
    signature="run_length_compact(s: str) -> str",
    desc="""
    compresses a string by replacing each maximal run of the same character with the
    character followed by the length of the run. A run of length 1 is written as the
    character alone (no "1"). Runs longer than 9 use the full decimal count, so twelve "z"
    characters become "z12". Characters are compared case-sensitively ("aA" is two runs).
    The input never contains digit characters. An empty string returns an empty string.
    """,
    visible=[
        ("test_runs_of_one_have_no_count", 'run_length_compact("aaabcc")', '"a3bc2"'),
        ("test_no_repeated_characters", 'run_length_compact("abc")', '"abc"'),
        ("test_long_run_uses_full_count", 'run_length_compact("zzzzzzzzzzzz")', '"z12"'),
    ],
    hidden=[
        ("test_empty_string", 'run_length_compact("")', '""'),
        ("test_case_sensitive_runs", 'run_length_compact("aA")', '"aA"'),
        ("test_same_character_in_separate_runs", 'run_length_compact("aabbaa")', '"a2b2a2"'),
        ("test_single_character", 'run_length_compact("x")', '"x"'),
        ("test_spaces_and_punctuation", 'run_length_compact("  !!")', '" 2!2"'),
        ("test_run_of_ten_in_the_middle", 'run_length_compact("abbbbbbbbbbc")', '"ab10c"'),
    ],
    reference="""
    def run_length_compact(s: str) -> str:
        out = []
        i = 0
        while i < len(s):
            j = i
            while j < len(s) and s[j] == s[i]:
                j += 1
            run = j - i
            out.append(s[i] if run == 1 else s[i] + str(run))
            i = j
        return "".join(out)
    """,
    naive="""
    from collections import Counter

    def run_length_compact(s):
        # counts characters overall instead of runs
        return "".join(c if n == 1 else c + str(n) for c, n in Counter(s).items())
    """,
)

T(
    id="custom_fizz",
    difficulty="easy",
    signature="custom_fizz(n: int, rules: list[tuple[int, str]]) -> list[str]",
    desc="""
    generalises the classic counting game. `rules` is a list of (divisor, word) pairs with
    positive integer divisors. For each integer i from 1 to n inclusive, produce one string:
    the concatenation of the words of every rule whose divisor divides i, in the order the
    rules appear in the list (do NOT sort them by divisor); if no rule matches, the decimal
    representation of i. Return the list of these strings. If n is 0 or negative, return an
    empty list. The same divisor may appear in several rules; each matching rule contributes
    its word.
    """,
    visible=[
        (
            "test_two_rules_in_given_order",
            'custom_fizz(6, [(2, "Ab"), (3, "Cd")])',
            '["1", "Ab", "Cd", "Ab", "5", "AbCd"]',
        ),
        (
            "test_rule_order_is_kept_not_sorted",
            'custom_fizz(4, [(4, "X"), (2, "Y")])',
            '["1", "Y", "3", "XY"]',
        ),
        ("test_zero_gives_empty_list", 'custom_fizz(0, [(2, "Z")])', "[]"),
    ],
    hidden=[
        ("test_negative_n", 'custom_fizz(-3, [(2, "Z")])', "[]"),
        ("test_no_rules_gives_numbers", "custom_fizz(3, [])", '["1", "2", "3"]'),
        (
            "test_duplicate_divisors_both_apply",
            'custom_fizz(4, [(2, "a"), (2, "b")])',
            '["1", "ab", "3", "ab"]',
        ),
        ("test_divisor_one_matches_everything", 'custom_fizz(2, [(1, "o")])', '["o", "o"]'),
        (
            "test_last_element_uses_given_order",
            'custom_fizz(15, [(5, "Five"), (3, "Three")])[-1]',
            '"FiveThree"',
        ),
        ("test_length_is_n", 'len(custom_fizz(10, [(7, "S")]))', "10"),
        ("test_seventh_element", 'custom_fizz(10, [(7, "S")])[6]', '"S"'),
    ],
    reference="""
    def custom_fizz(n, rules):
        result = []
        for i in range(1, n + 1):
            words = "".join(word for divisor, word in rules if i % divisor == 0)
            result.append(words or str(i))
        return result
    """,
    naive="""
    def custom_fizz(n, rules):
        result = []
        for i in range(1, n + 1):
            words = "".join(word for divisor, word in sorted(rules) if i % divisor == 0)
            result.append(words or str(i))
        return result
    """,
)

T(
    id="second_largest_distinct",
    difficulty="easy",
    signature="second_largest_distinct(nums: list[int]) -> int | None",
    desc="""
    returns the second largest distinct value in the list. Duplicates count once, so for
    [5, 5, 3] the answer is 3. Values may be negative. If the list has fewer than two
    distinct values (including the empty list), return None.
    """,
    visible=[
        ("test_plain_list", "second_largest_distinct([4, 1, 7, 3])", "4"),
        ("test_duplicates_of_the_maximum_count_once", "second_largest_distinct([5, 5, 3])", "3"),
        ("test_only_one_distinct_value", "second_largest_distinct([2, 2])", "None"),
    ],
    hidden=[
        ("test_empty_list", "second_largest_distinct([])", "None"),
        ("test_single_element", "second_largest_distinct([9])", "None"),
        ("test_all_negative", "second_largest_distinct([-1, -5, -3])", "-3"),
        ("test_two_elements", "second_largest_distinct([1, 2])", "1"),
        ("test_duplicated_second_value", "second_largest_distinct([7, 7, 7, 6, 6])", "6"),
        ("test_zero_and_negative", "second_largest_distinct([0, -1])", "-1"),
        ("test_maximum_repeated_after_second", "second_largest_distinct([3, 10, 10, 9])", "9"),
    ],
    reference="""
    def second_largest_distinct(nums):
        values = sorted(set(nums))
        if len(values) < 2:
            return None
        return values[-2]
    """,
    naive="""
    def second_largest_distinct(nums):
        values = set(nums)
        if len(values) < 2:
            return None
        first = second = 0
        for x in values:
            if x > first:
                first, second = x, first
            elif x > second:
                second = x
        return second
    """,
)

T(
    id="rotate_list",
    difficulty="easy",
    signature="rotate_list(items: list, k: int) -> list",
    desc="""
    returns a new list with the elements rotated to the right by k positions (with k = 1
    the last element moves to the front). A negative k rotates to the left by -k positions.
    k may be larger than the length of the list; rotating by a multiple of the length gives
    the original order. An empty list returns an empty list for any k. Do not modify the
    input list.
    """,
    visible=[
        ("test_rotate_right_by_two", "rotate_list([1, 2, 3, 4, 5], 2)", "[4, 5, 1, 2, 3]"),
        ("test_negative_rotates_left", "rotate_list([1, 2, 3], -1)", "[2, 3, 1]"),
        ("test_empty_list", "rotate_list([], 3)", "[]"),
    ],
    hidden=[
        ("test_rotate_by_length", "rotate_list([1, 2, 3], 3)", "[1, 2, 3]"),
        ("test_k_larger_than_length", "rotate_list([1, 2, 3], 7)", "[3, 1, 2]"),
        ("test_negative_k_larger_than_length", "rotate_list([1, 2, 3], -4)", "[2, 3, 1]"),
        ("test_single_element", 'rotate_list(["a"], 5)', '["a"]'),
        ("test_zero_rotation", "rotate_list([1, 2, 3, 4], 0)", "[1, 2, 3, 4]"),
        ("test_empty_list_negative_k", "rotate_list([], -2)", "[]"),
        """
        def test_input_list_is_not_modified():
            data = [1, 2, 3]
            rotate_list(data, 1)
            assert data == [1, 2, 3]
        """,
    ],
    reference="""
    def rotate_list(items, k):
        if not items:
            return []
        k %= len(items)
        return items[len(items) - k:] + items[:len(items) - k]
    """,
    naive="""
    def rotate_list(items, k):
        if not items:
            return []
        return items[-k:] + items[:-k]
    """,
)

T(
    id="chunk_pad",
    difficulty="easy",
    signature="chunk_pad(s: str, size: int, fill: str) -> list[str]",
    desc="""
    splits the string s into consecutive chunks of exactly `size` characters (size is a
    positive integer). If the last chunk is shorter than size, pad it on the right with the
    single character `fill` until it has length size. If the length of s is a multiple of
    size, no padding chunk is added. An empty string returns an empty list.
    """,
    visible=[
        ("test_last_chunk_is_padded", 'chunk_pad("abcdefg", 3, "*")', '["abc", "def", "g**"]'),
        ("test_exact_multiple_needs_no_padding", 'chunk_pad("abcd", 2, "-")', '["ab", "cd"]'),
        ("test_empty_string", 'chunk_pad("", 4, ".")', "[]"),
    ],
    hidden=[
        ("test_size_one", 'chunk_pad("abc", 1, "x")', '["a", "b", "c"]'),
        ("test_string_shorter_than_size", 'chunk_pad("ab", 5, "0")', '["ab000"]'),
        (
            "test_spaces_are_ordinary_characters",
            'chunk_pad("hello world", 4, "_")',
            '["hell", "o wo", "rld_"]',
        ),
        ("test_single_full_chunk", 'chunk_pad("xyz", 3, "#")', '["xyz"]'),
        ("test_space_as_fill", 'chunk_pad("abcde", 2, " ")', '["ab", "cd", "e "]'),
    ],
    reference="""
    def chunk_pad(s, size, fill):
        return [s[i:i + size].ljust(size, fill) for i in range(0, len(s), size)]
    """,
    naive="""
    def chunk_pad(s, size, fill):
        s = s + fill * (size - len(s) % size)
        return [s[i:i + size] for i in range(0, len(s), size)]
    """,
)

T(
    id="dedupe_keep_last",
    difficulty="easy",
    signature="dedupe_keep_last(items: list) -> list",
    desc="""
    removes duplicate values from a list of hashable elements, keeping only the LAST
    occurrence of each value. The kept elements stay in the same relative order they had in
    the input. For example, in [1, 2, 1, 3, 2] the last 1 is at index 2, the last 3 at index
    3 and the last 2 at index 4, so the result is [1, 3, 2]. An empty list returns an empty
    list. Return a new list.
    """,
    visible=[
        ("test_keeps_last_occurrences", "dedupe_keep_last([1, 2, 1, 3, 2])", "[1, 3, 2]"),
        ("test_strings", 'dedupe_keep_last(["a", "b", "a"])', '["b", "a"]'),
        ("test_empty_list", "dedupe_keep_last([])", "[]"),
    ],
    hidden=[
        ("test_all_equal", "dedupe_keep_last([5, 5, 5])", "[5]"),
        ("test_no_duplicates", "dedupe_keep_last([1, 2, 3])", "[1, 2, 3]"),
        ("test_interleaved_duplicates", "dedupe_keep_last([3, 1, 3, 1, 2])", "[3, 1, 2]"),
        ("test_single_element", 'dedupe_keep_last(["x"])', '["x"]'),
        ("test_repeating_pair", "dedupe_keep_last([2, 1, 2, 1])", "[2, 1]"),
        ("test_none_values", "dedupe_keep_last([None, 1, None])", "[1, None]"),
    ],
    reference="""
    def dedupe_keep_last(items):
        last = {}
        for index, value in enumerate(items):
            last[value] = index
        return [value for index, value in enumerate(items) if last[value] == index]
    """,
    naive="""
    def dedupe_keep_last(items):
        return list(dict.fromkeys(items))
    """,
)

T(
    id="set_bit_positions",
    difficulty="easy",
    signature="set_bit_positions(n: int) -> list[int]",
    desc="""
    takes a non-negative integer n and returns the positions of the 1 bits in its binary
    representation, in ascending order, where position 0 is the least significant bit.
    For n = 0 return an empty list. n can be arbitrarily large.
    """,
    visible=[
        ("test_thirteen", "set_bit_positions(13)", "[0, 2, 3]"),
        ("test_power_of_two", "set_bit_positions(8)", "[3]"),
        ("test_zero", "set_bit_positions(0)", "[]"),
    ],
    hidden=[
        ("test_one", "set_bit_positions(1)", "[0]"),
        ("test_byte_of_ones", "set_bit_positions(255)", "[0, 1, 2, 3, 4, 5, 6, 7]"),
        ("test_large_power_of_two", "set_bit_positions(2 ** 40)", "[40]"),
        ("test_large_with_low_bit", "set_bit_positions(2 ** 40 + 1)", "[0, 40]"),
        ("test_six", "set_bit_positions(6)", "[1, 2]"),
        ("test_alternating_bits", "set_bit_positions(85)", "[0, 2, 4, 6]"),
    ],
    reference="""
    def set_bit_positions(n):
        positions = []
        position = 0
        while n:
            if n & 1:
                positions.append(position)
            n >>= 1
            position += 1
        return positions
    """,
    naive="""
    def set_bit_positions(n):
        bits = bin(n)[2:]
        return [i for i, b in enumerate(bits) if b == "1"] if n else []
    """,
)

T(
    id="snake_to_camel",
    difficulty="easy",
    signature="snake_to_camel(s: str) -> str",
    desc="""
    converts a snake_case identifier to lowerCamelCase. Words are separated by one or more
    underscores; leading and trailing underscores are ignored and empty words are skipped.
    The first word is written entirely in lowercase; every following word has its first
    character uppercased and the rest lowercased. Digits are kept as they are. If there are
    no words (the string is empty or only underscores), return an empty string.
    """,
    visible=[
        ("test_two_words", 'snake_to_camel("hello_world")', '"helloWorld"'),
        (
            "test_extra_underscores_and_mixed_case",
            'snake_to_camel("__make__HTTP_request_")',
            '"makeHttpRequest"',
        ),
        ("test_only_underscores", 'snake_to_camel("___")', '""'),
    ],
    hidden=[
        ("test_empty_string", 'snake_to_camel("")', '""'),
        ("test_single_word", 'snake_to_camel("single")', '"single"'),
        ("test_first_word_lowercased", 'snake_to_camel("Already_Camel")', '"alreadyCamel"'),
        ("test_single_letter_words", 'snake_to_camel("a_b_c")', '"aBC"'),
        ("test_digit_word", 'snake_to_camel("version_2_beta")', '"version2Beta"'),
        ("test_double_underscore", 'snake_to_camel("x__y")', '"xY"'),
        ("test_single_uppercase_word", 'snake_to_camel("ABC")', '"abc"'),
    ],
    reference="""
    def snake_to_camel(s):
        words = [w for w in s.split("_") if w]
        if not words:
            return ""
        return words[0].lower() + "".join(w[0].upper() + w[1:].lower() for w in words[1:])
    """,
    naive="""
    def snake_to_camel(s):
        parts = s.split("_")
        return parts[0].lower() + "".join(p.capitalize() for p in parts[1:])
    """,
)

T(
    id="longest_plateau",
    difficulty="easy",
    signature="longest_plateau(values: list) -> int",
    desc="""
    returns the length of the longest run of consecutive equal elements in the list
    (elements are compared with ==). The longest run may be at the very start or the very
    end of the list. An empty list returns 0.
    """,
    visible=[
        ("test_run_in_the_middle", "longest_plateau([1, 1, 2, 2, 2, 1])", "3"),
        ("test_single_element", "longest_plateau([4])", "1"),
        ("test_empty_list", "longest_plateau([])", "0"),
    ],
    hidden=[
        ("test_all_different", "longest_plateau([1, 2, 3])", "1"),
        ("test_all_equal", "longest_plateau([7, 7, 7, 7])", "4"),
        ("test_longest_run_at_the_end", "longest_plateau([1, 2, 2, 3, 3, 3, 3])", "4"),
        ("test_same_value_in_separate_runs", "longest_plateau([5, 5, 1, 5, 5, 5])", "3"),
        ("test_negative_values", "longest_plateau([0, 0, -1, -1, -1, 0])", "3"),
        ("test_strings", 'longest_plateau(["a", "a", "b"])', "2"),
    ],
    reference="""
    def longest_plateau(values):
        best = 0
        current = 0
        for i, value in enumerate(values):
            if i > 0 and value == values[i - 1]:
                current += 1
            else:
                current = 1
            best = max(best, current)
        return best
    """,
    naive="""
    def longest_plateau(values):
        best = 0
        current = 0
        previous = object()
        for value in values:
            if value == previous:
                current += 1
            else:
                best = max(best, current)
                current = 1
            previous = value
        return best if best else current
    """,
)

T(
    id="invert_multi",
    difficulty="easy",
    signature="invert_multi(d: dict) -> dict",
    desc="""
    inverts a dictionary whose values are hashable: the result maps each distinct value of d
    to the list of all keys of d that had that value, with each list sorted in ascending
    order (the keys of d are mutually comparable, e.g. all strings or all integers). An
    empty dictionary returns an empty dictionary.
    """,
    visible=[
        (
            "test_shared_value",
            'invert_multi({"a": 1, "b": 2, "c": 1})',
            '{1: ["a", "c"], 2: ["b"]}',
        ),
        (
            "test_key_lists_are_sorted",
            'invert_multi({"z": 0, "y": 0, "x": 0})',
            '{0: ["x", "y", "z"]}',
        ),
        ("test_empty_dict", "invert_multi({})", "{}"),
    ],
    hidden=[
        ("test_single_entry", 'invert_multi({1: "x"})', '{"x": [1]}'),
        (
            "test_integer_keys_sorted",
            'invert_multi({3: "a", 1: "a", 2: "b"})',
            '{"a": [1, 3], "b": [2]}',
        ),
        (
            "test_boolean_values",
            'invert_multi({"k1": True, "k2": False})',
            '{True: ["k1"], False: ["k2"]}',
        ),
        ("test_two_groups", 'invert_multi({"b": 5, "a": 5, "c": 6})', '{5: ["a", "b"], 6: ["c"]}'),
        ("test_tuple_values", 'invert_multi({"p": (1, 2), "q": (1, 2)})', '{(1, 2): ["p", "q"]}'),
    ],
    reference="""
    def invert_multi(d):
        result = {}
        for key, value in d.items():
            result.setdefault(value, []).append(key)
        return {value: sorted(keys) for value, keys in result.items()}
    """,
    naive="""
    def invert_multi(d):
        result = {}
        for key, value in d.items():
            result.setdefault(value, []).append(key)
        return result
    """,
)

T(
    id="nested_depth",
    difficulty="easy",
    signature="nested_depth(obj) -> int",
    desc="""
    returns the nesting depth of lists in obj. A value that is not a list has depth 0. A
    list has depth 1 plus the largest depth among its elements, so an empty list has depth 1
    and [1, [2]] has depth 2. Only lists count: tuples, strings, dicts and other values are
    treated as non-list values of depth 0 (their contents are not inspected).
    """,
    visible=[
        ("test_three_levels", "nested_depth([1, [2, [3]], 4])", "3"),
        ("test_empty_list", "nested_depth([])", "1"),
        ("test_not_a_list", "nested_depth(5)", "0"),
    ],
    hidden=[
        ("test_list_of_empty_lists", "nested_depth([[], []])", "2"),
        ("test_deeply_nested_empty", "nested_depth([[[[]]]])", "4"),
        ("test_string_is_not_a_list", 'nested_depth("abc")', "0"),
        ("test_tuples_are_not_inspected", "nested_depth([(1, [2])])", "1"),
        ("test_flat_list", "nested_depth([1, 2, 3])", "1"),
        ("test_mixed_branches", "nested_depth([[1], [[2]], 3])", "3"),
        ("test_dict_is_not_inspected", 'nested_depth({"a": [1]})', "0"),
    ],
    reference="""
    def nested_depth(obj):
        if not isinstance(obj, list):
            return 0
        return 1 + max((nested_depth(x) for x in obj), default=0)
    """,
    naive="""
    def nested_depth(obj):
        if not isinstance(obj, (list, tuple)):
            return 0
        return 1 + max((nested_depth(x) for x in obj), default=0)
    """,
)

T(
    id="shift_letters_digits",
    difficulty="easy",
    signature="shift_letters_digits(s: str, k: int) -> str",
    desc="""
    shifts every ASCII letter forward by k positions in the alphabet, wrapping around ("z"
    shifted by 1 is "a") and preserving case, and shifts every ASCII digit forward by k
    positions among 0-9, also wrapping around ("9" shifted by 1 is "0"). k may be negative
    (shift backwards) and may be larger than 26 or 10. All other characters are unchanged.
    """,
    visible=[
        ("test_letters_wrap_around", 'shift_letters_digits("abz", 1)', '"bca"'),
        ("test_digits_shift_too", 'shift_letters_digits("Hi 9!", 2)', '"Jk 1!"'),
        ("test_negative_shift", 'shift_letters_digits("Cat", -3)', '"Zxq"'),
    ],
    hidden=[
        ("test_empty_string", 'shift_letters_digits("", 5)', '""'),
        ("test_full_alphabet_shift", 'shift_letters_digits("xyz", 26)', '"xyz"'),
        ("test_shift_larger_than_alphabet", 'shift_letters_digits("ABC", 53)', '"BCD"'),
        ("test_digits_full_cycle", 'shift_letters_digits("0123456789", 10)', '"0123456789"'),
        ("test_digit_negative_wrap", 'shift_letters_digits("0", -1)', '"9"'),
        ("test_other_characters_unchanged", 'shift_letters_digits("a-b_c", 27)', '"b-c_d"'),
        ("test_uppercase_lowercase_and_digit_wrap", 'shift_letters_digits("Zz9", 1)', '"Aa0"'),
        ("test_digit_shift_larger_than_ten", 'shift_letters_digits("5", 13)', '"8"'),
    ],
    reference="""
    def shift_letters_digits(s, k):
        out = []
        for ch in s:
            if "a" <= ch <= "z":
                out.append(chr((ord(ch) - 97 + k) % 26 + 97))
            elif "A" <= ch <= "Z":
                out.append(chr((ord(ch) - 65 + k) % 26 + 65))
            elif "0" <= ch <= "9":
                out.append(chr((ord(ch) - 48 + k) % 10 + 48))
            else:
                out.append(ch)
        return "".join(out)
    """,
    naive="""
    def shift_letters_digits(s, k):
        k = k % 26
        out = []
        for ch in s:
            if ch.islower():
                out.append(chr((ord(ch) - 97 + k) % 26 + 97))
            elif ch.isupper():
                out.append(chr((ord(ch) - 65 + k) % 26 + 65))
            elif ch.isdigit():
                out.append(str((int(ch) + k) % 10))
            else:
                out.append(ch)
        return "".join(out)
    """,
)

T(
    id="multiplicative_persistence",
    difficulty="easy",
    signature="multiplicative_persistence(n: int) -> int",
    desc="""
    takes a non-negative integer n and returns how many times you must replace the number
    by the product of its decimal digits until it has a single digit. For example 39 -> 27
    -> 14 -> 4 takes 3 steps. A number that already has a single digit (0 to 9) returns 0.
    Note that 10 has two digits, so it needs one step (10 -> 0).
    """,
    visible=[
        ("test_three_steps", "multiplicative_persistence(39)", "3"),
        ("test_four_steps", "multiplicative_persistence(999)", "4"),
        ("test_single_digit", "multiplicative_persistence(7)", "0"),
    ],
    hidden=[
        ("test_zero", "multiplicative_persistence(0)", "0"),
        ("test_ten_needs_one_step", "multiplicative_persistence(10)", "1"),
        ("test_product_becomes_zero", "multiplicative_persistence(25)", "2"),
        ("test_seventy_seven", "multiplicative_persistence(77)", "4"),
        ("test_record_holder", "multiplicative_persistence(277777788888899)", "11"),
        ("test_nine", "multiplicative_persistence(9)", "0"),
        ("test_eleven", "multiplicative_persistence(11)", "1"),
    ],
    reference="""
    def multiplicative_persistence(n):
        steps = 0
        while n >= 10:
            product = 1
            for digit in str(n):
                product *= int(digit)
            n = product
            steps += 1
        return steps
    """,
    naive="""
    def multiplicative_persistence(n):
        steps = 0
        while n > 10:
            product = 1
            for digit in str(n):
                product *= int(digit)
            n = product
            steps += 1
        return steps
    """,
)

T(
    id="sum_multiples_below",
    difficulty="easy",
    signature="sum_multiples_below(limit: int, divisors: list[int]) -> int",
    desc="""
    returns the sum of all integers x with 1 <= x < limit (limit itself is excluded) that
    are divisible by at least one of the numbers in `divisors`. Each qualifying x is added
    once, even if several divisors divide it. Zeros in `divisors` are ignored; all other
    divisors are positive. If limit <= 1 or there are no usable divisors, return 0.
    """,
    visible=[
        ("test_three_and_five_below_ten", "sum_multiples_below(10, [3, 5])", "23"),
        ("test_common_multiple_counted_once", "sum_multiples_below(16, [3, 5])", "60"),
        ("test_zero_divisor_is_ignored", "sum_multiples_below(10, [0, 4])", "12"),
    ],
    hidden=[
        ("test_limit_one", "sum_multiples_below(1, [1])", "0"),
        ("test_limit_zero", "sum_multiples_below(0, [2])", "0"),
        ("test_negative_limit", "sum_multiples_below(-5, [2])", "0"),
        ("test_no_divisors", "sum_multiples_below(10, [])", "0"),
        ("test_only_zero_divisor", "sum_multiples_below(10, [0])", "0"),
        ("test_divisor_one", "sum_multiples_below(6, [1])", "15"),
        ("test_nested_divisors", "sum_multiples_below(20, [2, 4])", "90"),
        ("test_repeated_divisor", "sum_multiples_below(15, [3, 3])", "30"),
    ],
    reference="""
    def sum_multiples_below(limit, divisors):
        usable = [d for d in divisors if d != 0]
        return sum(x for x in range(1, limit) if any(x % d == 0 for d in usable))
    """,
    naive="""
    def sum_multiples_below(limit, divisors):
        total = 0
        for d in divisors:
            if d == 0:
                continue
            total += sum(range(d, limit, d))
        return total
    """,
)

T(
    id="format_duration",
    difficulty="easy",
    signature="format_duration(seconds: int) -> str",
    desc="""
    formats a non-negative integer number of seconds as hours, minutes and seconds, like
    "1h 2m 5s". There are no days: hours can be any size. Components equal to zero are
    omitted (wherever they are), the remaining components appear in the order h, m, s and
    are separated by single spaces. For 0 seconds return "0s".
    """,
    visible=[
        ("test_all_components", "format_duration(3725)", '"1h 2m 5s"'),
        ("test_zero_minutes_and_seconds_omitted", "format_duration(3600)", '"1h"'),
        ("test_zero_seconds", "format_duration(0)", '"0s"'),
    ],
    hidden=[
        ("test_seconds_only", "format_duration(59)", '"59s"'),
        ("test_one_minute", "format_duration(60)", '"1m"'),
        ("test_zero_minutes_in_the_middle", "format_duration(3601)", '"1h 1s"'),
        ("test_more_than_a_day", "format_duration(90061)", '"25h 1m 1s"'),
        ("test_hours_and_minutes", "format_duration(7260)", '"2h 1m"'),
        ("test_one_second", "format_duration(1)", '"1s"'),
        ("test_exactly_one_day", "format_duration(86400)", '"24h"'),
    ],
    reference="""
    def format_duration(seconds):
        if seconds == 0:
            return "0s"
        hours, rest = divmod(seconds, 3600)
        minutes, secs = divmod(rest, 60)
        parts = []
        for value, unit in ((hours, "h"), (minutes, "m"), (secs, "s")):
            if value:
                parts.append(f"{value}{unit}")
        return " ".join(parts)
    """,
    naive="""
    def format_duration(seconds):
        hours, rest = divmod(seconds, 3600)
        minutes, secs = divmod(rest, 60)
        parts = []
        if hours:
            parts.append(f"{hours}h")
        if minutes:
            parts.append(f"{minutes}m")
        parts.append(f"{secs}s")
        return " ".join(parts)
    """,
)
