"""Generated (gold, prediction) pairs for the math-verify corpus (golden.py).

Each family draws a MATH-style answer and writes it several ways: equal
forms (other LaTeX spellings, orders, decimals, units, assignments), near
misses (a changed number, sign, bracket or order) and malformed LaTeX (an
unclosed brace, a stray command, a dropped character). The answers are then
put inside a solution (the gold, as minerva_math passes doc["solution"]) and
inside a generation (the prediction) in the shapes models write: the
minerva "Final Answer: ..." line, \\boxed{}, "The answer is", bare math.
Everything is drawn from one seeded random.Random, so the list is the same
on every run.
"""
import math
import random
from fractions import Fraction

LMEVAL = "LE|LE|6|1|0"
LEADERBOARD = "L|LE|6|1|0"
BARE = "BE|BE|6|1|0"
SEED = 20250901
N_ANSWERS = 1800


def frac_tex(f, style="frac"):
    p, q = f.numerator, f.denominator
    if q == 1:
        return str(p)
    sign = "-" if p < 0 else ""
    p = abs(p)
    if style == "slash":
        return f"{sign}{p}/{q}"
    if style == "dfrac":
        return f"{sign}\\dfrac{{{p}}}{{{q}}}"
    if style == "short" and p < 10 and q < 10:
        return f"{sign}\\frac{p}{q}"
    return f"{sign}\\frac{{{p}}}{{{q}}}"


def dec(x, n):
    s = f"{x:.{n}f}"
    return s


def integer(r):
    n = r.choice([r.randint(0, 20), r.randint(21, 999), r.randint(1000, 10**7), -r.randint(1, 500)])
    eq = [str(n), f"{n}.0", f"{n}\\text{{ cm}}", f"{n}^\\circ", f"x = {n}", f"{n} \\text{{ units}}", f"{{{n}}}"]
    if n >= 1000:
        eq += [f"{n:,}", f"{n:,}".replace(",", "{,}"), f"{n:,}".replace(",", "\\,")]
    near = [str(n + 1), str(n - 1), str(n * 10), f"{n}.5"]
    if n:
        near.append(str(-n))
    return str(n), eq, near


def fraction(r):
    q = r.randint(2, 60)
    p = r.randint(1, 150)
    f = Fraction(p, q) * r.choice([1, 1, 1, -1])
    if f.denominator == 1:
        f += Fraction(1, 7)
    k = r.randint(2, 5)
    eq = [frac_tex(f), frac_tex(f, "dfrac"), frac_tex(f, "slash"), frac_tex(f, "short"),
          dec(float(f), 6), dec(float(f), 10), f"\\frac{{{f.numerator * k}}}{{{f.denominator * k}}}",
          f"\\left({frac_tex(f)}\\right)", f"{{{f.numerator} \\over {f.denominator}}}"]
    if f > 1:
        w = f.numerator // f.denominator
        eq.append(f"{w}\\frac{{{f.numerator - w * f.denominator}}}{{{f.denominator}}}")
    near = [frac_tex(1 / f), frac_tex(f + Fraction(1, f.denominator)), dec(float(f), 2), frac_tex(-f),
            dec(float(f), 4)]
    return frac_tex(f), eq, near


def squarefree(r):
    return r.choice([2, 3, 5, 6, 7, 10, 11, 13, 14, 15, 17, 19, 21, 22, 23])


def radical(r):
    a, b = r.randint(1, 9), squarefree(r)
    c = r.choice([1, 1, 2, 3, 4, 5, 6])
    g = math.gcd(a, c)
    a, c = a // g, c // g
    A = "" if a == 1 else str(a)
    gold = f"{A}\\sqrt{{{b}}}" if c == 1 else f"\\frac{{{A}\\sqrt{{{b}}}}}{{{c}}}"
    val = a * math.sqrt(b) / c
    if c == 1:
        eq = [f"\\sqrt{{{a * a * b}}}", f"{A}\\sqrt {b}", f"\\sqrt{{{b}}} \\cdot {a}", f"{a}\\cdot\\sqrt{{{b}}}",
              dec(val, 8), f"\\frac{{{2 * a}\\sqrt{{{b}}}}}{{2}}", f"{a}*\\sqrt{{{b}}}", f"{A}\\sqrt{b}"]
        near = [f"{A}\\sqrt{{{b + 1}}}", f"{a + 1}\\sqrt{{{b}}}", f"\\sqrt{{{a * b}}}", dec(val, 2), f"{a * b}"]
    else:
        eq = [f"\\frac{{{a}}}{{{c}}}\\sqrt{{{b}}}", f"\\frac{{\\sqrt{{{a * a * b}}}}}{{{c}}}", dec(val, 8),
              f"\\dfrac{{{A}\\sqrt{b}}}{{{c}}}", f"\\frac{{{a * b}}}{{{c}\\sqrt{{{b}}}}}", f"{A}\\sqrt{{{b}}}/{c}"]
        near = [f"\\frac{{{A}\\sqrt{{{b}}}}}{{{c + 1}}}", f"\\frac{{{a}}}{{{c}\\sqrt{{{b}}}}}", dec(val, 3),
                f"\\frac{{{A}\\sqrt{{{b + 1}}}}}{{{c}}}"]
    return gold, eq, near


