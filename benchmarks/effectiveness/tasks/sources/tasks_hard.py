"""Hard coding tasks."""

# ruff: noqa: E501 - long lines here are test data (calls and expected values)

from benchmarks.effectiveness.tasks.sources.taskdef import Raises, T

T(
    id="expand_groups",
    difficulty="hard",
    signature="expand_groups(s: str) -> str",
    desc="""
    expands a compact repetition notation. Letters are copied as they are. A group is
    text in parentheses followed by an optional count made of one or more decimal digits:
    "(ab)3" means "ababab". A group with no count is included exactly once, and a count of 0
    removes the group. Counts can have several digits ("(q)12" is twelve q's). Groups can be
    nested: "(a(b)2)2" is "abbabb". Digits appear only directly after a closing parenthesis.
    The input is always well-formed and contains only letters, digits and parentheses; an
    empty string returns "".
    """,
    visible=[
        ("test_group_between_letters", 'expand_groups("x(ab)3y")', '"xabababy"'),
        ("test_nested_groups", 'expand_groups("(a(b)2)2")', '"abbabb"'),
        ("test_multi_digit_count", 'expand_groups("(q)12")', '"qqqqqqqqqqqq"'),
    ],
    hidden=[
        ("test_empty_string", 'expand_groups("")', '""'),
        ("test_letters_only", 'expand_groups("abc")', '"abc"'),
        ("test_group_without_count", 'expand_groups("(ab)")', '"ab"'),
        ("test_zero_count_removes_group", 'expand_groups("a(bc)0d")', '"ad"'),
        ("test_nested_inner_first", 'expand_groups("((a)2b)3")', '"aabaabaab"'),
        ("test_count_ten", 'expand_groups("(x)10")', '"xxxxxxxxxx"'),
        ("test_deep_nesting_last_without_count", 'expand_groups("((((z)2)2)2)")', '"zzzzzzzz"'),
        ("test_explicit_count_of_one", 'expand_groups("(a)1b")', '"ab"'),
        ("test_nested_with_letters_around", 'expand_groups("a(b(c)3d)2e")', '"abcccdbcccde"'),
    ],
    reference="""
    def expand_groups(s):
        pos = 0

        def parse():
            nonlocal pos
            out = []
            while pos < len(s) and s[pos] != ")":
                if s[pos] == "(":
                    pos += 1
                    inner = parse()
                    pos += 1  # the closing parenthesis
                    start = pos
                    while pos < len(s) and s[pos].isdigit():
                        pos += 1
                    count = int(s[start:pos]) if pos > start else 1
                    out.append(inner * count)
                else:
                    out.append(s[pos])
                    pos += 1
            return "".join(out)

        return parse()
    """,
    naive="""
    def expand_groups(s):
        stack = [""]
        i = 0
        while i < len(s):
            ch = s[i]
            if ch == "(":
                stack.append("")
                i += 1
            elif ch == ")":
                inner = stack.pop()
                i += 1
                start = i
                while i < len(s) and s[i].isdigit():
                    i += 1
                count = int(s[start:i] or 0)
                stack[-1] += inner * count
            else:
                stack[-1] += ch
                i += 1
        return stack[0]
    """,
)

