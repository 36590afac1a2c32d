"""Small, dependency-free readers of PTX text used by the corpus generators.

- `entries(text)`: the `.entry` kernels of a module with their parameter lists.
- `opcode_histogram(text)`: instruction opcode (with all its dotted modifiers) -> count.
- `target(text)`: the `.target` line's first target (e.g. "sm_90a").

They only need to be right for compiler output (nvcc, Triton), not for arbitrary PTX; the real
parser lives in crates/ptx-syntax.
"""
import re
from collections import Counter

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_LABEL = re.compile(r"^[A-Za-z_$%][\w$]*\s*:\s*")
_GUARD = re.compile(r"^@!?%?[\w$]+\s+")


def strip_comments(text):
    # String literals in compiler PTX only occur in `.file` directives, which contain no "//".
    return _COMMENT.sub("", text)


def target(text):
    m = re.search(r"^\s*\.target\s+([\w]+)", text, re.M)
    return m.group(1) if m else None


def version(text):
    m = re.search(r"^\s*\.version\s+([\d.]+)", text, re.M)
    return m.group(1) if m else None


_PARAM_BYTES = {".u8": 1, ".s8": 1, ".b8": 1, ".u16": 2, ".s16": 2, ".b16": 2, ".f16": 2, ".bf16": 2,
                ".u32": 4, ".s32": 4, ".b32": 4, ".f32": 4, ".u64": 8, ".s64": 8, ".b64": 8, ".f64": 8}


def param_size(name, ty):
    """Bytes of a kernel parameter: its type's size times the array length (`name[16]`)."""
    m = re.search(r"\[(\d+)\]$", name)
    return _PARAM_BYTES[ty] * (int(m.group(1)) if m else 1)


def entries(text):
    """[(name, [(param_name, ptx_type, attributes)])] for every .entry in the module."""
    out = []
    body = strip_comments(text)
    for m in re.finditer(r"\.entry\s+([\w$]+)\s*\((.*?)\)", body, re.S):
        params = []
        for p in m.group(2).split(","):
            p = p.strip()
            if not p:
                continue
            toks = p.split()
            assert toks[0] == ".param", p
            # `.param .u64 name`, `.param .u64 .ptr .global .align 1 name`,
            # `.param .align 8 .b8 name[16]` (a by-value struct: its type is the element type)
            ty = next(t for t in toks[1:-1] if t in _PARAM_BYTES)
            rest = toks[1:-1]
            rest.remove(ty)
            params.append((toks[-1], ty, " ".join(rest)))
        out.append((m.group(1), params))
    return out


def _statements(text):
    """Instruction statements (without guards or labels) inside function bodies."""
    lines = strip_comments(text).split("\n")
    depth = 0
    in_section = False
    buf = []
    for line in lines:
        s = line.strip()
        if in_section:
            depth_sec = s.count("{") - s.count("}")
            in_section_depth[0] += depth_sec
            if in_section_depth[0] <= 0 and "}" in s:
                in_section = False
            continue
        if s.startswith(".section"):
            in_section_depth = [s.count("{") - s.count("}")]
            in_section = not ("{" in s and in_section_depth[0] == 0)
            continue
        opens, closes = s.count("{"), s.count("}")
        inside = depth > 0
        depth += opens - closes
        if not inside and depth == 0:
            continue
        # Inside a function body (or an inline-asm scope in it).
        t = s.replace("{", " ").replace("}", " ").strip() if s in ("{", "}") else s
        if not t or t.startswith("."):
            continue
        buf.append(t)
    joined = " ".join(buf)
    for stmt in joined.split(";"):
        st = stmt.strip()
        while True:
            st2 = _LABEL.sub("", st).lstrip("{} \t")
            if st2 == st:
                break
            st = st2
        st = _GUARD.sub("", st)
        if not st or st.startswith("."):
            continue
        yield st


def opcode_histogram(text):
    c = Counter()
    for st in _statements(text):
        op = st.split()[0]
        # A vector operand brace may follow the opcode without a space in hand-written asm.
        op = op.split("{")[0]
        c[op] += 1
    return dict(sorted(c.items()))


def family(opcode):
    """Instruction family: the opcode's leading components that name the instruction."""
    parts = opcode.split(".")
    two = {"cp.async", "cp.reduce", "mma.sync", "ldmatrix.sync", "stmatrix.sync", "wgmma.mma_async",
           "wgmma.fence", "wgmma.commit_group", "wgmma.wait_group", "fence.proxy", "mbarrier.try_wait",
           "mbarrier.test_wait", "barrier.cluster", "cp.async.bulk"}
    if opcode.startswith("cp.async.bulk"):
        return "cp.async.bulk"
    if opcode.startswith("cp.async."):
        sub = parts[2]
        if sub in ("commit_group", "wait_group", "wait_all", "mbarrier"):
            return "cp.async." + sub
        return "cp.async"
    if opcode.startswith("ld.global.nc") or re.match(r"ld\.global\.(ca|cg|cs)\.nc", opcode):
        return "ld.global.nc"
    if parts[0] in ("mbarrier", "wgmma", "fence"):
        return ".".join(parts[:2])
    if ".".join(parts[:2]) in two:
        return ".".join(parts[:2])
    return parts[0]