def pi_multiple(r):
    f = Fraction(r.randint(1, 30), r.choice([1, 2, 3, 4, 6, 8, 12]))
    p, q = f.numerator, f.denominator
    P = "" if p == 1 else str(p)
    gold = f"{P}\\pi" if q == 1 else f"\\frac{{{P}\\pi}}{{{q}}}"
    eq = [f"{p}\\pi" if q == 1 else f"\\frac{{{p}}}{{{q}}}\\pi", f"\\pi \\cdot {frac_tex(f)}", dec(float(f) * math.pi, 7),
          f"{frac_tex(f, 'slash')} \\pi" if q > 1 else f"{p} \\pi", f"{P}\\pi/{q}", f"{P}\\pi \\text{{ cm}}^2"]
    near = [frac_tex(f), f"{frac_tex(f + 1)}\\pi", dec(float(f) * math.pi, 2), f"{P}\\pi^2" if q == 1 else f"\\frac{{{P}\\pi^2}}{{{q}}}"]
    return gold, eq, near


def poly_tex(cs, var="x"):
    """Coefficients from the highest degree down, as LaTeX."""
    out = ""
    d = len(cs) - 1
    for i, c in enumerate(cs):
        e = d - i
        if c == 0:
            continue
        sign = "-" if c < 0 else "+"
        a = abs(c)
        mono = "" if e == 0 else (var if e == 1 else f"{var}^{{{e}}}" if e > 9 else f"{var}^{e}")
        coef = str(a) if (a != 1 or e == 0) else ""
        term = coef + mono
        out += (("-" if sign == "-" else "") + term) if not out else f" {sign} {term}"
    return out or "0"


def polynomial(r):
    var = r.choice(["x", "x", "x", "t", "n", "a"])
    roots = [r.randint(-6, 6) for _ in range(r.choice([1, 2, 2, 3]))]
    k = r.choice([1, 1, 2, -1, 3])
    cs = [k]
    for rt in roots:
        cs = [a - rt * b for a, b in zip(cs + [0], [0] + cs)]
    gold = poly_tex(cs, var)
    fac = ("" if k == 1 else "-" if k == -1 else str(k)) + "".join(
        f"({var}{'-' if rt > 0 else '+'}{abs(rt)})" if rt else var for rt in roots)
    rev = " + ".join(f"{c}{var}^{d}" if d > 1 else f"{c}{var}" if d == 1 else f"{c}"
                     for d, c in reversed(list(enumerate(reversed(cs)))) if c).replace("+ -", "- ")
    eq = [fac, rev, gold.replace(" ", ""), gold.replace(f"{var}^2", f"{var}\\cdot {var}"), f"y = {gold}",
          f"f({var}) = {gold}", gold.replace(var, f"\\left({var}\\right)")]
    bad = list(cs)
    i = r.randrange(len(bad))
    bad[i] += r.choice([-1, 1, 2])
    near = [poly_tex(bad, var), poly_tex([-c for c in cs], var), poly_tex(cs, "y" if var != "y" else "z"),
            fac.replace("-", "+", 1) if "-" in fac else fac + "+1"]
    return gold, eq, near


def rational_function(r):
    a, b, c = r.randint(1, 5), r.randint(-5, 5), r.randint(1, 6)
    gold = f"\\frac{{{a}x{'+' if b >= 0 else '-'}{abs(b)}}}{{x+{c}}}"
    eq = [f"\\frac{{-{a}x{'-' if b >= 0 else '+'}{abs(b)}}}{{-x-{c}}}", f"{a} + \\frac{{{b - a * c}}}{{x+{c}}}",
          f"({a}x{'+' if b >= 0 else '-'}{abs(b)})/(x+{c})", f"\\frac{{{2 * a}x{'+' if b >= 0 else '-'}{2 * abs(b)}}}{{2x+{2 * c}}}"]
    near = [f"\\frac{{{a}x{'+' if b >= 0 else '-'}{abs(b)}}}{{x-{c}}}", f"\\frac{{{a + 1}x{'+' if b >= 0 else '-'}{abs(b)}}}{{x+{c}}}",
            f"{a} + \\frac{{{b - a * c + 1}}}{{x+{c}}}"]
    return gold, eq, near


def num_tex(r, v):
    if isinstance(v, Fraction):
        return r.choice([frac_tex(v), frac_tex(v), frac_tex(v, "dfrac")])
    return str(v)