T(
    id="eval_arith",
    difficulty="hard",
    signature="eval_arith(expr: str) -> int",
    desc="""
    evaluates an integer arithmetic expression given as a string. The expression may
    contain non-negative integer literals, the binary operators +, -, * and /, parentheses,
    unary minus (as in "-3", "-(2+1)" or "2*-3"), and any number of spaces between tokens.
    * and / bind tighter than + and -, and operators of equal precedence are evaluated left
    to right (so "8-3-2" is 3). Division is integer division that truncates toward zero
    (NOT Python's floor division): 7/2 is 3 and -7/2 is -3, also 7/-2 is -3. Division by
    zero raises ZeroDivisionError. The input is always a syntactically valid expression.
    Return the integer result.
    """,
    visible=[
        ("test_precedence", 'eval_arith("2 + 3 * 4")', "14"),
        ("test_left_to_right_and_unary_minus", 'eval_arith("(8 - 3 - 2) * -2")', "-6"),
        ("test_division_truncates_toward_zero", 'eval_arith("7 / 2 - -7 / 2")', "6"),
    ],
    hidden=[
        ("test_single_number", 'eval_arith("42")', "42"),
        ("test_negated_group", 'eval_arith("-(2+3)*4")', "-20"),
        ("test_subtraction_is_left_associative", 'eval_arith("1-2-3")', "-4"),
        ("test_nested_parentheses", 'eval_arith("2*(3+(4-1))*2")', "24"),
        ("test_spaces_and_division", 'eval_arith("  10 /3 ")', "3"),
        ("test_negative_dividend", 'eval_arith("-10 / 3")', "-3"),
        ("test_negative_divisor", 'eval_arith("10 / -3")', "-3"),
        ("test_division_by_zero", 'eval_arith("1/0")', Raises("ZeroDivisionError")),
        ("test_mixed_operators", 'eval_arith("3+4*2-(1-5)*2")', "19"),
        ("test_division_is_left_associative", 'eval_arith("100/10/3")', "3"),
    ],
    reference="""
    def eval_arith(expr):
        tokens = []
        i = 0
        while i < len(expr):
            ch = expr[i]
            if ch.isspace():
                i += 1
            elif ch.isdigit():
                j = i
                while j < len(expr) and expr[j].isdigit():
                    j += 1
                tokens.append(int(expr[i:j]))
                i = j
            else:
                tokens.append(ch)
                i += 1
        pos = 0

        def peek():
            return tokens[pos] if pos < len(tokens) else None

        def parse_sum():
            nonlocal pos
            value = parse_product()
            while peek() in ("+", "-"):
                op = tokens[pos]
                pos += 1
                rhs = parse_product()
                value = value + rhs if op == "+" else value - rhs
            return value

        def parse_product():
            nonlocal pos
            value = parse_unary()
            while peek() in ("*", "/"):
                op = tokens[pos]
                pos += 1
                rhs = parse_unary()
                if op == "*":
                    value *= rhs
                else:
                    if rhs == 0:
                        raise ZeroDivisionError("division by zero")
                    quotient = abs(value) // abs(rhs)
                    value = quotient if (value >= 0) == (rhs > 0) else -quotient
            return value

        def parse_unary():
            nonlocal pos
            if peek() == "-":
                pos += 1
                return -parse_unary()
            return parse_atom()

        def parse_atom():
            nonlocal pos
            token = tokens[pos]
            pos += 1
            if token == "(":
                value = parse_sum()
                pos += 1  # the closing parenthesis
                return value
            return token

        return parse_sum()
    """,
    naive="""
    def eval_arith(expr):
        return eval(expr.replace("/", "//"))
    """,
)

