#!/usr/bin/env python3
"""Golden data for ptx-semantics, computed independently of the Rust code.

References:
  * integers: Python's unbounded ints, following the PTX ISA pseudocode of each instruction;
  * floats in every rounding mode: exact rational arithmetic (fractions.Fraction) rounded once by
    `round_frac` below; `.rn` results are additionally cross-checked here against numpy's IEEE
    float32/float16/float64 arithmetic and ml_dtypes' bfloat16/float8 conversions (the
    generator aborts on any disagreement);
  * square roots: math.isqrt on scaled integers (exact) with the remainder as sticky bit;
  * `.approx` functions: mpmath at 80 bits, stored as f64 bits; the Rust test checks the ISA bound;
  * mma/wgmma: numpy matrix products (float64 accumulation of exactly representable products)
    placed through the ISA's fragment layouts written out here from the ISA's figures.

Usage:  python3 crates/ptx-semantics/tests/gen_golden.py
It creates (once) a virtual environment beside the CUDA tools' Python with mpmath and ml_dtypes,
then writes crates/ptx-semantics/tests/golden/*.txt. Deterministic: fixed seeds.

Files are gzip-compressed text (`.txt.gz`). Line format: `<op> <hex operand>... <hex expected>...` (one case per line, `#` comments).
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(HERE, ".venv")


def ensure_venv():
    try:
        import mpmath  # noqa: F401
        import ml_dtypes  # noqa: F401
        import numpy  # noqa: F401
        return
    except ImportError:
        pass
    py = os.path.join(VENV, "bin", "python")
    if os.environ.get("PTX_SEMANTICS_GEN_IN_VENV"):
        sys.exit("venv lacks mpmath/ml_dtypes/numpy")
    if not os.path.exists(py):
        subprocess.check_call([sys.executable, "-m", "venv", "--system-site-packages", VENV])
        subprocess.check_call([py, "-m", "pip", "install", "-q", "numpy", "mpmath", "ml_dtypes"])
    env = dict(os.environ, PTX_SEMANTICS_GEN_IN_VENV="1")
    os.execve(py, [py] + sys.argv, env)


ensure_venv()

import gzip  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import struct  # noqa: E402
from fractions import Fraction  # noqa: E402

import ml_dtypes  # noqa: E402
import mpmath  # noqa: E402
import numpy as np  # noqa: E402

OUT = os.path.join(HERE, "golden")
os.makedirs(OUT, exist_ok=True)

# ----------------------------------------------------------------------------- float formats

# name: (exp_bits, man_bits, has_inf, canonical_nan)
FMT = {
    "f16": (5, 10, True, 0x7FFF),
    "bf16": (8, 7, True, 0x7FFF),
    "f32": (8, 23, True, 0x7FFFFFFF),
    "f64": (11, 52, True, 0x7FFFFFFFFFFFFFFF),
    "tf32": (8, 10, True, 0x3FFFF),
    "e4m3": (4, 3, False, 0x7F),
    "e5m2": (5, 2, True, 0x7F),
}


def width(f):
    e, m, _, _ = FMT[f]
    return 1 + e + m


def bias(f):
    return (1 << (FMT[f][0] - 1)) - 1


def inf_bits(f):
    e, m, _, _ = FMT[f]
    return ((1 << e) - 1) << m


def max_finite(f):
    e, m, has_inf, _ = FMT[f]
    if has_inf:
        return inf_bits(f) - 1
    return (((1 << e) - 1) << m) | ((1 << m) - 2)


def sign_bit(f):
    return 1 << (width(f) - 1)


NAN = ("nan",)


def decode(bits, f):
    """-> ('nan',) | ('inf', neg) | ('num', Fraction, neg)"""
    e, m, has_inf, _ = FMT[f]
    neg = bool(bits & sign_bit(f))
    mag = bits & (sign_bit(f) - 1)
    ex = mag >> m
    fr = mag & ((1 << m) - 1)
    if has_inf:
        if ex == (1 << e) - 1:
            return NAN if fr else ("inf", neg)
    elif mag == max_finite(f) + 1:
        return NAN
    if ex == 0:
        v = Fraction(fr) * Fraction(2) ** (1 - bias(f) - m)
    else:
        v = Fraction(fr | (1 << m)) * Fraction(2) ** (ex - bias(f) - m)
    return ("num", -v if neg else v, neg)


def is_subnormal(bits, f):
    m = FMT[f][1]
    mag = bits & (sign_bit(f) - 1)
    return 0 < mag < (1 << m)


def flush(bits, f):
    return bits & sign_bit(f) if is_subnormal(bits, f) else bits


def ilog2(a):
    """floor(log2(a)) for a positive Fraction"""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    elif Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def overflow(f, neg, mode, satfinite):
    s = sign_bit(f) if neg else 0
    to_inf = {"rn": True, "rna": True, "rz": False, "rp": not neg, "rm": neg}[mode]
    if satfinite or not to_inf:
        return s | max_finite(f)
    if FMT[f][2]:
        return s | inf_bits(f)
    return s | FMT[f][3]


def round_frac(q, f, mode, zero_neg=False, satfinite=False):
    """Round the exact rational q into format f (bits). zero_neg: sign when q == 0."""
    e, m, has_inf, _ = FMT[f]
    if q == 0:
        return sign_bit(f) if zero_neg else 0
    neg = q < 0
    a = -q if neg else q
    E = ilog2(a)
    emin = 1 - bias(f)
    qe = max(E, emin) - m
    scaled = a / Fraction(2) ** qe
    n = scaled.numerator // scaled.denominator
    frac = scaled - n
    half = Fraction(1, 2)
    if mode == "rz":
        up = False
    elif mode == "rn":
        up = frac > half or (frac == half and n % 2 == 1)
    elif mode == "rna":
        up = frac >= half
    elif mode == "rp":
        up = (not neg) and frac > 0
    elif mode == "rm":
        up = neg and frac > 0
    else:
        raise ValueError(mode)
    r = n + (1 if up else 0)
    enc = ((qe + m + bias(f) - 1) << m) + r
    limit = inf_bits(f) if has_inf else max_finite(f) + 1
    if enc >= limit:
        return overflow(f, neg, mode, satfinite)
    return (sign_bit(f) if neg else 0) | enc


def f32b(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def b2f32(b):
    return struct.unpack("<f", struct.pack("<I", b))[0]


def f64b(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def b2f64(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


# ----------------------------------------------------------------------------- IEEE ops on exact values


def ieee_binop(op, x, y, mode):
    """x, y decoded -> ('nan',) | ('inf', neg) | ('num', Fraction, zero_neg)"""
    if x[0] == "nan" or y[0] == "nan":
        return NAN
    if op == "sub":
        y = ("inf", not y[1]) if y[0] == "inf" else ("num", -y[1], not y[2])
        op = "add"
    if op == "add":
        if x[0] == "inf" and y[0] == "inf":
            return x if x[1] == y[1] else NAN
        if x[0] == "inf":
            return x
        if y[0] == "inf":
            return y
        s = x[1] + y[1]
        if s == 0:
            if x[1] == 0 and y[1] == 0 and x[2] == y[2]:
                zn = x[2]
            else:
                zn = mode == "rm"
            return ("num", Fraction(0), zn)
        return ("num", s, False)
    if op == "mul":
        neg = x_sign(x) != x_sign(y)
        if x[0] == "inf" or y[0] == "inf":
            if is_zero(x) or is_zero(y):
                return NAN
            return ("inf", neg)
        return ("num", x[1] * y[1], neg)
    if op == "div":
        neg = x_sign(x) != x_sign(y)
        if x[0] == "inf":
            return NAN if y[0] == "inf" else ("inf", neg)
        if y[0] == "inf":
            return ("num", Fraction(0), neg)
        if is_zero(y):
            return NAN if is_zero(x) else ("inf", neg)
        return ("num", x[1] / y[1], neg)
    raise ValueError(op)


def x_sign(v):
    if v[0] == "inf":
        return v[1]
    if v[1] != 0:
        return v[1] < 0
    return v[2]


def is_zero(v):
    return v[0] == "num" and v[1] == 0


def ieee_fma(a, b, c, mode):
    p = ieee_binop("mul", a, b, mode)
    if p[0] == "nan" or c[0] == "nan":
        return NAN
    return ieee_binop("add", p, c, mode)


def encode(v, f, mode, satfinite=False):
    if v[0] == "nan":
        return FMT[f][3]
    if v[0] == "inf":
        if satfinite or not FMT[f][2]:
            return (sign_bit(f) if v[1] else 0) | max_finite(f)
        return (sign_bit(f) if v[1] else 0) | inf_bits(f)
    return round_frac(v[1], f, mode, zero_neg=v[2], satfinite=satfinite)


ONE = {"f32": 0x3F800000, "f16": 0x3C00, "bf16": 0x3F80, "f64": 0x3FF0000000000000}


def finish(bits, f, ftz=False, sat=False, relu=False):
    if is_nan_bits(bits, f):
        return 0 if sat else FMT[f][3]
    if ftz:
        bits = flush(bits, f)
    if relu and bits & sign_bit(f):
        bits = 0
    if sat:
        if bits & sign_bit(f):
            bits = 0
        elif bits > ONE[f]:
            bits = ONE[f]
    return bits


def is_nan_bits(bits, f):
    return decode(bits, f)[0] == "nan"


def sqrt_exact(bits, f, mode):
    v = decode(bits, f)
    if v[0] == "nan":
        return FMT[f][3]
    if v[0] == "inf":
        return FMT[f][3] if v[1] else bits
    if v[1] == 0:
        return bits
    if v[1] < 0:
        return FMT[f][3]
    # sqrt(q) with q = n / 2^k (k even): isqrt(n * 4^s) / 2^(k/2 + s)
    q = v[1]
    k = 0
    while q.denominator != 1:
        q *= 4
        k += 2
    n = q.numerator
    s = 120
    big = n << (2 * s)
    r = math.isqrt(big)
    exact = r * r == big
    val = Fraction(r, 2 ** (k // 2 + s))
    if exact:
        return round_frac(val, f, mode)
    # r < sqrt < r+1 (in units): add a tiny sticky quarter-unit below the precision
    val = Fraction(4 * r + 1, 4 * 2 ** (k // 2 + s))
    return round_frac(val, f, mode)


# ----------------------------------------------------------------------------- value sets

R = random.Random(20260513)


def f32_edges():
    vals = [
        0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
        0x80800000, 0x3F800000, 0xBF800000, 0x3FC00000, 0x40000000, 0x3F7FFFFF, 0x3F800001,
        0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001,
        0x7F800001, 0x33800000, 0x34000000, 0x00400000, 0x3EAAAAAB, 0x4B000000, 0x4B7FFFFF,
        0x3F000000, 0x0C000000,
    ]
    return vals


def rand_f32():
    k = R.random()
    if k < 0.5:
        # moderate magnitudes, so that sums round
        return f32b(float(np.float32(R.uniform(-1, 1) * 2.0 ** R.randint(-30, 30))))
    if k < 0.7:
        return R.getrandbits(32)
    if k < 0.85:
        return R.getrandbits(23) | (R.getrandbits(1) << 31)  # subnormals
    return f32b(float(np.float32(R.uniform(-4, 4))))


def f64_edges():
    return [
        0, 1 << 63, 1, (1 << 63) | 1, 0x000FFFFFFFFFFFFF, 0x0010000000000000,
        0x3FF0000000000000, 0xBFF0000000000000, 0x3FF8000000000000, 0x3FEFFFFFFFFFFFFF,
        0x3FF0000000000001, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x7FF0000000000000,
        0xFFF0000000000000, 0x7FF8000000000000, 0xFFF8000000000001, 0x7FF0000000000001,
        0x3CA0000000000000, 0x4330000000000000, 0x3FD5555555555555, 0x0008000000000000,
    ]


def rand_f64():
    k = R.random()
    if k < 0.5:
        return f64b(R.uniform(-1, 1) * 2.0 ** R.randint(-60, 60))
    if k < 0.7:
        return R.getrandbits(64)
    if k < 0.8:
        return R.getrandbits(52) | (R.getrandbits(1) << 63)
    return f64b(R.uniform(-4, 4))


def half_edges(f):
    if f == "f16":
        return [0, 0x8000, 1, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3E00, 0x3BFF, 0x3C01,
                0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x7C01, 0x1400, 0x5800, 0x3555]
    return [0, 0x8000, 1, 0x8001, 0x007F, 0x0080, 0x3F80, 0xBF80, 0x3FC0, 0x3F7F, 0x3F81,
            0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC1, 0x7F81, 0x3B80, 0x4B00, 0x3EAB]


def rand_half(f):
    k = R.random()
    if k < 0.6:
        v = R.uniform(-1, 1) * 2.0 ** R.randint(-12, 12)
        if f == "f16":
            return int(np.float16(v).view(np.uint16))
        return int(np.array(v, dtype=np.float32).astype(ml_dtypes.bfloat16).view(np.uint16))
    return R.getrandbits(16)


def pairs(edges, rnd, n_random):
    out = [(a, b) for a in edges for b in edges]
    out += [(rnd(), rnd()) for _ in range(n_random)]
    return out


def triples(edges, rnd, n_random):
    sub = edges[::2]
    out = [(a, b, c) for a in sub for b in sub for c in sub]
    out += [(rnd(), rnd(), rnd()) for _ in range(n_random)]
    # cancellation cases: c = -(a*b) rounded
    return out


def hx(v, bits):
    return format(v, "0%dx" % (bits // 4))


class Writer:
    def __init__(self, name):
        self.path = os.path.join(OUT, name + ".gz")
        self.lines = []
        self.count = 0

    def add(self, op, *vals):
        self.lines.append(op + " " + " ".join(vals))
        self.count += 1

    def comment(self, s):
        self.lines.append("# " + s)

    def close(self):
        data = ("\n".join(self.lines) + "\n").encode()
        # mtime=0 and no file name: byte-identical output on every run
        with open(self.path, "wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as fh:
                fh.write(data)
        print("%-28s %7d cases" % (os.path.basename(self.path), self.count))


# ----------------------------------------------------------------------------- integer golden


def mask(bits):
    return (1 << bits) - 1


def sval(v, bits, signed):
    v &= mask(bits)
    if signed and v >> (bits - 1):
        return v - (1 << bits)
    return v


def int_edges(bits):
    m = mask(bits)
    base = [0, 1, 2, 3, 7, m, m - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1, (1 << (bits - 1)) + 1,
            0x55 & m, 0xAA & m, (0x5555555555555555 & m), (0xAAAAAAAAAAAAAAAA & m)]
    return base


def rand_int(bits):
    k = R.random()
    if k < 0.3:
        return R.getrandbits(bits)
    if k < 0.6:
        return R.getrandbits(R.randint(1, bits))
    if k < 0.8:
        return (-R.getrandbits(R.randint(1, bits))) & mask(bits)
    return R.choice(int_edges(bits))


def gen_int():
    w = Writer("int.txt")
    w.comment("integer instructions: <op> <a> <b> [<c> [<d>]] <expected>, hex of the operand widths")
    types = [(16, False), (16, True), (32, False), (32, True), (64, False), (64, True)]

    def tname(bits, signed):
        return ("s" if signed else "u") + str(bits)

    for bits, signed in types:
        t = tname(bits, signed)
        ed = int_edges(bits)
        ps = [(a, b) for a in ed for b in ed] + [(rand_int(bits), rand_int(bits)) for _ in range(150)]
        m = mask(bits)
        for a, b in ps:
            x, y = sval(a, bits, signed), sval(b, bits, signed)
            w.add("add." + t, hx(a, bits), hx(b, bits), hx((a + b) & m, bits))
            w.add("sub." + t, hx(a, bits), hx(b, bits), hx((a - b) & m, bits))
            w.add("mul.lo." + t, hx(a, bits), hx(b, bits), hx((x * y) & m, bits))
            w.add("mul.hi." + t, hx(a, bits), hx(b, bits), hx(((x * y) >> bits) & m, bits))
            if bits < 64:
                w.add("mul.wide." + t, hx(a, bits), hx(b, bits), hx((x * y) & mask(2 * bits), 2 * bits))
            # div/rem: C semantics (truncate toward zero); by zero per documented choice
            if y == 0:
                q = m if (not signed or x >= 0) else 1
                r = a
            else:
                q = abs(x) // abs(y)
                if (x < 0) != (y < 0):
                    q = -q
                r = x - q * y
            w.add("div." + t, hx(a, bits), hx(b, bits), hx(q & m, bits))
            w.add("rem." + t, hx(a, bits), hx(b, bits), hx(r & m, bits))
            w.add("min." + t, hx(a, bits), hx(b, bits), hx((a if x <= y else b) & m, bits))
            w.add("max." + t, hx(a, bits), hx(b, bits), hx((a if x >= y else b) & m, bits))
            for op in ["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"]:
                ux, uy = a & m, b & m
                res = {"eq": ux == uy, "ne": ux != uy, "lt": x < y, "le": x <= y, "gt": x > y,
                       "ge": x >= y, "lo": ux < uy, "ls": ux <= uy, "hi": ux > uy, "hs": ux >= uy}[op]
                w.add("setp.%s.%s" % (op, t), hx(a, bits), hx(b, bits), "1" if res else "0")
            if signed:
                w.add("abs." + t, hx(a, bits), hx(abs(x) & m, bits))
                w.add("neg." + t, hx(a, bits), hx((-x) & m, bits))
                if bits == 32:
                    def sat(v):
                        return max(-(1 << 31), min((1 << 31) - 1, v)) & m
                    w.add("add.sat.s32", hx(a, 32), hx(b, 32), hx(sat(x + y), 32))
                    w.add("sub.sat.s32", hx(a, 32), hx(b, 32), hx(sat(x - y), 32))
                    w.add("max.relu.s32", hx(a, 32), hx(b, 32), hx(max(max(x, y), 0) & m, 32))
                    w.add("min.relu.s32", hx(a, 32), hx(b, 32), hx(max(min(x, y), 0) & m, 32))
        # three-operand
        ts = [(R.choice(ed), R.choice(ed), R.choice(ed)) for _ in range(150)]
        ts += [(rand_int(bits), rand_int(bits), rand_int(bits)) for _ in range(150)]
        for a, b, c in ts:
            x, y, z = sval(a, bits, signed), sval(b, bits, signed), sval(c, bits, signed)
            w.add("mad.lo." + t, hx(a, bits), hx(b, bits), hx(c, bits), hx((x * y + z) & m, bits))
            w.add("mad.hi." + t, hx(a, bits), hx(b, bits), hx(c, bits), hx((((x * y) >> bits) + z) & m, bits))
            if bits < 64:
                c2 = (c | (rand_int(bits) << bits)) & mask(2 * bits)
                z2 = sval(c2, 2 * bits, signed)
                w.add("mad.wide." + t, hx(a, bits), hx(b, bits), hx(c2, 2 * bits),
                      hx((x * y + z2) & mask(2 * bits), 2 * bits))
            if bits == 32 and signed:
                v = ((x * y) >> 32) + z
                v = max(-(1 << 31), min((1 << 31) - 1, v))
                w.add("mad.hi.sat.s32", hx(a, 32), hx(b, 32), hx(c, 32), hx(v & m, 32))
            sv = abs(x - y) + z
            w.add("sad." + t, hx(a, bits), hx(b, bits), hx(c, bits), hx(sv & m, bits))

    # bit ops on b16/b32/b64
    for bits in (16, 32, 64):
        m = mask(bits)
        for _ in range(200):
            a, b = rand_int(bits), rand_int(bits)
            w.add("and.b%d" % bits, hx(a, bits), hx(b, bits), hx(a & b, bits))
            w.add("or.b%d" % bits, hx(a, bits), hx(b, bits), hx(a | b, bits))
            w.add("xor.b%d" % bits, hx(a, bits), hx(b, bits), hx(a ^ b, bits))
            w.add("not.b%d" % bits, hx(a, bits), hx(~a & m, bits))
            w.add("cnot.b%d" % bits, hx(a, bits), hx(1 if a == 0 else 0, bits))
        for a in [0, 1, m] + [rand_int(bits) for _ in range(40)]:
            for sh in [0, 1, 5, bits - 1, bits, bits + 1, 200, 0xFFFFFFFF, R.getrandbits(32)]:
                s = min(sh, bits)
                w.add("shl.b%d" % bits, hx(a, bits), hx(sh, 32), hx((a << s) & m if s < bits else 0, bits))
                w.add("shr.u%d" % bits, hx(a, bits), hx(sh, 32), hx(a >> s if s < bits else 0, bits))
                w.add("shr.s%d" % bits, hx(a, bits), hx(sh, 32), hx((sval(a, bits, True) >> s) & m, bits))
    for bits in (32, 64):
        m = mask(bits)
        vals = [0, 1, m, 1 << (bits - 1), (1 << (bits - 1)) - 1] + [rand_int(bits) for _ in range(120)]
        for a in vals:
            w.add("popc.b%d" % bits, hx(a, bits), hx(bin(a).count("1"), 32))
            w.add("clz.b%d" % bits, hx(a, bits), hx(bits - a.bit_length(), 32))
            w.add("brev.b%d" % bits, hx(a, bits), hx(int(format(a, "0%db" % bits)[::-1], 2), bits))
            for signed in (False, True):
                t = ("s" if signed else "u") + str(bits)
                v = a
                if signed and a >> (bits - 1):
                    v = ~a & m
                pos = v.bit_length() - 1 if v else 0xFFFFFFFF
                w.add("bfind." + t, hx(a, bits), hx(pos, 32))
                w.add("bfind.shiftamt." + t, hx(a, bits), hx((bits - 1 - pos) if v else 0xFFFFFFFF, 32))
        # bfe per ISA pseudocode
        for _ in range(400):
            a = rand_int(bits)
            pos = R.choice([0, 1, 3, bits // 2, bits - 1, bits, bits + 3, 255, R.getrandbits(8), R.getrandbits(32)])
            ln = R.choice([0, 1, 4, bits // 2, bits - 1, bits, bits + 1, 255, R.getrandbits(8), R.getrandbits(32)])
            for signed in (False, True):
                t = ("s" if signed else "u") + str(bits)
                msb = bits - 1
                p, l = pos & 0xFF, ln & 0xFF
                if signed and l != 0:
                    sbit = (a >> min(p + l - 1, msb)) & 1
                else:
                    sbit = 0
                d = 0
                for i in range(bits):
                    if i < l and p + i <= msb:
                        bit = (a >> (p + i)) & 1
                    else:
                        bit = sbit
                    d |= bit << i
                w.add("bfe." + t, hx(a, bits), hx(pos, 32), hx(ln, 32), hx(d, bits))
            b = rand_int(bits)
            p, l = pos & 0xFF, ln & 0xFF
            f = b
            for i in range(l):
                if p + i > bits - 1:
                    break
                f = (f & ~(1 << (p + i))) | (((a >> i) & 1) << (p + i))
            w.add("bfi.b%d" % bits, hx(a, bits), hx(b, bits), hx(pos, 32), hx(ln, 32), hx(f & m, bits))
    # prmt
    prmt_tables = {
        "f4e": [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
        "b4e": [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
        "rc8": [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
        "ecl": [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
        "ecr": [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
        "rc16": [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],
    }  # [d.b0, d.b1, d.b2, d.b3] per c[1:0], from the ISA's prmt table
    for _ in range(300):
        a, b, c = R.getrandbits(32), R.getrandbits(32), R.getrandbits(32)
        src = (b << 32) | a
        byte = lambda i: (src >> (8 * i)) & 0xFF  # noqa: E731
        d = 0
        for k in range(4):
            sel = (c >> (4 * k)) & 0xF
            v = byte(sel & 7)
            if sel & 8:
                v = 0xFF if v & 0x80 else 0
            d |= v << (8 * k)
        w.add("prmt.b32", hx(a, 32), hx(b, 32), hx(c, 32), hx(d, 32))
        for mode, tab in prmt_tables.items():
            sel = tab[c & 3]
            d = sum(byte(sel[k]) << (8 * k) for k in range(4))
            w.add("prmt.b32." + mode, hx(a, 32), hx(b, 32), hx(c, 32), hx(d, 32))
    # shf
    for _ in range(300):
        a, b = R.getrandbits(32), R.getrandbits(32)
        c = R.choice([0, 1, 16, 31, 32, 33, 63, 64, R.getrandbits(32), R.getrandbits(6)])
        v = (b << 32) | a
        for mode in ("clamp", "wrap"):
            n = (c & 31) if mode == "wrap" else min(c, 32)
            w.add("shf.l.%s.b32" % mode, hx(a, 32), hx(b, 32), hx(c, 32), hx(((v << n) >> 32) & mask(32), 32))
            w.add("shf.r.%s.b32" % mode, hx(a, 32), hx(b, 32), hx(c, 32), hx((v >> n) & mask(32), 32))
    # lop3
    for _ in range(300):
        a, b, c, lut = R.getrandbits(32), R.getrandbits(32), R.getrandbits(32), R.getrandbits(8)
        d = 0
        for i in range(32):
            idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1)
            d |= ((lut >> idx) & 1) << i
        w.add("lop3.b32", hx(a, 32), hx(b, 32), hx(c, 32), hx(lut, 8), hx(d, 32))
    # dp4a / dp2a
    for _ in range(200):
        a, b, c = R.getrandbits(32), R.getrandbits(32), R.getrandbits(32)
        for asg in (False, True):
            for bsg in (False, True):
                acc = sval(c, 32, True)
                for k in range(4):
                    acc += sval((a >> 8 * k) & 0xFF, 8, asg) * sval((b >> 8 * k) & 0xFF, 8, bsg)
                tn = "%s.%s" % ("s32" if asg else "u32", "s32" if bsg else "u32")
                w.add("dp4a." + tn, hx(a, 32), hx(b, 32), hx(c, 32), hx(acc & mask(32), 32))
                for hi in (False, True):
                    acc = sval(c, 32, True)
                    for k in range(2):
                        acc += sval((a >> 16 * k) & 0xFFFF, 16, asg) * sval((b >> 8 * (k + (2 if hi else 0))) & 0xFF, 8, bsg)
                    w.add("dp2a.%s.%s" % ("hi" if hi else "lo", tn), hx(a, 32), hx(b, 32), hx(c, 32), hx(acc & mask(32), 32))
    # cvt int <-> int
    ints = [(8, False), (8, True), (16, False), (16, True), (32, False), (32, True), (64, False), (64, True)]
    for sb, ss in ints:
        for db, ds in ints:
            for _ in range(30):
                a = rand_int(sb)
                v = sval(a, sb, ss)
                st = ("s" if ss else "u") + str(sb)
                dt = ("s" if ds else "u") + str(db)
                w.add("cvt.%s.%s" % (dt, st), hx(a, sb), hx(v & mask(db), db))
                lo, hi = (-(1 << (db - 1)), (1 << (db - 1)) - 1) if ds else (0, mask(db))
                w.add("cvt.sat.%s.%s" % (dt, st), hx(a, sb), hx(max(lo, min(hi, v)) & mask(db), db))
    # mul24, bmsk, szext, add.cc
    for _ in range(200):
        a, b = R.getrandbits(32), R.getrandbits(32)
        for signed in (False, True):
            x, y = sval(a & 0xFFFFFF, 24, signed), sval(b & 0xFFFFFF, 24, signed)
            p = x * y
            t = "s32" if signed else "u32"
            w.add("mul24.lo." + t, hx(a, 32), hx(b, 32), hx(p & mask(32), 32))
            w.add("mul24.hi." + t, hx(a, 32), hx(b, 32), hx((p >> 16) & mask(32), 32))
        pa, lb = R.choice([0, 1, 5, 31, 32, 33, R.getrandbits(32)]), R.choice([0, 1, 5, 31, 32, 33, R.getrandbits(32)])
        for mode in ("clamp", "wrap"):
            p, l = ((pa & 31), (lb & 31)) if mode == "wrap" else (min(pa, 32), min(lb, 32))
            d = (((1 << l) - 1) << p) & mask(32) if p < 32 else 0
            w.add("bmsk.%s.b32" % mode, hx(pa, 32), hx(lb, 32), hx(d, 32))
            n = (lb & 31) if mode == "wrap" else min(lb, 32)
            for signed in (False, True):
                if n >= 32:
                    d = a
                elif n == 0:
                    d = 0
                else:
                    d = sval(a & mask(n), n, signed) & mask(32)
                w.add("szext.%s.%s" % (mode, "s32" if signed else "u32"), hx(a, 32), hx(lb, 32), hx(d, 32))
        for bits in (32, 64):
            x, y = rand_int(bits), rand_int(bits)
            for cin in (0, 1):
                s = x + y + cin
                w.add("addc.cc.u%d" % bits, hx(x, bits), hx(y, bits), str(cin), hx(s & mask(bits), bits), str(s >> bits))
                d = x - y - cin
                w.add("subc.cc.u%d" % bits, hx(x, bits), hx(y, bits), str(cin), hx(d & mask(bits), bits), "1" if d < 0 else "0")
    w.close()


# ----------------------------------------------------------------------------- f32 / f64 golden

MODES = ["rn", "rz", "rm", "rp"]


def np_check_rn32(op, vals, expect):
    """cross-check an .rn f32 result against numpy"""
    with np.errstate(all="ignore"):
        xs = [np.array([v], dtype=np.uint32).view(np.float32)[0] for v in vals]
        if op == "add":
            r = xs[0] + xs[1]
        elif op == "sub":
            r = xs[0] - xs[1]
        elif op == "mul":
            r = xs[0] * xs[1]
        elif op == "div":
            r = xs[0] / xs[1]
        elif op == "sqrt":
            r = np.sqrt(xs[0])
        else:
            return
    rb = int(np.array([r], dtype=np.float32).view(np.uint32)[0])
    if np.isnan(r):
        rb = 0x7FFFFFFF
    if rb != expect:
        raise SystemExit("numpy disagrees on %s %s: %08x vs %08x" % (op, [hex(v) for v in vals], rb, expect))


def np_check_rn64(op, vals, expect):
    with np.errstate(all="ignore"):
        xs = [np.array([v], dtype=np.uint64).view(np.float64)[0] for v in vals]
        r = {"add": lambda: xs[0] + xs[1], "sub": lambda: xs[0] - xs[1], "mul": lambda: xs[0] * xs[1],
             "div": lambda: xs[0] / xs[1], "sqrt": lambda: np.sqrt(xs[0])}.get(op)
        if r is None:
            return
        r = r()
    rb = int(np.array([r], dtype=np.float64).view(np.uint64)[0])
    if np.isnan(r):
        rb = 0x7FFFFFFFFFFFFFFF
    if rb != expect:
        raise SystemExit("numpy disagrees on f64 %s %s: %x vs %x" % (op, [hex(v) for v in vals], rb, expect))


def float_arith(f, op, vals, mode, ftz=False, sat=False):
    if ftz:
        vals = [flush(v, f) for v in vals]
    ds = [decode(v, f) for v in vals]
    if op in ("add", "sub", "mul", "div"):
        r = encode(ieee_binop(op, ds[0], ds[1], mode), f, mode)
    elif op == "fma":
        r = encode(ieee_fma(ds[0], ds[1], ds[2], mode), f, mode)
    elif op == "sqrt":
        r = sqrt_exact(vals[0], f, mode)
    elif op == "rcp":
        one = decode(ONE[f], f)
        r = encode(ieee_binop("div", one, ds[0], mode), f, mode)
    else:
        raise ValueError(op)
    return finish(r, f, ftz, sat)


def minmax(f, vals, is_min, ftz, nanmode):
    if ftz:
        vals = [flush(v, f) for v in vals]
    a, b = vals
    na, nb = is_nan_bits(a, f), is_nan_bits(b, f)
    if (na and nb) or (nanmode and (na or nb)):
        return FMT[f][3]
    if na:
        return b
    if nb:
        return a

    def key(x):
        return -(x & (sign_bit(f) - 1)) - 1 if x & sign_bit(f) else x
    if is_min:
        return a if key(a) <= key(b) else b
    return a if key(a) >= key(b) else b


def fcmp(op, x, y):
    if x[0] == "nan" or y[0] == "nan":
        return {"num": False, "nan": True}.get(op, op.endswith("u"))
    def val(v):
        return math.inf * (-1 if v[1] else 1) if v[0] == "inf" else v[1]
    a, b = val(x), val(y)
    base = op[:-1] if op.endswith("u") and op not in ("num",) else op
    return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b,
            "num": True, "nan": False}[base]


CMP_OPS = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]


def gen_float():
    w = Writer("float.txt")
    w.comment("f32/f64: <op> <operands> <expected> (canonical NaN 7fffffff / 7fffffffffffffff)")
    combos32 = [(m, False, False) for m in MODES] + [("rn", True, False), ("rz", True, False),
                                                    ("rn", False, True), ("rp", True, True), ("rm", True, False)]
    ps = pairs(f32_edges(), rand_f32, 500)
    for a, b in ps:
        for op in ("add", "sub", "mul", "div"):
            for mode, ftz, sat in combos32:
                if op == "div" and sat:
                    continue
                r = float_arith("f32", op, [a, b], mode, ftz, sat)
                if mode == "rn" and not ftz and not sat:
                    np_check_rn32(op, [a, b], r)
                name = "%s.%s%s%s.f32" % (op, mode, ".ftz" if ftz else "", ".sat" if sat else "")
                w.add(name, hx(a, 32), hx(b, 32), hx(r, 32))
        for is_min in (True, False):
            for ftz in (False, True):
                for nanm in (False, True):
                    name = "%s%s%s.f32" % ("min" if is_min else "max", ".ftz" if ftz else "", ".NaN" if nanm else "")
                    w.add(name, hx(a, 32), hx(b, 32), hx(minmax("f32", [a, b], is_min, ftz, nanm), 32))
        for op in CMP_OPS:
            for ftz in (False, True):
                x, y = (flush(a, "f32"), flush(b, "f32")) if ftz else (a, b)
                r = fcmp(op, decode(x, "f32"), decode(y, "f32"))
                w.add("setp.%s%s.f32" % (op, ".ftz" if ftz else ""), hx(a, 32), hx(b, 32), "1" if r else "0")
        w.add("copysign.f32", hx(a, 32), hx(b, 32), hx((b & 0x7FFFFFFF) | (a & 0x80000000), 32))
    for a, b, c in triples(f32_edges(), rand_f32, 1500):
        for mode, ftz, sat in combos32:
            r = float_arith("f32", "fma", [a, b, c], mode, ftz, sat)
            w.add("fma.%s%s%s.f32" % (mode, ".ftz" if ftz else "", ".sat" if sat else ""),
                  hx(a, 32), hx(b, 32), hx(c, 32), hx(r, 32))
    singles = f32_edges() + [rand_f32() for _ in range(800)] + [f32b(float(np.float32(R.uniform(0, 100)))) for _ in range(200)]
    for a in singles:
        for mode, ftz, _ in combos32[:6]:
            r = float_arith("f32", "sqrt", [a], mode, ftz)
            if mode == "rn" and not ftz:
                np_check_rn32("sqrt", [a], r)
            w.add("sqrt.%s%s.f32" % (mode, ".ftz" if ftz else ""), hx(a, 32), hx(r, 32))
            w.add("rcp.%s%s.f32" % (mode, ".ftz" if ftz else ""), hx(a, 32),
                  hx(float_arith("f32", "rcp", [a], mode, ftz), 32))
        for ftz in (False, True):
            x = flush(a, "f32") if ftz else a
            w.add("abs%s.f32" % (".ftz" if ftz else ""), hx(a, 32), hx(x & 0x7FFFFFFF, 32))
            w.add("neg%s.f32" % (".ftz" if ftz else ""), hx(a, 32), hx(x ^ 0x80000000, 32))
        d = decode(a, "f32")
        mag = a & 0x7FFFFFFF
        tests = {"finite": d[0] == "num", "infinite": d[0] == "inf", "number": d[0] != "nan",
                 "notanumber": d[0] == "nan", "normal": d[0] == "num" and mag >= 0x00800000,
                 "subnormal": is_subnormal(a, "f32")}
        for k, v in tests.items():
            w.add("testp.%s.f32" % k, hx(a, 32), "1" if v else "0")

    ps = pairs(f64_edges(), rand_f64, 400)
    for a, b in ps:
        for op in ("add", "sub", "mul", "div"):
            for mode in MODES:
                r = float_arith("f64", op, [a, b], mode)
                if mode == "rn":
                    np_check_rn64(op, [a, b], r)
                w.add("%s.%s.f64" % (op, mode), hx(a, 64), hx(b, 64), hx(r, 64))
        for is_min in (True, False):
            for nanm in (False, True):
                name = "%s%s.f64" % ("min" if is_min else "max", ".NaN" if nanm else "")
                w.add(name, hx(a, 64), hx(b, 64), hx(minmax("f64", [a, b], is_min, False, nanm), 64))
        for op in CMP_OPS:
            r = fcmp(op, decode(a, "f64"), decode(b, "f64"))
            w.add("setp.%s.f64" % op, hx(a, 64), hx(b, 64), "1" if r else "0")
    for a, b, c in triples(f64_edges(), rand_f64, 1000):
        for mode in MODES:
            w.add("fma.%s.f64" % mode, hx(a, 64), hx(b, 64), hx(c, 64),
                  hx(float_arith("f64", "fma", [a, b, c], mode), 64))
    for a in f64_edges() + [rand_f64() for _ in range(600)]:
        for mode in MODES:
            r = float_arith("f64", "sqrt", [a], mode)
            if mode == "rn":
                np_check_rn64("sqrt", [a], r)
            w.add("sqrt.%s.f64" % mode, hx(a, 64), hx(r, 64))
            w.add("rcp.%s.f64" % mode, hx(a, 64), hx(float_arith("f64", "rcp", [a], mode), 64))
    w.close()


# ----------------------------------------------------------------------------- approx golden

mpmath.mp.prec = 80


def gen_approx():
    w = Writer("approx.txt")
    w.comment("approx: <op> <input bits> <reference as f64 bits (mpmath, 80-bit)>; nan reference = 7ff8000000000000")
    ins = f32_edges() + [rand_f32() for _ in range(1500)]
    ins += [f32b(float(np.float32(R.uniform(-130, 130)))) for _ in range(500)]
    ins += [f32b(float(np.float32(R.uniform(-100 * math.pi, 100 * math.pi)))) for _ in range(500)]
    ins += [f32b(float(np.float32(R.uniform(0.5, 2)))) for _ in range(300)]

    def ref(fn, x):
        d = decode(x, "f32")
        if d[0] == "nan":
            return math.nan
        if d[0] == "inf":
            v = mpmath.inf if not d[1] else -mpmath.inf
        else:
            v = mpmath.mpf(d[1].numerator) / d[1].denominator
            if d[1] == 0 and d[2]:
                v = -mpmath.mpf(0)
        try:
            if fn == "ex2":
                r = mpmath.power(2, v) if v != -mpmath.inf else mpmath.mpf(0)
            elif fn == "lg2":
                if v < 0:
                    return math.nan
                r = -mpmath.inf if v == 0 else mpmath.log(v, 2)
            elif fn == "sin":
                if mpmath.isinf(v):
                    return math.nan
                r = mpmath.sin(v)
            elif fn == "cos":
                if mpmath.isinf(v):
                    return math.nan
                r = mpmath.cos(v)
            elif fn == "tanh":
                r = mpmath.tanh(v)
            elif fn == "rsqrt":
                if v < 0:
                    return math.nan
                if v == 0:
                    return -math.inf if d[2] else math.inf
                r = 1 / mpmath.sqrt(v)
            elif fn == "sqrt":
                if v < 0:
                    return math.nan
                r = mpmath.sqrt(v)
            elif fn == "rcp":
                if v == 0:
                    return -math.inf if d[2] else math.inf
                r = 1 / v
            else:
                raise ValueError(fn)
        except (ValueError, ZeroDivisionError):
            return math.nan
        return float(r)

    for x in ins:
        for fn in ("ex2", "lg2", "sin", "cos", "tanh", "rsqrt", "sqrt", "rcp"):
            r = ref(fn, x)
            rb = 0x7FF8000000000000 if math.isnan(r) else f64b(r)
            w.add("%s.approx.f32" % fn, hx(x, 32), hx(rb, 64))
    # half-precision ex2 / tanh
    for f in ("f16", "bf16"):
        for x in half_edges(f) + [rand_half(f) for _ in range(400)]:
            d = decode(x, f)
            if d[0] == "nan":
                e = t = 0x7FF8000000000000
            else:
                v = (mpmath.inf if not d[1] else -mpmath.inf) if d[0] == "inf" else mpmath.mpf(d[1].numerator) / d[1].denominator
                e = f64b(float(mpmath.power(2, v))) if v != -mpmath.inf else 0
                t = f64b(float(mpmath.tanh(v)))
            w.add("ex2.approx.%s" % f, hx(x, 16), hx(e, 64))
            w.add("tanh.approx.%s" % f, hx(x, 16), hx(t, 64))
    w.close()


# ----------------------------------------------------------------------------- half golden


def bf16_from_f32_np(xb):
    return int(np.array([xb], dtype=np.uint32).view(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)[0])


def gen_half():
    w = Writer("half.txt")
    w.comment("f16/bf16 (.rn): <op> <a> <b> [<c>] <expected>")
    for f in ("f16", "bf16"):
        ps = pairs(half_edges(f), lambda: rand_half(f), 500)
        for a, b in ps:
            for op in ("add", "sub", "mul"):
                for ftz, sat in ([(False, False), (True, False), (False, True), (True, True)] if f == "f16" else [(False, False)]):
                    r = float_arith(f, op, [a, b], "rn", ftz, sat)
                    w.add("%s.rn%s%s.%s" % (op, ".ftz" if ftz else "", ".sat" if sat else "", f), hx(a, 16), hx(b, 16), hx(r, 16))
                if f == "f16" and op in ("add", "mul") and not is_nan_bits(a, f) and not is_nan_bits(b, f):
                    with np.errstate(all="ignore"):
                        x = np.array([a], dtype=np.uint16).view(np.float16).astype(np.float64)[0]
                        y = np.array([b], dtype=np.uint16).view(np.float16).astype(np.float64)[0]
                        v = x + y if op == "add" else x * y  # exact in float64
                        nb = int(np.array([v]).astype(np.float16).view(np.uint16)[0])
                    if not np.isnan(v) and nb != float_arith(f, op, [a, b], "rn"):
                        raise SystemExit("numpy float16 disagrees on %s %04x %04x" % (op, a, b))
            for is_min in (True, False):
                for ftz in ((False, True) if f == "f16" else (False,)):
                    for nanm in (False, True):
                        name = "%s%s%s.%s" % ("min" if is_min else "max", ".ftz" if ftz else "", ".NaN" if nanm else "", f)
                        w.add(name, hx(a, 16), hx(b, 16), hx(minmax(f, [a, b], is_min, ftz, nanm), 16))
            for op in CMP_OPS:
                r = fcmp(op, decode(a, f), decode(b, f))
                w.add("setp.%s.%s" % (op, f), hx(a, 16), hx(b, 16), "1" if r else "0")
        for a, b, c in triples(half_edges(f), lambda: rand_half(f), 1200):
            combos = [(False, False, False), (True, False, False), (False, True, False), (False, False, True), (True, False, True)] if f == "f16" else [(False, False, False), (False, False, True)]
            for ftz, sat, relu in combos:
                r = float_arith(f, "fma", [a, b, c], "rn", ftz, sat)
                if relu:
                    r = finish(r, f, relu=True)
                w.add("fma.rn%s%s%s.%s" % (".ftz" if ftz else "", ".sat" if sat else "", ".relu" if relu else "", f),
                      hx(a, 16), hx(b, 16), hx(c, 16), hx(r, 16))
        for a in half_edges(f) + [rand_half(f) for _ in range(200)]:
            for ftz in ((False, True) if f == "f16" else (False,)):
                x = flush(a, f) if ftz else a
                w.add("neg%s.%s" % (".ftz" if ftz else "", f), hx(a, 16), hx(x ^ 0x8000, 16))
                w.add("abs%s.%s" % (".ftz" if ftz else "", f), hx(a, 16), hx(x & 0x7FFF, 16))
    # packed x2: lanes are independent
    for f in ("f16", "bf16"):
        for _ in range(300):
            a, b, c = (rand_half(f) | rand_half(f) << 16 for _ in range(3))
            def lanes(fn):
                return fn(a & 0xFFFF, b & 0xFFFF, c & 0xFFFF) | (fn(a >> 16, b >> 16, c >> 16) << 16)
            w.add("add.rn.%sx2" % f, hx(a, 32), hx(b, 32), hx(lanes(lambda x, y, z: float_arith(f, "add", [x, y], "rn")), 32))
            w.add("mul.rn.%sx2" % f, hx(a, 32), hx(b, 32), hx(lanes(lambda x, y, z: float_arith(f, "mul", [x, y], "rn")), 32))
            w.add("fma.rn.%sx2" % f, hx(a, 32), hx(b, 32), hx(c, 32), hx(lanes(lambda x, y, z: float_arith(f, "fma", [x, y, z], "rn")), 32))
    w.close()


# ----------------------------------------------------------------------------- cvt golden


def cvt_f2f(dst, src, a, mode, ftz=False, sat=False, relu=False, satfinite=False):
    if ftz and src == "f32":
        a = flush(a, "f32")
    d = decode(a, src)
    r = encode(d, dst, mode, satfinite=satfinite)
    if is_nan_bits(r, dst):
        return 0 if sat else FMT[dst][3]
    if ftz and dst == "f32":
        r = flush(r, dst)
    if relu and r & sign_bit(dst):
        r = 0
    if sat:
        one = round_frac(Fraction(1), dst, "rn")
        r = 0 if r & sign_bit(dst) else min(r, one)
    return r


def round_int(q, mode):
    fl = q.numerator // q.denominator
    frac = q - fl
    if frac == 0:
        return fl
    if mode == "rzi":
        return fl if q > 0 else fl + 1
    if mode == "rmi":
        return fl
    if mode == "rpi":
        return fl + 1
    if frac > Fraction(1, 2) or (frac == Fraction(1, 2) and fl % 2 == 1):
        return fl + 1
    return fl


def gen_cvt():
    w = Writer("cvt.txt")
    w.comment("cvt: <op> <a> <expected>; tf32 in the upper 19 bits of a b32")
    srcs = {
        "f16": half_edges("f16") + [rand_half("f16") for _ in range(150)],
        "bf16": half_edges("bf16") + [rand_half("bf16") for _ in range(150)],
        "f32": f32_edges() + [rand_f32() for _ in range(300)] + [f32b(float(np.float32(R.uniform(-3e5, 3e5)))) for _ in range(100)],
        "f64": f64_edges() + [rand_f64() for _ in range(300)],
    }
    # extra f32 sources near the f16 / bf16 / e4m3 / e5m2 ranges and rounding boundaries
    srcs["f32"] += [f32b(float(np.float32(R.uniform(-70000, 70000)))) for _ in range(100)]
    srcs["f32"] += [f32b(float(np.float32(R.uniform(-500, 500)))) for _ in range(100)]
    srcs["f32"] += [f32b(float(np.float32(R.uniform(-1, 1) * 2.0 ** R.randint(-30, 0)))) for _ in range(200)]
    fl = ["f16", "bf16", "f32", "f64"]
    for src in fl:
        for dst in fl:
            for a in srcs[src]:
                narrowing = width(dst) < width(src) or (src, dst) in (("f16", "bf16"), ("bf16", "f16"))
                if narrowing:
                    for mode in MODES:
                        r = cvt_f2f(dst, src, a, mode)
                        w.add("cvt.%s.%s.%s" % (mode, dst, src), hx(a, width(src)), hx(r, width(dst)))
                    if dst in ("f16", "bf16") and src == "f32":
                        for mode in ("rn", "rz"):
                            for relu, sf in ((True, False), (False, True), (True, True)):
                                r = cvt_f2f(dst, src, a, mode, relu=relu, satfinite=sf)
                                w.add("cvt.%s%s%s.%s.%s" % (mode, ".relu" if relu else "", ".satfinite" if sf else "", dst, src),
                                      hx(a, 32), hx(r, 16))
                    if dst == "f32":
                        r = cvt_f2f(dst, src, a, "rn", ftz=True)
                        w.add("cvt.rn.ftz.f32.%s" % src, hx(a, width(src)), hx(r, 32))
                else:
                    r = cvt_f2f(dst, src, a, "rn")
                    w.add("cvt.%s.%s" % (dst, src), hx(a, width(src)), hx(r, width(dst)))
                    if src == "f32" or dst == "f32":
                        r = cvt_f2f(dst, src, a, "rn", ftz=True)
                        w.add("cvt.ftz.%s.%s" % (dst, src), hx(a, width(src)), hx(r, width(dst)))
                    if dst == "f32" and src == "f32":
                        r = cvt_f2f(dst, src, a, "rn", sat=True)
                        w.add("cvt.sat.f32.f32", hx(a, 32), hx(r, 32))
            # round to integral in the same format
            if src in ("f16", "bf16", "f32", "f64"):
                for a in srcs[src]:
                    for mode in ("rni", "rzi", "rmi", "rpi"):
                        d = decode(a, src)
                        if d[0] == "nan":
                            r = FMT[src][3]
                        elif d[0] == "inf" or d[1] == 0:
                            r = a
                        else:
                            r = round_frac(Fraction(round_int(d[1], mode)), src, "rn", zero_neg=d[1] < 0)
                        if dst == src:
                            w.add("cvt.%s.%s.%s" % (mode, src, src), hx(a, width(src)), hx(r, width(src)))
    # cross-check .rn narrowing against numpy / ml_dtypes
    for a in srcs["f32"]:
        if is_nan_bits(a, "f32"):
            continue
        x = np.array([a], dtype=np.uint32).view(np.float32)
        with np.errstate(all="ignore"):
            h = int(x.astype(np.float16).view(np.uint16)[0])
        if h != cvt_f2f("f16", "f32", a, "rn"):
            raise SystemExit("numpy f32->f16 disagrees at %08x" % a)
        if bf16_from_f32_np(a) != cvt_f2f("bf16", "f32", a, "rn"):
            raise SystemExit("ml_dtypes f32->bf16 disagrees at %08x" % a)
        e4 = int(x.astype(ml_dtypes.float8_e4m3fn).view(np.uint8)[0])
        e5 = int(x.astype(ml_dtypes.float8_e5m2).view(np.uint8)[0])
        mag = abs(float(x[0]))
        if mag <= 448 and e4 != cvt_f2f("e4m3", "f32", a, "rn", satfinite=True):
            raise SystemExit("ml_dtypes f32->e4m3 disagrees at %08x" % a)
        if mag <= 57344 and e5 != cvt_f2f("e5m2", "f32", a, "rn", satfinite=True):
            raise SystemExit("ml_dtypes f32->e5m2 disagrees at %08x" % a)
    # float -> int
    ints = [(8, False), (8, True), (16, False), (16, True), (32, False), (32, True), (64, False), (64, True)]
    for src in fl:
        vals = srcs[src] + ([f32b(float(np.float32(R.uniform(-300, 300)))) for _ in range(60)] if src == "f32" else [])
        for a in vals:
            d = decode(a, src)
            for bits, signed in ints:
                lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, mask(bits))
                t = ("s" if signed else "u") + str(bits)
                for mode in ("rni", "rzi", "rmi", "rpi"):
                    for ftz in ((False, True) if src == "f32" else (False,)):
                        dd = decode(flush(a, "f32"), "f32") if ftz else d
                        if dd[0] == "nan":
                            v = 0
                        elif dd[0] == "inf":
                            v = lo if dd[1] else hi
                        else:
                            v = max(lo, min(hi, round_int(dd[1], mode)))
                        w.add("cvt.%s%s.%s.%s" % (mode, ".ftz" if ftz else "", t, src), hx(a, width(src)), hx(v & mask(bits), bits))
    # int -> float
    for bits, signed in ints:
        t = ("s" if signed else "u") + str(bits)
        for _ in range(80):
            a = rand_int(bits)
            v = sval(a, bits, signed)
            for dst in fl:
                for mode in MODES:
                    r = round_frac(Fraction(v), dst, mode)
                    w.add("cvt.%s.%s.%s" % (mode, dst, t), hx(a, bits), hx(r, width(dst)))
    # packed and fp8 / tf32
    f32s = srcs["f32"]
    for i in range(len(f32s)):
        a, b = f32s[i], f32s[(i * 7 + 3) % len(f32s)]
        for mode in ("rn", "rz"):
            for relu in (False, True):
                for sf in (False, True):
                    hi = cvt_f2f("f16", "f32", a, mode, relu=relu, satfinite=sf)
                    lo = cvt_f2f("f16", "f32", b, mode, relu=relu, satfinite=sf)
                    sfx = (".relu" if relu else "") + (".satfinite" if sf else "")
                    w.add("cvt.%s%s.f16x2.f32" % (mode, sfx), hx(a, 32), hx(b, 32), hx(hi << 16 | lo, 32))
                    hi = cvt_f2f("bf16", "f32", a, mode, relu=relu, satfinite=sf)
                    lo = cvt_f2f("bf16", "f32", b, mode, relu=relu, satfinite=sf)
                    w.add("cvt.%s%s.bf16x2.f32" % (mode, sfx), hx(a, 32), hx(b, 32), hx(hi << 16 | lo, 32))
        for f8 in ("e4m3", "e5m2"):
            for relu in (False, True):
                hi = cvt_f2f(f8, "f32", a, "rn", relu=relu, satfinite=True)
                lo = cvt_f2f(f8, "f32", b, "rn", relu=relu, satfinite=True)
                w.add("cvt.rn.satfinite%s.%sx2.f32" % (".relu" if relu else "", f8), hx(a, 32), hx(b, 32), hx(hi << 8 | lo, 16))
        for mode, sf in (("rna", False), ("rna", True), ("rn", False), ("rz", False), ("rn", True)):
            r = cvt_f2f("tf32", "f32", a, mode, satfinite=sf) << 13
            w.add("cvt.%s%s.tf32.f32" % (mode, ".satfinite" if sf else ""), hx(a, 32), hx(r, 32))
    for v in range(256):
        for f8 in ("e4m3", "e5m2"):
            a = v | (((v * 37 + 11) & 0xFF) << 8)
            hi = cvt_f2f("f16", f8, a >> 8, "rn")
            lo = cvt_f2f("f16", f8, a & 0xFF, "rn")
            w.add("cvt.rn.f16x2.%sx2" % f8, hx(a, 16), hx(hi << 16 | lo, 32))
    w.close()



# ----------------------------------------------------------------------------- warp / atom golden


def gen_warp():
    w = Writer("warp.txt")
    w.comment("shfl: <mode> <lane> <b> <c> <src lane> <p>; vote/match/redux: lanes' values, mask, result")
    for mode in ("up", "down", "bfly", "idx"):
        for _ in range(600):
            lane = R.randrange(32)
            b = R.choice([0, 1, 2, 4, 8, 16, 31, 32, 33, R.getrandbits(32), R.getrandbits(5)])
            c = R.choice([0, 0x1F, 0x101F, 0x181F, 0x1C1F, 0x1E1F, 0x0818, R.getrandbits(13), R.getrandbits(32)])
            bval, cval, msk = b & 31, c & 31, (c >> 8) & 31
            max_lane = (lane & msk) | (cval & ~msk & 31)
            min_lane = lane & msk
            if mode == "up":
                j = lane - bval
                p = j >= max_lane
            elif mode == "down":
                j = lane + bval
                p = j <= max_lane
            elif mode == "bfly":
                j = lane ^ bval
                p = j <= max_lane
            else:
                j = min_lane | (bval & ~msk & 31)
                p = j <= max_lane
            if not p:
                j = lane
            w.add("shfl." + mode, hx(lane, 8), hx(b, 32), hx(c, 32), hx(j, 8), "1" if p else "0")
    for _ in range(300):
        member = R.choice([0xFFFFFFFF, 0, 1, 0x0000FFFF, R.getrandbits(32)])
        preds = R.choice([0xFFFFFFFF, 0, member, R.getrandbits(32)])
        pm = preds & member
        w.add("vote.all", hx(member, 32), hx(preds, 32), "1" if pm == member else "0")
        w.add("vote.any", hx(member, 32), hx(preds, 32), "1" if pm != 0 else "0")
        w.add("vote.uni", hx(member, 32), hx(preds, 32), "1" if pm in (0, member) else "0")
        w.add("vote.ballot", hx(member, 32), hx(preds, 32), hx(pm, 32))
    for _ in range(100):
        member = R.choice([0xFFFFFFFF, R.getrandbits(32), 0x0F0F0F0F])
        vals = [R.choice([1, 2, 3, 0xFFFFFFFFFFFFFFFF]) for _ in range(32)]
        if R.random() < 0.3:
            vals = [7] * 32
        res = []
        for lane in range(32):
            res.append(sum(1 << i for i in range(32) if member >> i & 1 and vals[i] == vals[lane]))
        w.add("match.any.b64", *[hx(v, 64) for v in vals], hx(member, 32), *[hx(r, 32) for r in res])
        mv = [vals[i] for i in range(32) if member >> i & 1]
        same = len(mv) > 0 and all(v == mv[0] for v in mv)
        w.add("match.all.b64", *[hx(v, 64) for v in vals], hx(member, 32), hx(member if same else 0, 32), "1" if same else "0")
        vals32 = [rand_int(32) for _ in range(32)]
        sel = [vals32[i] for i in range(32) if member >> i & 1]
        for op in ("add", "min", "max", "and", "or", "xor"):
            for signed in (False, True):
                if op in ("and", "or", "xor") and signed:
                    continue
                t = "b32" if op in ("and", "or", "xor") else ("s32" if signed else "u32")
                sv = [sval(v, 32, signed) for v in sel]
                if op == "add":
                    r = sum(sel) & mask(32)
                elif op == "min":
                    r = min(sv) & mask(32) if sv else (0x7FFFFFFF if signed else 0xFFFFFFFF)
                elif op == "max":
                    r = max(sv) & mask(32) if sv else (0x80000000 if signed else 0)
                else:
                    r = 0xFFFFFFFF if op == "and" else 0
                    for v in sel:
                        r = r & v if op == "and" else (r | v if op == "or" else r ^ v)
                w.add("redux.%s.%s" % (op, t), *[hx(v, 32) for v in vals32], hx(member, 32), hx(r, 32))
    w.close()


def gen_atom():
    w = Writer("atom.txt")
    w.comment("atom/red combine: <op> <old> <b> [<c>] <new>")
    for bits, signed in ((32, False), (32, True), (64, False), (64, True)):
        t = ("s" if signed else "u") + str(bits)
        m = mask(bits)
        for _ in range(300):
            old, b, c = rand_int(bits), rand_int(bits), rand_int(bits)
            if R.random() < 0.2:
                b = old
            x, y = sval(old, bits, signed), sval(b, bits, signed)
            w.add("atom.add." + t, hx(old, bits), hx(b, bits), hx((old + b) & m, bits))
            w.add("atom.min." + t, hx(old, bits), hx(b, bits), hx((old if x <= y else b) & m, bits))
            w.add("atom.max." + t, hx(old, bits), hx(b, bits), hx((old if x >= y else b) & m, bits))
            w.add("atom.and.b%d" % bits, hx(old, bits), hx(b, bits), hx(old & b, bits))
            w.add("atom.or.b%d" % bits, hx(old, bits), hx(b, bits), hx(old | b, bits))
            w.add("atom.xor.b%d" % bits, hx(old, bits), hx(b, bits), hx(old ^ b, bits))
            w.add("atom.exch.b%d" % bits, hx(old, bits), hx(b, bits), hx(b, bits))
            w.add("atom.cas.b%d" % bits, hx(old, bits), hx(b, bits), hx(c, bits), hx(c if old == b else old, bits))
    for _ in range(400):
        old = R.choice([0, 1, 5, 0xFFFFFFFF, R.getrandbits(32), R.getrandbits(4)])
        b = R.choice([0, 1, 5, 0xFFFFFFFF, R.getrandbits(32), R.getrandbits(4)])
        w.add("atom.inc.u32", hx(old, 32), hx(b, 32), hx(0 if old >= b else old + 1, 32))
        w.add("atom.dec.u32", hx(old, 32), hx(b, 32), hx(b if (old == 0 or old > b) else old - 1, 32))
    for a, b in pairs(f32_edges()[:20], rand_f32, 300):
        w.add("atom.add.f32", hx(a, 32), hx(b, 32), "0", hx(float_arith("f32", "add", [a, b], "rn"), 32))
        w.add("atom.add.f32", hx(a, 32), hx(b, 32), "1", hx(float_arith("f32", "add", [a, b], "rn", ftz=True), 32))
    for a, b in pairs(f64_edges()[:15], rand_f64, 200):
        w.add("atom.add.f64", hx(a, 64), hx(b, 64), hx(float_arith("f64", "add", [a, b], "rn"), 64))
    for f in ("f16", "bf16"):
        for a, b in pairs(half_edges(f)[:15], lambda: rand_half(f), 200):
            w.add("atom.add.noftz." + f, hx(a, 16), hx(b, 16), hx(float_arith(f, "add", [a, b], "rn"), 16))
        for _ in range(200):
            a, b = rand_half(f) | rand_half(f) << 16, rand_half(f) | rand_half(f) << 16
            r = float_arith(f, "add", [a & 0xFFFF, b & 0xFFFF], "rn") | float_arith(f, "add", [a >> 16, b >> 16], "rn") << 16
            w.add("atom.add.noftz.%sx2" % f, hx(a, 32), hx(b, 32), hx(r, 32))
    w.close()


# ----------------------------------------------------------------------------- mma / ldmatrix golden

# Fragment layouts, transcribed from the ISA's "Matrix Fragments for mma.m16n8k16 / m16n8k8"
# figures: (groupID, threadID_in_group) = (lane >> 2, lane % 4).
def frag_a(kind, lane, i):
    g, t = lane >> 2, lane % 4
    if kind.startswith("m16n8k16"):
        row = g if (0 <= i < 2 or 4 <= i < 6) else g + 8
        col = t * 2 + (i & 1) + (8 if i >= 4 else 0)
    elif kind == "m16n8k8.f32.tf32":
        row = g if i in (0, 2) else g + 8
        col = t if i in (0, 1) else t + 4
    else:
        row = g if i < 2 else g + 8
        col = t * 2 + (i & 1)
    return row, col


def frag_b(kind, lane, i):
    g, t = lane >> 2, lane % 4
    if kind.startswith("m16n8k16"):
        row = t * 2 + (i & 1) + (8 if i >= 2 else 0)
    elif kind == "m16n8k8.f32.tf32":
        row = t if i == 0 else t + 4
    else:
        row = t * 2 + i
    return row, g


def frag_c(lane, i):
    g, t = lane >> 2, lane % 4
    return (g if i < 2 else g + 8), t * 2 + (i & 1)


MMA_KINDS = ["m16n8k16.f32.f16", "m16n8k16.f32.bf16", "m16n8k16.f16.f16", "m16n8k8.f32.tf32",
             "m16n8k8.f32.f16", "m16n8k8.f32.bf16", "m16n8k8.f16.f16"]


def gen_mma():
    w = Writer("mma.txt")
    w.comment("mma.<shape>.<dtype>.<abtype>: 32x4 A regs, 32x2 B regs, 32x4 C regs, 32x4 D regs (lane-major)")
    for kind in MMA_KINDS:
        K = 16 if kind.startswith("m16n8k16") else 8
        ab = kind.split(".")[2]
        dt = kind.split(".")[1]
        per = 1 if ab == "tf32" else 2
        for case in range(12):
            def rnd_ab():
                if ab == "tf32":
                    x = np.float32(R.choice([R.randint(-8, 8) / 4, R.uniform(-2, 2)]))
                    b = int(np.array([x]).view(np.uint32)[0])
                    return b | (R.getrandbits(13) if case % 3 == 0 else 0)  # low bits are ignored
                v = R.choice([R.randint(-8, 8) / 4, R.uniform(-2, 2) * 2.0 ** R.randint(-6, 6)])
                if ab == "f16":
                    return int(np.float16(v).view(np.uint16))
                return int(np.array([v], dtype=np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)[0])
            A = [[rnd_ab() for _ in range(K)] for _ in range(16)]
            B = [[rnd_ab() for _ in range(8)] for _ in range(K)]
            if dt == "f32":
                C = [[f32b(float(np.float32(R.uniform(-4, 4)))) for _ in range(8)] for _ in range(16)]
            else:
                C = [[int(np.float16(R.uniform(-4, 4)).view(np.uint16)) for _ in range(8)] for _ in range(16)]
            if case == 11:
                A[3][1] = 0x7F800000 if ab == "tf32" else (0x7C00 if ab == "f16" else 0x7F80)
                B[1][5] = 0

            def val(bits, f):
                if f == "tf32":
                    return b2f32(bits & 0xFFFFE000)
                d = decode(bits, f)
                if d[0] == "nan":
                    return math.nan
                if d[0] == "inf":
                    return -math.inf if d[1] else math.inf
                return float(d[1]) if d[1] != 0 or not d[2] else -0.0
            Av = [[val(x, ab) for x in r] for r in A]
            Bv = [[val(x, ab) for x in r] for r in B]
            Cv = [[val(x, dt) for x in r] for r in C]
            D = [[0] * 8 for _ in range(16)]
            for i in range(16):
                for j in range(8):
                    acc = Cv[i][j]
                    for k in range(K):
                        acc += Av[i][k] * Bv[k][j]
                    if math.isnan(acc):
                        D[i][j] = FMT[dt][3]
                    elif math.isinf(acc):
                        D[i][j] = (sign_bit(dt) if acc < 0 else 0) | inf_bits(dt)
                    else:
                        D[i][j] = round_frac(Fraction(acc), dt, "rn", zero_neg=math.copysign(1, acc) < 0)
            if case != 11:
                ref = np.array(Cv) + np.array(Av) @ np.array(Bv)
                got = np.array([[val(x, dt) for x in r] for r in D])
                if not np.allclose(ref, got, rtol=2e-3 if dt == "f16" else 1e-6, atol=1e-3 if dt == "f16" else 1e-6):
                    raise SystemExit("numpy matmul disagrees for " + kind)
            aregs = [[0] * 4 for _ in range(32)]
            bregs = [[0] * 2 for _ in range(32)]
            cregs = [[0] * 4 for _ in range(32)]
            dregs = [[0] * 4 for _ in range(32)]
            for lane in range(32):
                for i in range(16 * K // 32):
                    r, c = frag_a(kind, lane, i)
                    aregs[lane][i // per] |= A[r][c] << (16 * (i % per))
                for i in range(K * 8 // 32):
                    r, c = frag_b(kind, lane, i)
                    bregs[lane][i // per] |= B[r][c] << (16 * (i % per))
                for i in range(4):
                    r, c = frag_c(lane, i)
                    if dt == "f32":
                        cregs[lane][i] = C[r][c]
                        dregs[lane][i] = D[r][c]
                    else:
                        cregs[lane][i // 2] |= C[r][c] << (16 * (i % 2))
                        dregs[lane][i // 2] |= D[r][c] << (16 * (i % 2))
            toks = [hx(x, 32) for lane in aregs for x in lane] + [hx(x, 32) for lane in bregs for x in lane]
            toks += [hx(x, 32) for lane in cregs for x in lane] + [hx(x, 32) for lane in dregs for x in lane]
            w.add("mma." + kind, *toks)
    # ldmatrix: 512 bytes of shared memory at address 0, per-lane row addresses (16-byte aligned)
    for num in (1, 2, 4):
        for trans in (False, True):
            for _ in range(10):
                mem = [R.getrandbits(16) for _ in range(256)]
                addrs = [16 * R.randrange(32) for _ in range(32)]
                d = [[0] * 4 for _ in range(32)]
                for m in range(num):
                    M = [[mem[addrs[8 * m + r] // 2 + c] for c in range(8)] for r in range(8)]
                    if trans:
                        M = [list(x) for x in zip(*M)]
                    for lane in range(32):
                        r, c0 = lane // 4, 2 * (lane % 4)
                        d[lane][m] = M[r][c0] | (M[r][c0 + 1] << 16)
                op = "ldmatrix.x%d%s" % (num, ".trans" if trans else "")
                w.add(op, *[hx(a, 32) for a in addrs], *[hx(x, 16) for x in mem], *[hx(x, 32) for lane in d for x in lane])
    w.close()



# ----------------------------------------------------------------------------- wgmma golden
# Layouts in CuTe notation (CUTLASS make_gmma_desc, ISA "Shared Memory Matrix Layout"), here in
# bytes: a mode is a list of (size, stride); a coordinate is split colexicographically.


def cute_offset(coord, modes):
    off = 0
    for size, stride in modes:
        off += (coord % size) * stride
        coord //= size
    return off


def wgmma_layout(mn_major, swz, e, lbo, sbo):
    """-> (mn_modes, k_modes) in bytes; swz = pattern width in bytes (0: none)"""
    t = 16 // e  # elements per 16 bytes
    big = 1 << 20
    if not mn_major:
        if swz == 0:   # ((8,m),(T,2)) : ((1T,SBO),(1,LBO))
            return [(8, 16), (big, sbo)], [(t, e), (big, lbo)]
        return [(8, swz), (big, sbo)], [(t, e), (big, 16)]  # ((8,m),(T,2)) : ((W,SBO),(1,T))
    if swz == 0:       # ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))
        return [(t, e), (big, sbo)], [(8, 16), (big, lbo)]
    return [(t, e), (swz // 16, 16), (big, lbo)], [(8, swz), (big, sbo)]  # ((T,W/16,m),(8,k)):((1,T,LBO),(W,SBO))


def swz_addr(addr, swz):
    if swz == 0:
        return addr
    b = {32: 1, 64: 2, 128: 3}[swz]
    return addr ^ (((addr >> 7) & ((1 << b) - 1)) << 4)


def make_desc(start, lbo, sbo, swz):
    code = {0: 0, 128: 1, 64: 2, 32: 3}[swz]
    return ((start >> 4) & 0x3FFF) | (((lbo >> 4) & 0x3FFF) << 16) | (((sbo >> 4) & 0x3FFF) << 32) | (code << 62)


def gen_wgmma():
    w = Writer("wgmma.txt")
    w.comment("wgmma.<ab>: n scale_d neg_a neg_b trans_a trans_b a_desc b_desc nwords <smem words> <d in> <d out>")
    # (ab type, n, A(start, lbo, sbo, swz, trans), B(...), smem bytes); the first two are the
    # descriptors of the Triton sm_90 matmuls in the corpus (k-slices 0 and 1)
    cfgs = []
    for ks in (0, 1):
        cfgs.append(("f16", 64, (0x0000 + 32 * ks, 0, 512, 64, False), (0x1000 + 2048 * ks, 0, 1024, 128, True), 0x2000))
        cfgs.append(("tf32", 64, (0x0000 + 32 * ks, 0, 1024, 128, False), (0x2000 + 32 * ks, 0, 1024, 128, False), 0x4000))
    for ab in ("f16", "bf16", "tf32"):
        for swa, swb in ((0, 0), (32, 64), (128, 32), (64, 128), (0, 128), (32, 0)):
            n = R.choice([8, 16, 24, 32, 64])
            e = 4 if ab == "tf32" else 2
            ta = False if ab == "tf32" else R.random() < 0.5
            tb = False if ab == "tf32" else R.random() < 0.5
            def pick(swz, trans, base, rows):
                if swz == 0:
                    # core matrices 128 bytes; LBO/SBO multiples of 128
                    return (base, 128 * R.choice([1, 2, 8]), 128 * R.choice([2, 4, 16]), 0, trans)
                atom = 8 * swz
                return (base + R.choice([0, 32]) if not trans else base, swz * R.choice([8, 16]), atom * R.choice([1, 2]), swz, trans)
            cfgs.append((ab, n, pick(swa, ta, 0x0000, 64), pick(swb, tb, 0x2000, n), 0x4000))
    cfgs.append(("f16", 256, (0, 0, 512, 64, False), (0x1000, 0, 1024, 128, True), 0x4000))
    for idx, (ab, n, A, B, size) in enumerate(cfgs):
        e = 4 if ab == "tf32" else 2
        K = 8 if ab == "tf32" else 16
        nwords = size // 4
        words = []
        for _ in range(nwords):
            if ab == "tf32":
                v = R.choice([R.randint(-8, 8) / 4, R.uniform(-2, 2)])
                b = f32b(float(np.float32(v))) | (R.getrandbits(13) if R.random() < 0.2 else 0)
                words.append(b)
            else:
                def h():
                    v = R.choice([R.randint(-8, 8) / 4, R.randint(-8, 8) / 4, R.uniform(-2, 2)])
                    if ab == "f16":
                        return int(np.float16(v).view(np.uint16))
                    return int(np.array([v], dtype=np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)[0])
                words.append(h() | (h() << 16))

        def read(addr):
            wv = words[(addr // 4) % nwords]
            if e == 4:
                return wv
            return (wv >> (16 * ((addr % 4) // 2))) & 0xFFFF

        def value(bits):
            if ab == "tf32":
                return b2f32(bits & 0xFFFFE000)
            d = decode(bits, ab)
            return float(d[1])

        def operand(desc, rows):
            start, lbo, sbo, swz, trans = desc
            mn_modes, k_modes = wgmma_layout(trans, swz, e, lbo, sbo)
            return [[value(read(swz_addr(start + cute_offset(r, mn_modes) + cute_offset(k, k_modes), swz))) for k in range(K)]
                    for r in range(rows)]
        Am = operand(A, 64)
        Bm = operand(B, n)  # Bm[n][k]
        scale_d = idx % 3 != 1
        neg_a = idx % 4 == 3
        neg_b = idx % 5 == 4
        dvals = [[f32b(float(np.float32(R.uniform(-4, 4)))) for _ in range(n // 2)] for _ in range(128)]
        dout = []
        for tid in range(128):
            wq, lane = tid // 32, tid % 32
            g, q = lane // 4, lane % 4
            row = []
            for i in range(n // 2):
                r = 16 * wq + g + 8 * ((i % 4) // 2)
                c = 8 * (i // 4) + 2 * q + (i % 2)
                acc = b2f32(dvals[tid][i]) if scale_d else 0.0
                for k in range(K):
                    x = -Am[r][k] if neg_a else Am[r][k]
                    y = -Bm[c][k] if neg_b else Bm[c][k]
                    acc += x * y
                row.append(round_frac(Fraction(acc), "f32", "rn", zero_neg=math.copysign(1, acc) < 0))
            dout.append(row)
        ref = np.array(Am) * (-1 if neg_a else 1) @ (np.array(Bm) * (-1 if neg_b else 1)).T
        chk = [[0.0] * n for _ in range(64)]
        for tid in range(128):
            for i in range(n // 2):
                r = 16 * (tid // 32) + (tid % 32) // 4 + 8 * ((i % 4) // 2)
                c = 8 * (i // 4) + 2 * ((tid % 32) % 4) + (i % 2)
                chk[r][c] = b2f32(dout[tid][i]) - (b2f32(dvals[tid][i]) if scale_d else 0.0)
        if not np.allclose(np.array(chk), ref, atol=1e-4, rtol=1e-5):
            raise SystemExit("numpy disagrees with the wgmma reference, case %d" % idx)
        ad = make_desc(A[0], A[1], A[2], A[3])
        bd = make_desc(B[0], B[1], B[2], B[3])
        toks = [hx(n, 16), str(int(scale_d)), str(int(neg_a)), str(int(neg_b)), str(int(A[4])), str(int(B[4])),
                hx(ad, 64), hx(bd, 64), hx(nwords, 16)] + [hx(x, 32) for x in words]
        toks += [hx(x, 32) for row in dvals for x in row] + [hx(x, 32) for row in dout for x in row]
        w.add("wgmma." + ab, *toks)
    w.close()


if __name__ == "__main__":
    which = sys.argv[1:] or ["int", "float", "approx", "half", "cvt", "warp", "atom", "mma", "wgmma"]
    for k in which:
        globals()["gen_" + k]()