def endpoint(r):
    return r.choice([r.randint(-10, 10), r.randint(-10, 10), Fraction(r.randint(-20, 20), r.choice([2, 3, 5]))])


def interval(r):
    a, b = sorted({endpoint(r) for _ in range(3)} | {endpoint(r)})[:2] if True else None
    if a == b:
        b = a + 1
    lo, hi = r.choice(["[", "("]), r.choice(["]", ")"])
    A, B = num_tex(r, a), num_tex(r, b)
    kind = r.randrange(4)
    if kind == 0:
        gold = f"{lo}{A},{B}{hi}"
        eq = [f"\\left{lo}{A}, {B}\\right{hi}", f"{lo} {A} , {B} {hi}", f"{lo}{dec(float(a), 6)},{dec(float(b), 6)}{hi}",
              f"x \\in {lo}{A},{B}{hi}"]
        rel = {"[": "\\le", "(": "<"}[lo], {"]": "\\le", ")": "<"}[hi]
        eq.append(f"{A} {rel[0]} x {rel[1]} {B}")
        near = [f"{'(' if lo == '[' else '['}{A},{B}{hi}", f"{lo}{A},{B}{']' if hi == ')' else ')'}", f"{lo}{B},{A}{hi}",
                f"{lo}{num_tex(r, a - 1)},{B}{hi}"]
    elif kind == 1:
        gold = f"(-\\infty,{A}{hi})".replace(hi + ")", hi)
        gold = f"(-\\infty,{A}{hi}"
        eq = [f"\\left(-\\infty, {A}\\right{hi}", f"(-\\infty, {A}{hi}", "x " + ("\\le" if hi == "]" else "<") + f" {A}"]
        near = [f"(-\\infty,{A}{')' if hi == ']' else ']'}", f"({A},\\infty)", f"(-\\infty,{num_tex(r, a + 2)}{hi}"]
    elif kind == 2:
        gold = f"{lo}{A},\\infty)"
        eq = [f"\\left{lo}{A}, \\infty\\right)", f"{lo}{A}, +\\infty)", "x " + ("\\ge" if lo == "[" else ">") + f" {A}"]
        near = [f"{'(' if lo == '[' else '['}{A},\\infty)", f"(-\\infty,{A}]", f"{lo}{num_tex(r, a + 1)},\\infty)"]
    else:
        gold = f"(-\\infty,{A})\\cup({B},\\infty)"
        eq = [f"\\left(-\\infty, {A}\\right) \\cup \\left({B}, \\infty\\right)", f"(-\\infty,{A})\\cup({B},+\\infty)",
              f"({B},\\infty)\\cup(-\\infty,{A})"]
        near = [f"(-\\infty,{A}]\\cup({B},\\infty)", f"({A},{B})", f"(-\\infty,{B})\\cup({A},\\infty)"]
    return gold, eq, near


def point(r):
    n = r.choice([2, 2, 3])
    vs = [endpoint(r) for _ in range(n)]
    T = [num_tex(r, v) for v in vs]
    gold = "(" + ", ".join(T) + ")"
    eq = ["\\left(" + ",".join(T) + "\\right)", "(" + ",".join(T) + ")", "(" + ", ".join(dec(float(v), 6) for v in vs) + ")"]
    if n == 3:
        eq.append("\\begin{pmatrix} " + " \\\\ ".join(T) + " \\end{pmatrix}")
    near = ["(" + ", ".join(reversed(T)) + ")", "(" + ", ".join(T[:-1] + [num_tex(r, vs[-1] + 1)]) + ")",
            "(" + ", ".join(T[:-1]) + ")"]
    return gold, eq, near


def solution_set(r):
    vs = sorted({endpoint(r) for _ in range(r.choice([2, 2, 3, 4]))})
    if len(vs) < 2:
        vs = [vs[0], vs[0] + 1]
    T = [num_tex(r, v) for v in vs]
    gold = ", ".join(T)
    sh = list(T)
    r.shuffle(sh)
    eq = [", ".join(reversed(T)), "\\{" + ", ".join(T) + "\\}", ",".join(sh), " \\text{ and } ".join(T) if len(T) == 2 else ", ".join(T[:-1]) + ", and " + T[-1],
          "x = " + ", ".join(T), "; ".join(T)]
    near = [", ".join(T[:-1]), ", ".join(T[:-1] + [num_tex(r, vs[-1] + 1)]), "\\{" + ", ".join(T + ["0"]) + "\\}"]
    return gold, eq, near