T(
    id="spreadsheet_eval",
    difficulty="hard",
    signature="spreadsheet_eval(cells: dict[str, int | str]) -> dict[str, int]",
    desc="""
    evaluates a tiny spreadsheet. `cells` maps cell names (strings such as "A1") to either
    an integer or a formula string. A formula starts with "=" followed by one or more terms
    joined by "+" (no other operators and no spaces). A term made only of digits is a
    non-negative integer literal; any other term is the name of a cell whose value is used.
    Return a new dict mapping every cell name to its integer value. If a formula refers to a
    cell that does not exist, or the references form a cycle (including a cell that refers
    to itself), raise ValueError. Chains of references can be a few hundred cells long.
    """,
    visible=[
        (
            "test_chained_formulas",
            'spreadsheet_eval({"A1": 5, "B1": "=A1+3", "C1": "=A1+B1"})',
            '{"A1": 5, "B1": 8, "C1": 13}',
        ),
        (
            "test_forward_reference_used_twice",
            'spreadsheet_eval({"X": "=Y+Y", "Y": "=2"})',
            '{"X": 4, "Y": 2}',
        ),
    ],
    hidden=[
        ("test_empty_sheet", "spreadsheet_eval({})", "{}"),
        ("test_negative_constant", 'spreadsheet_eval({"A": -4})', '{"A": -4}'),
        (
            "test_reference_chain",
            'spreadsheet_eval({"A1": "=B1", "B1": "=C1", "C1": "=D1", "D1": 1})',
            '{"A1": 1, "B1": 1, "C1": 1, "D1": 1}',
        ),
        (
            "test_two_cell_cycle_raises",
            'spreadsheet_eval({"A": "=B", "B": "=A"})',
            Raises("ValueError"),
        ),
        ("test_self_reference_raises", 'spreadsheet_eval({"A": "=A+1"})', Raises("ValueError")),
        ("test_missing_cell_raises", 'spreadsheet_eval({"A": "=Z1"})', Raises("ValueError")),
        (
            "test_literals_and_reference",
            'spreadsheet_eval({"A1": "=10+20+B2", "B2": 0})',
            '{"A1": 30, "B2": 0}',
        ),
        (
            "test_diamond_dependencies",
            'spreadsheet_eval({"A": "=B+C", "B": "=D", "C": "=D+D", "D": "=1"})',
            '{"A": 3, "B": 1, "C": 2, "D": 1}',
        ),
        """
        def test_long_chain_of_three_hundred_cells():
            cells = {f"C{i}": f"=C{i + 1}+1" for i in range(300)}
            cells["C300"] = 0
            assert spreadsheet_eval(cells)["C0"] == 300
        """,
    ],
    reference="""
    def spreadsheet_eval(cells):
        values = {}
        for root in cells:
            if root in values:
                continue
            # iterative depth-first evaluation, detecting cycles via the "in progress" set
            in_progress = set()
            stack = [root]
            while stack:
                name = stack[-1]
                if name in values:
                    stack.pop()
                    continue
                if name not in cells:
                    raise ValueError(f"unknown cell {name!r}")
                content = cells[name]
                if not isinstance(content, str):
                    values[name] = content
                    stack.pop()
                    continue
                terms = content[1:].split("+")
                pending = [t for t in terms if not t.isdigit() and t not in values]
                if not pending:
                    values[name] = sum(int(t) if t.isdigit() else values[t] for t in terms)
                    in_progress.discard(name)
                    stack.pop()
                    continue
                if name in in_progress:
                    raise ValueError(f"cycle through {name!r}")
                in_progress.add(name)
                for term in pending:
                    if term in in_progress:
                        raise ValueError(f"cycle through {term!r}")
                    if term not in cells:
                        raise ValueError(f"unknown cell {term!r}")
                    stack.append(term)
        return values
    """,
    naive="""
    def spreadsheet_eval(cells):
        values = {}

        def value(name):
            if name in values:
                return values[name]
            if name not in cells:
                raise ValueError(name)
            content = cells[name]
            if isinstance(content, str):
                result = 0
                for term in content[1:].split("+"):
                    result += int(term) if term.isdigit() else value(term)
            else:
                result = content
            values[name] = result
            return result

        return {name: value(name) for name in cells}
    """,
)

T(
    id="lexicographic_topo_order",
    difficulty="hard",
    signature="lexicographic_topo_order(tasks: list[str], deps: list[tuple[str, str]]) -> list[str] | None",
    desc="""
    orders tasks subject to dependencies. `tasks` is a list of distinct task names and
    `deps` a list of pairs (a, b) meaning task a must come before task b (both a and b are
    in tasks). Return a list of all tasks that respects every dependency, built like this:
    repeatedly pick, among the tasks not yet placed whose prerequisites have all been
    placed, the alphabetically smallest one (plain string comparison) and append it. If the
    dependencies contain a cycle (including a task that depends on itself), return None.
    The same pair may appear several times in deps; treat duplicates as a single
    dependency.
    """,
    visible=[
        (
            "test_no_dependencies_is_alphabetical",
            'lexicographic_topo_order(["c", "b", "a"], [])',
            '["a", "b", "c"]',
        ),
        (
            "test_smallest_available_task_first",
            'lexicographic_topo_order(["a", "b", "c", "d"], [("d", "a"), ("c", "b")])',
            '["c", "b", "d", "a"]',
        ),
        (
            "test_cycle_returns_none",
            'lexicographic_topo_order(["x", "y"], [("x", "y"), ("y", "x")])',
            "None",
        ),
    ],
    hidden=[
        ("test_no_tasks", "lexicographic_topo_order([], [])", "[]"),
        (
            "test_self_dependency_is_a_cycle",
            'lexicographic_topo_order(["a"], [("a", "a")])',
            "None",
        ),
        (
            "test_duplicate_dependencies",
            'lexicographic_topo_order(["b", "a"], [("b", "a"), ("b", "a")])',
            '["b", "a"]',
        ),
        (
            "test_one_dependency_among_many",
            'lexicographic_topo_order(["e", "d", "c", "b", "a"], [("e", "a")])',
            '["b", "c", "d", "e", "a"]',
        ),
        (
            "test_reverse_chain",
            'lexicographic_topo_order(["a", "b", "c"], [("c", "b"), ("b", "a")])',
            '["c", "b", "a"]',
        ),
        (
            "test_cycle_in_part_of_the_graph",
            'lexicographic_topo_order(["a", "b", "c", "d"], [("b", "c"), ("c", "d"), ("d", "b")])',
            "None",
        ),
        (
            "test_string_order_not_numeric",
            'lexicographic_topo_order(["task10", "task2", "task1"], [])',
            '["task1", "task10", "task2"]',
        ),
        (
            "test_newly_available_smaller_task_goes_first",
            'lexicographic_topo_order(["m", "n", "o", "b"], [("m", "b")])',
            '["m", "b", "n", "o"]',
        ),
    ],
    reference="""
    import heapq

    def lexicographic_topo_order(tasks, deps):
        edges = {task: set() for task in tasks}
        indegree = {task: 0 for task in tasks}
        for a, b in set(deps):
            edges[a].add(b)
            indegree[b] += 1
        ready = [task for task in tasks if indegree[task] == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            task = heapq.heappop(ready)
            order.append(task)
            for nxt in edges[task]:
                indegree[nxt] -= 1
                if indegree[nxt] == 0:
                    heapq.heappush(ready, nxt)
        return order if len(order) == len(tasks) else None
    """,
    naive="""
    from collections import deque

    def lexicographic_topo_order(tasks, deps):
        edges = {task: [] for task in tasks}
        indegree = {task: 0 for task in tasks}
        for a, b in set(deps):
            edges[a].append(b)
            indegree[b] += 1
        queue = deque(sorted(task for task in tasks if indegree[task] == 0))
        order = []
        while queue:
            task = queue.popleft()
            order.append(task)
            for nxt in sorted(edges[task]):
                indegree[nxt] -= 1
                if indegree[nxt] == 0:
                    queue.append(nxt)
        return order if len(order) == len(tasks) else None
    """,
)

T(
    id="min_partition_diff",
    difficulty="hard",
    signature="min_partition_diff(nums: list[int]) -> int",
    desc="""
    splits a list of non-negative integers into two groups (every element goes into
    exactly one group; a group may be empty) so that the absolute difference between the two
    group sums is as small as possible, and returns that smallest difference. An empty list
    returns 0. The list has at most 40 elements and its total is at most 10000. Note that
    greedy strategies (such as always adding the next largest number to the lighter group)
    do not always find the optimum.
    """,
    visible=[
        ("test_four_numbers", "min_partition_diff([1, 6, 11, 5])", "1"),
        ("test_equal_pair", "min_partition_diff([3, 3])", "0"),
        ("test_single_number", "min_partition_diff([10])", "10"),
    ],
    hidden=[
        ("test_empty_list", "min_partition_diff([])", "0"),
        ("test_all_zeros", "min_partition_diff([0, 0, 0])", "0"),
        ("test_one_to_seven", "min_partition_diff([1, 2, 3, 4, 5, 6, 7])", "0"),
        ("test_greedy_fails_here", "min_partition_diff([8, 7, 6, 5, 4])", "0"),
        ("test_three_numbers_no_perfect_split", "min_partition_diff([8, 7, 6])", "5"),
        ("test_one_dominant_number", "min_partition_diff([1, 1, 1, 1, 100])", "96"),
        ("test_odd_total", "min_partition_diff([5, 5, 5, 5, 1])", "1"),
        ("test_two_numbers", "min_partition_diff([2, 9])", "7"),
        ("test_forty_elements", "min_partition_diff([i * 7 % 23 + 1 for i in range(40)])", "0"),
    ],
    reference="""
    def min_partition_diff(nums):
        total = sum(nums)
        reachable = 1  # bit i set <=> some subset sums to i
        for x in nums:
            reachable |= reachable << x
        best = total
        for s in range(total // 2 + 1):
            if reachable >> s & 1:
                best = min(best, total - 2 * s)
        return best
    """,
    naive="""
    def min_partition_diff(nums):
        a = b = 0
        for x in sorted(nums, reverse=True):
            if a <= b:
                a += x
            else:
                b += x
        return abs(a - b)
    """,
)