def equation(r):
    m, c = r.choice([-3, -2, -1, 2, 3, Fraction(1, 2), Fraction(-2, 3)]), r.randint(-9, 9)
    M = num_tex(r, m)
    M = "-" if M == "-1" else M
    C = f" + {c}" if c > 0 else f" - {-c}" if c < 0 else ""
    gold = f"y = {M}x{C}"
    eq = [f"y={M}x{C}".replace(" ", ""), f"y = {c} + {M}x" if c else f"y = x \\cdot {M}", f"{M}x{C}"]
    near = [f"y = {M}x{' - ' if c > 0 else ' + '}{abs(c) or 1}", f"y = {num_tex(r, m + 1)}x{C}", f"x = {M}y{C}"]
    return gold, eq, near


TEXTS = ["\\text{(A)}", "\\text{(C)}", "\\text{Evelyn}", "\\text{odd}", "\\text{even}", "\\text{neither}",
         "\\text{Tuesday}", "\\text{(E)}", "\\text{B}", "\\text{yes}"]


def text_answer(r):
    t = r.choice(TEXTS)
    inner = t[6:-1]
    eq = [f"\\textbf{{{inner}}}", f"\\mathrm{{{inner}}}", inner, f"\\text{{ {inner} }}", f"\\mbox{{{inner}}}"]
    other = r.choice([x for x in TEXTS if x != t])
    near = [other, other[6:-1], inner.lower() + "s"]
    return t, eq, near


def percent(r):
    n = r.randint(1, 99)
    gold = f"{n}\\%"
    eq = [str(n), f"{n} \\%", f"{n} percent", f"{n}%", f"{n}.0\\%", f"{n}\\text{{ percent}}"]
    near = [f"{n + 1}\\%", f"0.{n:02d}", f"{n / 100}", f"{n * 10}\\%"]
    return gold, eq, near


def degree(r):
    n = r.choice([30, 45, 60, 90, 120, 135, 150, r.randint(1, 359)])
    gold = f"{n}^\\circ"
    eq = [str(n), f"{n}^{{\\circ}}", f"{n}^\\circ.", f"{n} \\text{{ degrees}}", f"{n}\\degree"]
    near = [f"{n + 1}^\\circ", f"{180 - n}^\\circ" if n != 90 else "180^\\circ", f"\\frac{{{n}\\pi}}{{180}}"]
    return gold, eq, near


def money_units(r):
    n = r.randint(1, 500)
    cents = r.choice(["", ".50", ".25", ".99"])
    unit = r.choice(["\\text{ cm}^2", "\\text{ inches}", " \\text{meters}", "\\text{ mph}", "\\mbox{ cm}^2", "\\text{ feet}"])
    gold = r.choice([f"\\${n}{cents}", f"{n}{cents}{unit}"])
    eq = [f"{n}{cents}", f"{n}{cents}{unit}", f"\\${n}{cents}", f"{n}{cents} \\text{{ dollars}}"]
    near = [f"{n + 1}{cents}", f"{n}.{r.randint(1, 9)}1", f"{n * 100}"]
    return gold, eq, near


def matrix(r):
    rows, cols = r.choice([(2, 1), (3, 1), (2, 2)])
    vs = [[endpoint(r) for _ in range(cols)] for _ in range(rows)]
    T = [[num_tex(r, v) for v in row] for row in vs]
    env = r.choice(["pmatrix", "bmatrix"])
    body = " \\\\ ".join(" & ".join(row) for row in T)
    gold = f"\\begin{{{env}}} {body} \\end{{{env}}}"
    eq = ["\\begin{pmatrix}" + "\\\\".join("&".join(row) for row in T) + "\\end{pmatrix}",
          f"\\begin{{bmatrix}} {body} \\end{{bmatrix}}",
          "\\begin{pmatrix} " + " \\\\ ".join(" & ".join(dec(float(v), 6) for v in row) for row in vs) + " \\end{pmatrix}"]
    swapped = [row[::-1] for row in T[::-1]]
    near = ["\\begin{pmatrix} " + " \\\\ ".join(" & ".join(row) for row in swapped) + " \\end{pmatrix}",
            f"\\begin{{pmatrix}} {body} \\\\ 0 \\end{{pmatrix}}" if cols == 1 else f"\\begin{{pmatrix}} {body} \\end{{pmatrix}}^T"]
    return gold, eq, near