T(
    id="justify_right_extra",
    difficulty="hard",
    signature="justify_right_extra(words: list[str], width: int) -> list[str]",
    desc="""
    lays out words (each non-empty, without spaces, and at most `width` characters long)
    as justified lines. Lines are filled greedily: a line takes as many of the remaining
    words as fit when adjacent words are separated by one space. Then:
    - Every line except the last is padded to exactly `width` characters by widening the
      gaps between its words. All gaps get the same number of spaces, except that when the
      spaces cannot be shared evenly, the RIGHTMOST gaps get one extra space each.
    - A line (other than the last) that holds a single word is that word followed by spaces
      up to `width`.
    - The last line has single spaces between its words and NO padding at the end.

    Return the list of lines; an empty word list returns [].
    """,
    visible=[
        (
            "test_even_gaps_and_short_last_line",
            'justify_right_extra(["This", "is", "an", "example", "of", "text"], 16)',
            '["This    is    an", "example of text"]',
        ),
        (
            "test_extra_space_goes_to_the_right_gap",
            'justify_right_extra(["a", "bb", "ccc", "dddd"], 9)',
            '["a bb  ccc", "dddd"]',
        ),
        (
            "test_single_word_line_is_padded",
            'justify_right_extra(["longword", "x", "y"], 9)',
            '["longword ", "x y"]',
        ),
    ],
    hidden=[
        ("test_no_words", "justify_right_extra([], 5)", "[]"),
        ("test_single_short_word_not_padded", 'justify_right_extra(["hi"], 5)', '["hi"]'),
        (
            "test_lines_exactly_full",
            'justify_right_extra(["a", "b", "c", "d"], 3)',
            '["a b", "c d"]',
        ),
        (
            "test_one_gap_takes_all_spaces",
            'justify_right_extra(["one", "two", "three", "four", "five"], 10)',
            '["one    two", "three four", "five"]',
        ),
        (
            "test_three_gaps_uneven",
            'justify_right_extra(["aa", "b", "c", "d", "eeeeeeeeee"], 10)',
            '["aa b  c  d", "eeeeeeeeee"]',
        ),
        ("test_width_one", 'justify_right_extra(["x"], 1)', '["x"]'),
        (
            "test_four_gaps_uneven",
            'justify_right_extra(["a", "b", "c", "d", "e", "zzzzzzzzzzz"], 11)',
            '["a b c  d  e", "zzzzzzzzzzz"]',
        ),
        (
            "test_all_lines_have_width_except_last",
            'justify_right_extra(["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog"], 12)',
            '["the    quick", "brown    fox", "jumps   over", "the lazy dog"]',
        ),
    ],
    reference="""
    def justify_right_extra(words, width):
        lines = []
        i = 0
        while i < len(words):
            j = i + 1
            length = len(words[i])
            while j < len(words) and length + 1 + len(words[j]) <= width:
                length += 1 + len(words[j])
                j += 1
            line_words = words[i:j]
            if j == len(words):
                lines.append(" ".join(line_words))
            elif len(line_words) == 1:
                lines.append(line_words[0].ljust(width))
            else:
                gaps = len(line_words) - 1
                spaces = width - sum(len(w) for w in line_words)
                base, extra = divmod(spaces, gaps)
                line = line_words[0]
                for g in range(gaps):
                    line += " " * (base + (1 if g >= gaps - extra else 0)) + line_words[g + 1]
                lines.append(line)
            i = j
        return lines
    """,
    naive="""
    def justify_right_extra(words, width):
        lines = []
        i = 0
        while i < len(words):
            j = i + 1
            length = len(words[i])
            while j < len(words) and length + 1 + len(words[j]) <= width:
                length += 1 + len(words[j])
                j += 1
            line_words = words[i:j]
            if j == len(words):
                lines.append(" ".join(line_words))
            elif len(line_words) == 1:
                lines.append(line_words[0].ljust(width))
            else:
                gaps = len(line_words) - 1
                spaces = width - sum(len(w) for w in line_words)
                base, extra = divmod(spaces, gaps)
                line = line_words[0]
                for g in range(gaps):
                    line += " " * (base + (1 if g < extra else 0)) + line_words[g + 1]
                lines.append(line)
            i = j
        return lines
    """,
)

T(
    id="next_bigger_same_digits",
    difficulty="hard",
    signature="next_bigger_same_digits(n: int) -> int",
    desc="""
    takes a positive integer n and returns the smallest integer greater than n whose
    decimal digits are a rearrangement of the digits of n (the same digits, each used the
    same number of times, and no leading zero). If there is no such integer, return -1.
    n can have up to 18 digits, so trying every larger number one by one is far too slow.
    """,
    visible=[
        ("test_two_digits", "next_bigger_same_digits(12)", "21"),
        ("test_rearrange_the_tail", "next_bigger_same_digits(534976)", "536479"),
        ("test_already_largest", "next_bigger_same_digits(21)", "-1"),
    ],
    hidden=[
        ("test_single_digit", "next_bigger_same_digits(7)", "-1"),
        ("test_all_same_digits", "next_bigger_same_digits(111)", "-1"),
        ("test_ascending_digits", "next_bigger_same_digits(1234)", "1243"),
        ("test_descending_digits", "next_bigger_same_digits(4321)", "-1"),
        ("test_repeated_digit", "next_bigger_same_digits(115)", "151"),
        ("test_with_zero", "next_bigger_same_digits(1990)", "9019"),
        ("test_zero_in_the_middle", "next_bigger_same_digits(2017)", "2071"),
        ("test_ten_has_no_answer", "next_bigger_same_digits(10)", "-1"),
        ("test_many_repeats", "next_bigger_same_digits(12222333)", "12223233"),
        (
            "test_eighteen_digits",
            "next_bigger_same_digits(987654321987654321)",
            "987654322113456789",
        ),
    ],
    reference="""
    def next_bigger_same_digits(n):
        digits = list(str(n))
        i = len(digits) - 2
        while i >= 0 and digits[i] >= digits[i + 1]:
            i -= 1
        if i < 0:
            return -1
        j = len(digits) - 1
        while digits[j] <= digits[i]:
            j -= 1
        digits[i], digits[j] = digits[j], digits[i]
        digits[i + 1:] = reversed(digits[i + 1:])
        return int("".join(digits))
    """,
    naive="""
    def next_bigger_same_digits(n):
        digits = list(str(n))
        i = len(digits) - 2
        while i >= 0 and digits[i] >= digits[i + 1]:
            i -= 1
        if i < 0:
            return -1
        j = len(digits) - 1
        while digits[j] <= digits[i]:
            j -= 1
        digits[i], digits[j] = digits[j], digits[i]
        digits[i + 1:] = sorted(digits[i + 1:], reverse=True)
        return int("".join(digits))
    """,
)

T(
    id="longest_equal_ab",
    difficulty="hard",
    signature="longest_equal_ab(s: str) -> int",
    desc="""
    takes a string s consisting only of the characters "a" and "b" and returns the length
    of the longest contiguous substring that contains as many "a"s as "b"s. If no non-empty
    substring has this property (including when s is empty), return 0. s can be up to
    100000 characters long, so checking every substring is too slow.
    """,
    visible=[
        ("test_substring_in_the_middle", 'longest_equal_ab("aabab")', "4"),
        ("test_only_one_letter", 'longest_equal_ab("aaa")', "0"),
        ("test_whole_string_balanced", 'longest_equal_ab("abba")', "4"),
    ],
    hidden=[
        ("test_empty_string", 'longest_equal_ab("")', "0"),
        ("test_single_pair", 'longest_equal_ab("ab")', "2"),
        ("test_single_character", 'longest_equal_ab("b")', "0"),
        ("test_balanced_prefix", 'longest_equal_ab("aaaabbbbaa")', "8"),
        ("test_counts_alone_are_not_enough", 'longest_equal_ab("baaab")', "2"),
        ("test_alternating", 'longest_equal_ab("abababab")', "8"),
        ("test_balanced_at_the_end", 'longest_equal_ab("bbbab")', "2"),
        ("test_suffix", 'longest_equal_ab("aab")', "2"),
        ("test_long_string", 'longest_equal_ab("a" * 50000 + "b" * 30000)', "60000"),
    ],
    reference="""
    def longest_equal_ab(s):
        first_seen = {0: -1}
        balance = 0
        best = 0
        for i, ch in enumerate(s):
            balance += 1 if ch == "a" else -1
            if balance in first_seen:
                best = max(best, i - first_seen[balance])
            else:
                first_seen[balance] = i
        return best
    """,
    naive="""
    def longest_equal_ab(s):
        return 2 * min(s.count("a"), s.count("b"))
    """,
)