def misc_expr(r):
    k = r.randrange(12)
    n = r.randint(2, 9)
    table = [
        (f"\\frac{{\\sqrt{{3}}}}{{2}}", ["\\frac{1}{2}\\sqrt{3}", "\\sqrt{3}/2", "\\frac{\\sqrt3}{2}", "0.8660254", "\\sin 60^\\circ", "\\frac{3}{2\\sqrt{3}}"], ["\\frac{\\sqrt{2}}{2}", "\\frac{1}{2}", "0.866", "\\frac{\\sqrt{3}}{3}"]),
        (f"\\log_2 {2 ** n}", [str(n), f"\\log_{{2}}{{{2 ** n}}}", f"\\frac{{\\ln {2 ** n}}}{{\\ln 2}}"], [str(n + 1), f"\\log_2 {n}"]),
        (f"e^{{{n}}}", [f"e^{n}", f"\\exp({n})", f"\\exp{{{n}}}", dec(math.e ** n, 6)], [f"e^{{{n + 1}}}", f"{n}e", f"\\ln {n}"]),
        (f"\\sqrt[3]{{{n}}}", [f"{n}^{{1/3}}", f"{n}^{{\\frac{{1}}{{3}}}}", dec(n ** (1 / 3), 8)], [f"\\sqrt{{{n}}}", f"{n}^{{3}}", f"\\frac{{{n}}}{{3}}"]),
        (f"\\binom{{{n + 3}}}{{{n}}}", [str(math.comb(n + 3, n)), f"\\dbinom{{{n + 3}}}{{3}}", f"\\tbinom{{{n + 3}}}{{{n}}}"], [str(math.comb(n + 3, n) + 1), f"\\binom{{{n + 2}}}{{{n}}}"]),
        (f"{n}!", [str(math.factorial(n)), f"{n}\\cdot {n - 1}!"], [str(math.factorial(n) + 1), f"({n + 1})!"]),
        (f"{n}+{n + 1}i", [f"{n + 1}i+{n}", f"{n} + {n + 1} i", f"{n}+i{n + 1}", f"{n}+{n + 1}\\cdot i"], [f"{n}-{n + 1}i", f"{n + 1}+{n}i", f"{2 * n + 1}"]),
        (f"\\frac{{1}}{{{n}}}\\ln {n + 1}", [f"\\frac{{\\ln {n + 1}}}{{{n}}}", f"\\frac{{\\ln({n + 1})}}{{{n}}}", dec(math.log(n + 1) / n, 8)], [f"\\ln \\frac{{{n + 1}}}{{{n}}}", f"\\frac{{\\log {n + 1}}}{{{n}}}"]),
        (f"{n}^{{{n + 1}}}", [str(n ** (n + 1)), f"{n}^{n + 1}" if n + 1 < 10 else f"{n}^{{{n + 1}}}", f"({n})^{{{n + 1}}}"], [str(n ** (n + 1) - 1), f"{n + 1}^{{{n}}}"]),
        (f"\\sin^2 x", ["1 - \\cos^2 x", "\\sin(x)^2", "(\\sin x)^2", "\\frac{1-\\cos 2x}{2}"], ["\\cos^2 x", "\\sin x^2", "2\\sin x"]),
        (f"|x-{n}|", [f"|{n}-x|", f"\\left|x-{n}\\right|", f"\\lvert x - {n} \\rvert"], [f"x-{n}", f"|x+{n}|"]),
        (f"\\frac{{{n}}}{{x}}+\\frac{{1}}{{x^2}}", [f"\\frac{{{n}x+1}}{{x^2}}", f"({n}x+1)/x^2", f"{n}x^{{-1}}+x^{{-2}}"], [f"\\frac{{{n}x+1}}{{x}}", f"\\frac{{{n + 1}}}{{x^2}}"]),
    ]
    return table[k]


FAMILIES = [(integer, 5), (fraction, 5), (radical, 3), (pi_multiple, 2), (polynomial, 3), (rational_function, 1),
            (interval, 3), (point, 2), (solution_set, 2), (equation, 1), (text_answer, 1), (percent, 1),
            (degree, 1), (money_units, 1), (matrix, 1), (misc_expr, 3)]


def malformed(r, s):
    """A broken spelling of s."""
    k = r.randrange(8)
    if k == 0 and "}" in s:
        i = s.rfind("}")
        return s[:i] + s[i + 1:]
    if k == 1:
        return s + "}"
    if k == 2:
        return "\\left(" + s
    if k == 3 and len(s) > 2:
        i = r.randrange(len(s))
        return s[:i] + s[i + 1:]
    if k == 4:
        return s.replace("\\frac", "\\frac{", 1) if "\\frac" in s else "{" + s
    if k == 5:
        return s + "\\"
    if k == 6:
        return s.replace("{", "(", 1)
    return s + "^"


SOLUTIONS = [
    "We compute the value step by step. Therefore, the answer is $\\boxed{{{a}}}$.",
    "Simplifying, we find that the result is $\\boxed{{{a}}}.$",
    "Note that $2+3=5$ and $7 \\cdot 2 = 14$. Hence the final value is $\\boxed{{{a}}}$.",
    "Solving the equation gives \\[\\boxed{{{a}}}.\\]",
    "By symmetry the answer is $\\boxed{{{a}}}$, as claimed.",
    "\\boxed{{{a}}}",
    "Thus $x = \\boxed{{{a}}}$.",
]