T(
    id="word_break_count",
    difficulty="hard",
    signature="word_break_count(s: str, words: list[str]) -> int",
    desc="""
    returns the number of different ways to split the string s into a sequence of one or
    more consecutive pieces such that every piece is one of the strings in `words` (words
    are non-empty and may be reused any number of times). Two splits are different if they
    cut s at different positions. Duplicate entries in `words` do not create extra ways. If
    s is empty, return 1. s can be a few hundred characters long.
    """,
    visible=[
        ("test_two_splits", 'word_break_count("catsdog", ["cat", "cats", "sdog", "dog"])', "2"),
        ("test_reusing_words", 'word_break_count("aaa", ["a", "aa"])', "3"),
        ("test_no_split", 'word_break_count("abc", ["ab", "bc"])', "0"),
    ],
    hidden=[
        ("test_empty_string", 'word_break_count("", ["a"])', "1"),
        ("test_no_words", 'word_break_count("a", [])', "0"),
        (
            "test_duplicate_words_do_not_count_twice",
            'word_break_count("aaaa", ["a", "a", "aa"])',
            "5",
        ),
        ("test_apple_pen", 'word_break_count("applepenapple", ["apple", "pen", "applepen"])', "2"),
        (
            "test_many_overlapping_words",
            'word_break_count("abcd", ["abcd", "a", "bcd", "ab", "cd", "b", "c", "d"])',
            "6",
        ),
        ("test_whole_string_is_one_word", 'word_break_count("xyz", ["xyz", "xy"])', "1"),
        (
            "test_long_string",
            'word_break_count("a" * 200, ["a", "aa"])',
            "453973694165307953197296969697410619233826",
        ),
    ],
    reference="""
    def word_break_count(s, words):
        vocabulary = set(words)
        lengths = {len(w) for w in vocabulary}
        ways = [0] * (len(s) + 1)
        ways[0] = 1
        for end in range(1, len(s) + 1):
            ways[end] = sum(
                ways[end - size]
                for size in lengths
                if size <= end and s[end - size:end] in vocabulary
            )
        return ways[len(s)]
    """,
    naive="""
    def word_break_count(s, words):
        ways = [0] * (len(s) + 1)
        ways[0] = 1
        for end in range(1, len(s) + 1):
            for w in words:
                if s[:end].endswith(w):
                    ways[end] += ways[end - len(w)]
        return ways[len(s)]
    """,
)

T(
    id="largest_region",
    difficulty="hard",
    signature="largest_region(grid: list[str]) -> int",
    desc="""
    takes a grid given as a list of equal-length strings. Two cells are connected if they
    are horizontally or vertically adjacent (not diagonally) and hold the same character.
    Return the number of cells in the largest connected group of equal characters. An empty
    grid (no rows, or rows of length 0) returns 0. Grids can be as large as 200 x 200.
    """,
    visible=[
        ("test_mixed_grid", 'largest_region(["aab", "abb", "ccb"])', "4"),
        ("test_diagonals_do_not_connect", 'largest_region(["xy", "yx"])', "1"),
        ("test_no_rows", "largest_region([])", "0"),
    ],
    hidden=[
        ("test_empty_row", 'largest_region([""])', "0"),
        ("test_single_cell", 'largest_region(["z"])', "1"),
        ("test_single_row", 'largest_region(["aaaa"])', "4"),
        ("test_column", 'largest_region(["ab", "ab", "ab"])', "3"),
        ("test_checkerboard", 'largest_region(["aba", "bab", "aba"])', "1"),
        ("test_ring", 'largest_region(["aaa", "aba", "aaa"])', "8"),
        ("test_l_shape", 'largest_region(["abc", "abc", "aaa"])', "5"),
        ("test_large_uniform_grid", 'largest_region(["a" * 200] * 200)', "40000"),
        (
            "test_large_snake",
            'largest_region(["a" * 200 if r % 2 == 0 else "b" * 199 + "a" if r % 4 == 1 else "a" + "b" * 199 for r in range(200)])',
            "20100",
        ),
    ],
    reference="""
    def largest_region(grid):
        if not grid or not grid[0]:
            return 0
        rows, cols = len(grid), len(grid[0])
        seen = [[False] * cols for _ in range(rows)]
        best = 0
        for r in range(rows):
            for c in range(cols):
                if seen[r][c]:
                    continue
                seen[r][c] = True
                stack = [(r, c)]
                size = 0
                while stack:
                    y, x = stack.pop()
                    size += 1
                    for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                        if 0 <= ny < rows and 0 <= nx < cols and not seen[ny][nx] and grid[ny][nx] == grid[r][c]:
                            seen[ny][nx] = True
                            stack.append((ny, nx))
                best = max(best, size)
        return best
    """,
    naive="""
    def largest_region(grid):
        if not grid or not grid[0]:
            return 0
        rows, cols = len(grid), len(grid[0])
        seen = set()

        def fill(y, x, ch):
            if not (0 <= y < rows and 0 <= x < cols) or (y, x) in seen or grid[y][x] != ch:
                return 0
            seen.add((y, x))
            return 1 + fill(y + 1, x, ch) + fill(y - 1, x, ch) + fill(y, x + 1, ch) + fill(y, x - 1, ch)

        return max(fill(r, c, grid[r][c]) for r in range(rows) for c in range(cols))
    """,
)

T(
    id="lru_misses",
    difficulty="hard",
    signature="lru_misses(capacity: int, accesses: list) -> tuple[int, list]",
    desc="""
    simulates a least-recently-used (LRU) cache that holds at most `capacity` keys
    (capacity >= 0). Process the hashable keys in `accesses` in order. If the key is in the
    cache, it is a hit and becomes the most recently used key. Otherwise it is a miss: if
    the cache is full, first evict the least recently used key, then insert the new key as
    the most recently used. With capacity 0 nothing is ever stored, so every access is a
    miss. Return (misses, contents), where contents lists the keys in the cache at the end,
    from least recently used to most recently used.
    """,
    visible=[
        (
            "test_hit_refreshes_recency",
            'lru_misses(2, ["a", "b", "a", "c", "b"])',
            '(4, ["c", "b"])',
        ),
        ("test_capacity_zero", "lru_misses(0, [1, 1])", "(2, [])"),
        ("test_capacity_three", "lru_misses(3, [1, 2, 3, 1, 4, 2])", "(5, [1, 4, 2])"),
    ],
    hidden=[
        ("test_no_accesses", "lru_misses(1, [])", "(0, [])"),
        ("test_repeated_key_single_slot", 'lru_misses(1, ["x", "x", "x"])', '(1, ["x"])'),
        ("test_single_slot_thrashing", 'lru_misses(1, ["x", "y", "x"])', '(3, ["x"])'),
        ("test_cache_not_full", 'lru_misses(3, ["a", "b"])', '(2, ["a", "b"])'),
        ("test_hits_protect_key", "lru_misses(2, [1, 2, 1, 3, 1, 4])", "(4, [1, 4])"),
        ("test_plain_eviction_order", 'lru_misses(2, ["a", "b", "c", "a"])', '(4, ["c", "a"])'),
        ("test_capacity_zero_no_accesses", "lru_misses(0, [])", "(0, [])"),
        (
            "test_hit_on_least_recent_key",
            'lru_misses(3, ["a", "b", "c", "a", "d"])',
            '(4, ["c", "a", "d"])',
        ),
    ],
    reference="""
    from collections import OrderedDict

    def lru_misses(capacity, accesses):
        cache = OrderedDict()
        misses = 0
        for key in accesses:
            if key in cache:
                cache.move_to_end(key)
                continue
            misses += 1
            if capacity == 0:
                continue
            if len(cache) >= capacity:
                cache.popitem(last=False)
            cache[key] = True
        return (misses, list(cache))
    """,
    naive="""
    def lru_misses(capacity, accesses):
        cache = []
        misses = 0
        for key in accesses:
            if key in cache:
                continue
            misses += 1
            if capacity == 0:
                continue
            if len(cache) >= capacity:
                cache.pop(0)
            cache.append(key)
        return (misses, cache)
    """,
)