GENERATIONS = [
    " We have the value computed above.\nFinal Answer: The final answer is ${a}$. I hope it is correct.",
    " Let's simplify. The answer is $\\boxed{{{a}}}$.",
    " First $3 + 4 = 7$, then we simplify to get $\\boxed{{{a}}}$.\n\nFinal Answer: The final answer is ${a}$. I hope it is correct.",
    " The answer is {a}.",
    " ${a}$",
    " So we get \\[ {a} \\]",
    "**Final Answer**\n\\boxed{{{a}}}",
    " Therefore, $x = {a}$.",
    " After checking, the result is \\({a}\\).",
    " Final Answer: The final answer is {a}. I hope it is correct.",
    " Hence the answer: ${a}$ and we are done.",
    " The answer is $\\boxed{{{a}}}$ (we verified it with $12$ cases).",
]

TRUNCATED = [" We start by writing the equation as $x^2 + 3x", " Let $n$ be the number. Then", " The sum is $1 + 2 + \\cdots"]


def wrap(r, template, a):
    return template.format(a=a)


# Hand-written edge cases: answers as models write them (bold, words
# around, several boxes, units, money), identities sympy can and cannot
# prove, calculus, identities sympy's simplify proves,
# relations against sets, constants against rounded decimals, determinants,
# gcd/max, ratios, assignments.
EDGE_PAIRS = [
 ("$\\int_0^1 x\\,dx$", "$\\frac{1}{2}$"), ("$\\lim_{x \\to 0} x$", "$0$"), ("$x^2 = 4$", "$x = 2$"),
 ("$(x-1)^2 = 0$", "$x = 1$"), ("$2x + 4y = 8$", "$x + 2y = 4$"), ("$x > 2$", "$2 < x$"), ("$2x > 4$", "$x > 2$"),
 ("$\\sin^2 x + \\cos^2 x$", "$1$"), ("$\\tan x$", "$\\frac{\\sin x}{\\cos x}$"), ("$\\sqrt{x^2}$", "$|x|$"),
 ("$\\log(x^2)$", "$2\\log(x)$"), ("$\\frac{x^2-1}{x-1}$", "$x+1$"), ("$e^{i\\pi}$", "$-1$"), ("$i^2$", "$-1$"),
 ("$\\sqrt{2}+\\sqrt{3}$", "$\\sqrt{5+2\\sqrt{6}}$"), ("$0.1+0.2$", "$0.3$"), ("$\\frac{1}{3}$", "$0.33333333333333333333$"),
 ("$\\Gamma(5)$", "$24$"), ("$5!$", "$120$"), ("$\\binom{10}{3}$", "$120$"), ("$\\gcd(12, 18)$", "$6$"),
 ("$\\max(1,2)$", "$2$"), ("$\\lfloor 2.5 \\rfloor$", "$2$"), ("$\\lceil x \\rceil$", "$\\lceil x \\rceil$"),
 ("$\\{1, 2\\} \\cup \\{3\\}$", "$\\{1,2,3\\}$"), ("$\\mathbb{R}$", "$(-\\infty, \\infty)$"), ("$\\emptyset$", "$\\{\\}$"),
 ("$x \\ne 2$", "$(-\\infty, 2) \\cup (2, \\infty)$"), ("$x^2 < 4$", "$(-2, 2)$"), ("$a_1 = 2, a_2 = 3$", "$2, 3$"),
 ("$\\frac{d}{dx} x^2$", "$2x$"), ("$10^{100}$", "$10^{100}$"), ("$2^{10}$", "$1024$"), ("$1.5 \\times 10^3$", "$1500$"),
 ("$1E3$", "$1000$"), ("$3.0$", "$3$"), ("$\\$5.00$", "$5$"), ("$50\\%$", "$\\frac{1}{2}$"), ("$x=\\pm 3$", "$3, -3$"),
 ("$\\text{(B)}$", "B"), ("$\\textbf{(C)}$", "$\\text{(C)}$"), ("$\\alpha + \\beta$", "$\\beta + \\alpha$"),
 ("$\\pi r^2$", "$r^2 \\pi$"), ("$2\\pi r$", "$2 r \\pi$"), ("$\\frac{\\pi}{4}$", "$45^\\circ$"), ("$y = x^2$", "$x^2 = y$"),
 ("$f(x) = 2x$", "$2x$"), ("$\\cos(2x)$", "$\\cos^2 x - \\sin^2 x$"), ("$\\arctan 1$", "$\\frac{\\pi}{4}$"),
 ("$\\log_2 3$", "$\\frac{\\ln 3}{\\ln 2}$"), ("$\\sqrt[4]{16}$", "$2$"), ("$(-8)^{1/3}$", "$-2$"), ("$\\frac{0}{0}$", "$\\frac{0}{0}$"),
 ("$\\infty$", "$\\infty$"), ("$-\\infty$", "$-\\infty$"), ("$\\frac{x}{y}$", "$x/y$"), ("$x y$", "$y x$"),
 ("$\\begin{vmatrix} 1 & 2 \\\\ 3 & 4 \\end{vmatrix}$", "$-2$"), ("$\\det\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}$", "$-2$"),
 ("$\\overline{AB}$", "$AB$"), ("$\\angle ABC$", "$\\angle ABC$"), ("$12:00$", "$12:00$"), ("$3:4$", "$\\frac{3}{4}$"),
 ("$1\\frac{1}{2}$", "$1.5$"), ("$-1\\frac{1}{2}$", "$-1.5$"), ("$\\frac{3}{2}$", "$1.5$"), ("$\\frac{2}{3}$", "$0.667$"),
 ("$\\frac{2}{3}$", "$0.666667$"), ("$\\frac{2}{3}$", "$0.6666667$"), ("$\\sqrt{2}$", "$1.414214$"), ("$\\sqrt{2}$", "$1.41421$"),
 ("$\\pi$", "$3.14$"), ("$\\pi$", "$3.141593$"), ("$e$", "$2.718282$"), ("$\\frac{1}{7}$", "$0.142857$"),
 ("The answer is $\\boxed{5}$.", "So the answer is **5**."),
 ("The answer is $\\boxed{5}$.", "Answer: 5 apples"),
 ("$\\boxed{\\dfrac{7}{2}}$", "The final answer is $\\boxed{3.5}$"),
 ("$\\boxed{2\\sqrt{3}}$", "Thus, we get $\\boxed{\\sqrt{12}}$ as required."),
 ("$\\boxed{(3,-1)}$", "The point is $(3, -1)$."),
 ("$\\boxed{x=3}$", "x = 3"),
 ("$\\boxed{\\frac{\\pi}{3}}$", "The angle is $60^\\circ$"),
 ("$\\boxed{\\$18.90}$", "It costs $\\$18.90$."),
 ("$\\boxed{18.90}$", "It costs \\$18.90."),
 ("$\\boxed{1,2,3}$", "$\\boxed{1}, \\boxed{2}, \\boxed{3}$"),
 ("$\\boxed{\\text{(D)}}$", "The answer is (D)."),
 ("$\\boxed{D}$", "$\\boxed{\\text{D}}$"),
 ("$\\boxed{-\\frac{1}{2}}$", "$\\boxed{-0.5}$"),
 ("$\\boxed{12\\%}$", "The answer is $12\\%$."),
 ("$\\boxed{0.12}$", "The answer is 12%."),
 ("$\\boxed{\\infty}$", "$\\boxed{+\\infty}$"),
 ("$\\boxed{(-\\infty,2]}$", "$x\\leq 2$"),
 ("$\\boxed{a^2+b^2}$", "$\\boxed{b^2+a^2}$"),
 ("$\\boxed{2^{2018}}$", "$\\boxed{4^{1009}}$"),
 ("$\\boxed{\\sqrt{2}/2}$", "$\\boxed{\\frac{1}{\\sqrt{2}}}$"),
 ("$\\boxed{\\frac{1+\\sqrt{5}}{2}}$", "$\\boxed{1.618034}$"),
 ("$\\boxed{\\frac{1+\\sqrt{5}}{2}}$", "$\\boxed{1.618}$"),
 ("$\\boxed{3 \\text{ hours}}$", "$\\boxed{3}$"),
 ("$\\boxed{4 \\text{ cm}^2}$", "$\\boxed{4}$"),
 ("$\\boxed{10}$", "I think it's 10 or 11, final answer 11."),
 ("$\\boxed{1/4}$", "$\\boxed{0.25}$"),
 ("$\\boxed{\\{2, 3\\}}$", "$\\boxed{\\{3, 2\\}}$"),
 ("$\\boxed{[0, 1]}$", "$\\boxed{\\left[0,1\\right]}$"),
 ("$\\boxed{x^3 - 3x}$", "$\\boxed{x(x^2-3)}$"),
 ("$\\boxed{\\frac{x+1}{x}}$", "$\\boxed{1+\\frac{1}{x}}$"),
 ("$\\boxed{2n+1}$", "$\\boxed{2k+1}$"),
 ("$\\boxed{\\sin 2x}$", "$\\boxed{2\\sin x\\cos x}$"),
 ("$\\boxed{e^{2x}}$", "$\\boxed{(e^x)^2}$"),
 ("$\\boxed{\\ln 6}$", "$\\boxed{\\ln 2 + \\ln 3}$"),
 ("$\\boxed{\\log_{3} 81}$", "$\\boxed{4}$"),
 ("$\\boxed{i}$", "$\\boxed{\\sqrt{-1}}$"),
 ("$\\boxed{1+2i}$", "$\\boxed{2i+1}$"),
 ("$\\boxed{\\begin{pmatrix} 1 \\\\ 2 \\\\ 3 \\end{pmatrix}}$", "$\\boxed{(1,2,3)}$"),
 ("$\\boxed{y=-x+2}$", "$\\boxed{x+y=2}$"),
 ("$\\boxed{y=-x+2}$", "$\\boxed{y = 2 - x}$"),
 ("$\\boxed{3 \\le x \\le 5}$", "$\\boxed{[3,5]}$"),
 ("$\\boxed{70}$", "The number of ways is 70."),
 ("$\\boxed{6}$", "6.0"),
 ("$\\boxed{1,000,000}$", "$\\boxed{1000000}$"),
 ("$\\boxed{1{,}000{,}000}$", "$\\boxed{10^6}$"),
 ("$\\boxed{\\text{no solution}}$", "$\\boxed{\\text{No solution}}$"),
 ("$\\boxed{\\emptyset}$", "$\\boxed{\\varnothing}$"),
 ("$\\boxed{504}$", "...so $n = 504$."),
 ("$\\boxed{\\frac{9}{4}}$", "$\\boxed{2\\frac{1}{4}}$"),
 ("$\\boxed{-2}$", "$\\boxed{- 2}$"),
 ("$\\boxed{\\frac{5}{12}}$", "$\\boxed{\\frac{10}{24}}$"),
 ("$\\boxed{5\\sqrt{2}}$", "$\\boxed{7.0710678}$"),
 ("$\\boxed{\\sqrt[3]{4}}$", "$\\boxed{4^{1/3}}$"),
 ("$\\boxed{25}$", "$5^2=\\boxed{25}$"),
 ("$\\boxed{(1,2),(3,4)}$", "$\\boxed{(3,4),(1,2)}$"),
 ("$\\boxed{x \\in (1, \\infty)}$", "$\\boxed{(1,\\infty)}$"),
 ("$\\boxed{a=2, b=3}$", "$\\boxed{b=3, a=2}$"),
 ("$\\boxed{11}$", "eleven"),
 ("$\\frac{\\sin x}{1+\\cos x}$", "$\\tan(x/2)$"),
 ("$\\cos^4 x - \\sin^4 x$", "$\\cos 2x$"),
 ("$\\sqrt{x^2+2x+1}$", "$x+1$"),
 ("$\\lim_{x\\to 0} \\frac{\\sin x}{x}$", "$1$"),
 ("$\\int x\\,dx$", "$\\frac{x^2}{2}$"),
 ("$\\arcsin(\\sin x)$", "$x$"),
 ("$\\frac{1}{\\sqrt{2}-1}$", "$\\sqrt{2}+1$"),
 ("$\\sqrt[3]{2+\\sqrt{5}}+\\sqrt[3]{2-\\sqrt{5}}$", "$1$"),
 ("$e^{\\ln x}$", "$x$"),
 ("$\\ln(e^x)$", "$x$"),
 ("$x^{1/2}x^{1/3}$", "$x^{5/6}$"),
 ("$\\sqrt{x}\\sqrt{y}$", "$\\sqrt{xy}$"),
 ("$\\frac{x^3-1}{x-1}$", "$x^2+x+1$"),
 ("$\\sum_{k=1}^{n} k$", "$\\frac{n(n+1)}{2}$"),
 ("$10^{10^{10}}$", "$10^{10^{10}}$"),
 ("$2^{100000}$", "$2^{100001}/2$"),
]


def generate():
    r = random.Random(SEED)
    fams = [f for f, w in FAMILIES for _ in range(w)]
    out = []
    for _ in range(N_ANSWERS):
        gold, eq, near = r.choice(fams)(r)
        preds = [(p, "eq") for p in eq] + [(p, "near") for p in near]
        preds += [(malformed(r, r.choice(eq + [gold])), "bad") for _ in range(2)]
        preds.append((gold, "same"))
        for p, _kind in preds:
            roll = r.random()
            if roll < 0.72:
                cfg = LMEVAL
                g = wrap(r, r.choice(SOLUTIONS), gold)
                pt = wrap(r, r.choice(GENERATIONS), p)
            elif roll < 0.86:
                cfg = LEADERBOARD
                g = wrap(r, r.choice(SOLUTIONS), gold)
                pt = wrap(r, r.choice(GENERATIONS), p)
            else:
                cfg = BARE
                g, pt = f"${gold}$", f"${p}$"
            out.append((cfg, g, pt))
        if r.random() < 0.05:
            out.append((LMEVAL, wrap(r, r.choice(SOLUTIONS), gold), r.choice(TRUNCATED)))
    for g, p in EDGE_PAIRS:
        out += [(LMEVAL, g, p), (BARE, g, p), (LMEVAL, p, g)]
    return out
