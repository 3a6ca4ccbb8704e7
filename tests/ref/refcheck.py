#!/usr/bin/env python3
"""refcheck.py: a small, independent reference interpreter of LANGUAGE.md.

It enumerates every reachable state of a model twice -- once with every
instruction a scheduling point (`--reduce=none`) and once in the reduced
(composed) mode of Stoller section 3.5 -- and prints, for each mode, the number
of states stored, the number of transitions (every executed successor,
including those leading to already-seen states) and the verdict.

It exists to cross-check mcheck: it shares no code with it and is written for
clarity, not speed (a few hundred thousand states a minute). It covers
LANGUAGE.md: every instruction (pthread condition variables included: `cond`,
`cwait`, `csignal`, `cbroadcast`; atomic blocks and `assume`), all declaration
forms with comma lists, constant expressions, `init T`, end labels, the
`unshared` check (always), `call L` / `ret` with `stack N`, rendezvous
channels (`chan c[0]`: a send and a recv as one step of both threads; in the
reduced mode the sender's invisible tail runs, then the receiver's), and
`--spurious-wakeups`. It does NOT implement the lock discipline detectors
unless asked (`--ld`, a plain LD' check whose metadata then becomes part of the
state, which changes the counts).

State (a tuple, canonical): globals, locks (owner, depth, wait set), channels,
spawn counters per proc, threads (status, body, pc, self, registers, saved
depth, return stack: the pcs `ret` goes back to, as a tuple, so unused entries
do not exist), detector metadata (unshared owners; LD' with --ld), cond wait
sets. A thread in a cond's wait set is WAITING (NOTIFIED once signalled) at
its `cwait`, whose lock it re-acquires at depth 1. An ended thread
has status ENDED, pc 0, registers and saved depth 0 (and self 0 for a spawned
instance); it keeps its body (and a static one its
self). An error state counts as a stored state and has
no successors.

Usage: refcheck.py [-D N=V]... [--mode=both|none|reduced] [--ld] [--spurious-wakeups]
                   [--max-states=N] [--quiet] model.bc
Exit: 0 ok, 1 an error was found, 2 bad input.
"""
import argparse
import re
import sys
from collections import deque

INT_MIN = -(1 << 31)
MAX_LOCK_DEPTH = 65535  # a recursive lock's depth is a u16


def wrap(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


class AsmError(Exception):
    pass


class NotTaken(Exception):
    """An assume of 0 inside an atomic block: the block's step is not taken."""


class Fault(Exception):
    """A runtime error in the model (stops that path)."""

    def __init__(self, kind, msg):
        super().__init__(msg)
        self.kind = kind  # 'assertion', 'runtime_error', 'lock_discipline'
        self.msg = msg


# ---------------------------------------------------------------- assembler

VISIBLE_OPS = {"choose", "acquire", "wait", "notify", "send", "recv", "spawn", "join",
               "assume", "atomic", "cwait", "csignal", "cbroadcast"}
ATOMIC_LOCK = "(atomic)"  # the hidden lock an atomic block holds (for LD')
ARITH = {"add", "sub", "mul", "div", "mod", "and", "or", "xor", "shl", "shr",
         "eq", "ne", "lt", "le", "gt", "ge"}
DECL_KW = {"const", "shared", "volatile", "unshared", "lock", "chan", "thread", "proc", "cond"}
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_comment(line):
    out, in_str, i = [], False, 0
    while i < len(line):
        c = line[i]
        if in_str:
            if c == "\\" and i + 1 < len(line):
                out.append(line[i:i + 2])
                i += 2
                continue
            if c == '"':
                in_str = False
        else:
            if c in ";#":
                break
            if c == '"':
                in_str = True
        out.append(c)
        i += 1
    return "".join(out).strip()


def split_operands(s):
    """Split on commas outside strings and brackets."""
    parts, cur, depth, in_str, i = [], [], 0, False, 0
    while i < len(s):
        c = s[i]
        if in_str:
            cur.append(c)
            if c == "\\" and i + 1 < len(s):
                cur.append(s[i + 1])
                i += 2
                continue
            if c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            cur.append(c)
        elif c in "[{":
            depth += 1
            cur.append(c)
        elif c in "]}":
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    if cur or parts:
        parts.append("".join(cur).strip())
    return parts


def parse_int(tok):
    m = re.fullmatch(r"(-?)0[xX]([0-9a-fA-F]+)", tok)
    if m:
        v = int(m.group(2), 16)
        if v > 0xFFFFFFFF:
            raise AsmError("hex literal out of range: " + tok)
        v = wrap(v)
        return wrap(-v) if m.group(1) else v
    if re.fullmatch(r"-?[0-9]+", tok):
        v = int(tok)
        if not INT_MIN <= v <= 0x7FFFFFFF:
            raise AsmError("integer out of range: " + tok)
        return v
    return None


class Program:
    pass


# ------------------------------------------------------- constant expressions

CX_TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|[0-9]+)|(" + IDENT + r")|(.))")


def cx_tokens(text):
    """Integers (a '-' glued to digits is part of the literal unless it
    follows an operand: `N-1` is N, -, 1), names, single-character operators."""
    toks, i = [], 0
    text = text.strip()
    while i < len(text):
        m = CX_TOKEN.match(text, i)
        if not m:
            break
        i = m.end()
        num, name, op = m.groups()
        if num is not None:
            toks.append(("int", num))
        elif name is not None:
            toks.append(("name", name))
        elif op is not None and not op.isspace():
            prev_operand = toks and (toks[-1][0] in ("int", "name") or toks[-1] == ("op", ")"))
            nm = re.match(r"0[xX][0-9a-fA-F]+|[0-9]+", text[i:])
            if op == "-" and nm and not prev_operand:
                toks.append(("int", "-" + nm.group(0)))
                i += nm.end()
            else:
                toks.append(("op", op))
    return toks


def c_div(a, b, op):
    if b == 0:
        raise AsmError(("division" if op == "/" else "modulo") + " by zero in a constant expression")
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return wrap(q) if op == "/" else wrap(a - q * b)


def cx_eval(text, lookup):
    """Value of a constant expression (+ - * / % ( ), unary minus; 32-bit
    wrapping, C division); lookup(name) gives a const's value."""
    toks = cx_tokens(text)
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def unary():
        t = peek()
        if t is None:
            raise AsmError(f"bad constant expression: {text}")
        pos[0] += 1
        if t == ("op", "-"):
            return wrap(-unary())
        if t == ("op", "("):
            v = expr()
            if peek() != ("op", ")"):
                raise AsmError(f"missing ')' in {text}")
            pos[0] += 1
            return v
        if t[0] == "int":
            v = parse_int(t[1])
            if v is None:
                raise AsmError(f"bad integer {t[1]}")
            return v
        if t[0] == "name":
            return lookup(t[1])
        raise AsmError(f"bad constant expression: {text}")

    def term():
        v = unary()
        while peek() in (("op", "*"), ("op", "/"), ("op", "%")):
            op = peek()[1]
            pos[0] += 1
            r = unary()
            v = wrap(v * r) if op == "*" else c_div(v, r, op)
        return v

    def expr():
        v = term()
        while peek() in (("op", "+"), ("op", "-")):
            op = peek()[1]
            pos[0] += 1
            r = term()
            v = wrap(v + r) if op == "+" else wrap(v - r)
        return v

    v = expr()
    if pos[0] != len(toks):
        raise AsmError(f"bad constant expression: {text}")
    return v


def split_top(s):
    """Split a declaration's items on commas outside (), [] and {}."""
    parts, cur, depth = [], [], 0
    for c in s:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur).strip())
    return parts


def declare(first, rest, lineno, consts, consts_order, vars_, locks, chans, bodies, conds):
    """One item of a declaration line; returns the body dict for thread/proc."""
    if first == "const":
        m = re.fullmatch(r"(" + IDENT + r")\s*=\s*(.+)", rest)
        if not m:
            raise AsmError(f"{lineno}: bad const")
        consts[m.group(1)] = m.group(2)
        consts_order.append(m.group(1))
    elif first in ("shared", "volatile", "unshared"):
        m = re.fullmatch(r"(" + IDENT + r")\s*(?:\[\s*([^\]]+?)\s*\])?\s*(?:=\s*(\{[^}]*\}|.+?))?\s*(?:\binit\s+(" + IDENT + r"))?", rest)
        if not m:
            raise AsmError(f"{lineno}: bad variable declaration")
        vars_[m.group(1)] = dict(cls=first, size=m.group(2), init=m.group(3),
                                 init_body=m.group(4), line=lineno, is_array=m.group(2) is not None)
    elif first == "lock":
        m = re.fullmatch(r"(" + IDENT + r")\s*(?:\[\s*([^\]]+?)\s*\])?", rest)
        if not m:
            raise AsmError(f"{lineno}: bad lock declaration")
        locks[m.group(1)] = dict(size=m.group(2), is_array=m.group(2) is not None)
    elif first == "cond":
        m = re.fullmatch(r"(" + IDENT + r")\s*(?:\[\s*([^\]]+?)\s*\])?", rest)
        if not m:
            raise AsmError(f"{lineno}: bad cond declaration")
        conds[m.group(1)] = dict(size=m.group(2), is_array=m.group(2) is not None)
    elif first == "chan":
        m = re.fullmatch(r"(" + IDENT + r")\s*(?:\[\s*([^\]]+?)\s*\])?", rest)
        if not m:
            raise AsmError(f"{lineno}: bad chan declaration")
        chans[m.group(1)] = dict(cap=m.group(2))
    elif first == "thread":
        m = re.fullmatch(r"(" + IDENT + r")\s*(?:\[\s*([^\]]+?)\s*\])?", rest)
        if not m:
            raise AsmError(f"{lineno}: bad thread declaration")
        cur = dict(name=m.group(1), proc=False, count=m.group(2), is_array=m.group(2) is not None, lines=[])
        bodies.append(cur)
        return cur
    elif first == "proc":
        m = re.fullmatch(r"(" + IDENT + r")\s+max\s+(.+)", rest)
        if not m:
            raise AsmError(f"{lineno}: bad proc declaration")
        cur = dict(name=m.group(1), proc=True, count=m.group(2), is_array=False, lines=[])
        bodies.append(cur)
        return cur
    return None


def assemble(text, defines):
    """Two passes: collect declarations, then decode bodies."""
    consts, consts_order = {}, []
    vars_, locks, chans, bodies, conds = {}, {}, {}, [], {}
    cur = None
    lines = text.split("\n")
    pending = []  # (lineno, raw) per body
    for lineno, raw in enumerate(lines, 1):
        line = strip_comment(raw)
        if not line:
            continue
        first = line.split()[0]
        if first == "prop" and not line.startswith("prop:"):
            # a proposition for --ltl (docs/usage.md "Properties and LTL"):
            # it names states, it does not change them; it ends a body
            cur = None
            continue
        if first in DECL_KW and not line.startswith(first + ":"):
            cur = None
            rest = line[len(first):].strip()
            items = split_top(rest) if first not in ("thread", "proc") else [rest]
            for item in items:
                cur = declare(first, item, lineno, consts, consts_order, vars_, locks, chans, bodies, conds)
            continue
        if cur is None:
            raise AsmError(f"{lineno}: instruction outside a thread body")
        cur["lines"].append((lineno, line))

    # constants: names are visible in the whole file; -D replaces a value
    for name in defines:
        if name not in consts:
            raise AsmError(f"-D for undeclared const '{name}'")
    cval = {}
    active = set()

    def const_value(name):
        if name not in consts:
            raise AsmError(f"not a constant: {name}")
        if name in cval:
            return cval[name]
        if name in defines:
            cval[name] = defines[name]
            return cval[name]
        if name in active:
            raise AsmError(f"const '{name}' is defined in terms of itself")
        active.add(name)
        cval[name] = cx_eval(consts[name], const_value)
        active.discard(name)
        return cval[name]

    for name in consts_order:
        const_value(name)

    def cint(tok):
        return cx_eval(tok, const_value)

    P = Program()
    P.consts = cval
    # globals
    P.vars = {}
    off = 0
    for name, d in vars_.items():
        size = cint(d["size"]) if d["is_array"] else 1
        if size <= 0:
            raise AsmError(f"array size not positive: {name}")
        init = [0] * size
        if d["init"] is not None:
            s = d["init"]
            if s.startswith("{"):
                vals = [cint(x.strip()) for x in s[1:-1].split(",") if x.strip()]
                if len(vals) > size:
                    raise AsmError(f"too many initializers: {name}")
                init[:len(vals)] = vals
            else:
                init = [cint(s)] * size
        P.vars[name] = dict(cls=d["cls"], size=size, off=off, init=init, init_body=d["init_body"],
                            is_array=d["is_array"])
        off += size
    P.nglobals = off
    P.init_globals = tuple(v for d in P.vars.values() for v in d["init"])
    P.elem_name = []
    for name, d in P.vars.items():
        for e in range(d["size"]):
            P.elem_name.append(f"{name}[{e}]" if d["is_array"] else name)
    def elements(decls, kind):
        """name -> (first element, size, is_array) for lock or cond decls; the count."""
        out, off = {}, 0
        for name, d in decls.items():
            size = cint(d["size"]) if d["is_array"] else 1
            if size <= 0:
                raise AsmError(f"{kind} array size not positive: {name}")
            out[name] = dict(off=off, size=size, is_array=d["is_array"])
            off += size
        return out, off
    P.locks, P.nlocks = elements(locks, "lock")
    P.conds, P.nconds = elements(conds, "cond")  # condition variables: a wait set each
    # channels
    P.chans = {}
    for i, (name, d) in enumerate(chans.items()):
        cap = cint(d["cap"]) if d["cap"] is not None else 1
        if not 0 <= cap <= 255:  # 0: a rendezvous channel (no slots)
            raise AsmError(f"channel capacity out of range (0 .. 255): {name}")
        P.chans[name] = dict(idx=i, cap=cap)
    P.nchans = len(P.chans)
    # bodies
    P.bodies = []
    P.body_index = {}
    for b in bodies:
        P.body_index[b["name"]] = len(P.bodies)
        P.bodies.append(b)
    for b in P.bodies:
        b["count"] = cint(b["count"]) if b["count"] is not None else 1
        decode_body(P, b, cint)
    if any(ins["op"] == "atomic" for b in P.bodies for ins in b["code"]):
        P.locks[ATOMIC_LOCK] = dict(off=P.nlocks, size=1, is_array=False)
        P.nlocks += 1
    for name, d in P.vars.items():
        if d["init_body"] is not None:
            if d["init_body"] not in P.body_index:
                raise AsmError(f"init: no thread '{d['init_body']}'")
            d["init_body"] = P.body_index[d["init_body"]]
    # threads: static first
    P.threads = []  # (body index, self) for static; spawn slots appended
    for bi, b in enumerate(P.bodies):
        if not b["proc"]:
            for k in range(b["count"]):
                P.threads.append((bi, k))
    P.nstatic = len(P.threads)
    P.procs = [bi for bi, b in enumerate(P.bodies) if b["proc"]]
    P.nspawn = sum(P.bodies[bi]["count"] for bi in P.procs)
    P.nthreads = P.nstatic + P.nspawn
    return P


def decode_body(P, b, cint):
    labels = {}
    insns = []
    pend_labels = []
    regnames = {f"r{i}": i for i in range(16)}
    nreg = 16
    stack_depth = None
    first_stmt = True
    for lineno, line in b["lines"]:
        while True:
            m = re.match(r"(" + IDENT + r")\s*:(?!:)\s*(.*)$", line)
            if not m:
                break
            labels.setdefault(m.group(1), None)
            if labels[m.group(1)] is not None:
                raise AsmError(f"{lineno}: duplicate label {m.group(1)}")
            pend_labels.append(m.group(1))
            line = m.group(2).strip()
        if not line:
            first_stmt = False
            continue
        mm = re.match(r"(\S+)\s*(.*)$", line)
        op, rest = mm.group(1), mm.group(2)
        was_first, first_stmt = first_stmt, False
        if op == "stack":  # `stack N`: only as the body's first line, no label
            if not was_first or pend_labels:
                raise AsmError(f"{lineno}: 'stack' not the first line of the body")
            stack_depth = cint(rest.strip())
            if not 1 <= stack_depth <= 255:
                raise AsmError(f"{lineno}: stack depth {stack_depth} out of range")
            continue
        if op == "reg":
            for n in split_operands(rest):
                if not re.fullmatch(IDENT, n) or n in regnames or n in ("self", "tid"):
                    raise AsmError(f"{lineno}: bad register name {n}")
                regnames[n] = nreg
                nreg += 1
            continue
        for l in pend_labels:
            labels[l] = len(insns)
        insns.append(dict(op=op, args=split_operands(rest) if rest else [], line=lineno,
                          labels=pend_labels, text=line))
        pend_labels = []
    for l in pend_labels:
        labels[l] = len(insns)
    insns.append(dict(op="end", args=[], line=0, labels=pend_labels, text="end (implicit)"))
    b["nreg"] = nreg
    has_call = any(i["op"] == "call" for i in insns)
    b["stack"] = (stack_depth or 8) if has_call else 0

    def val(tok):
        if tok in regnames:
            return ("reg", regnames[tok])
        if tok == "self":
            return ("self",)
        if tok == "tid":
            return ("tid",)
        return ("imm", cint(tok))

    def reg(tok):
        if tok not in regnames:
            raise AsmError(f"not a register: {tok}")
        return regnames[tok]

    def mem(tok):
        m = re.fullmatch(r"(" + IDENT + r")\s*(?:\[\s*(.+?)\s*\])?", tok)
        if not m or m.group(1) not in P.vars:
            raise AsmError(f"not a variable: {tok}")
        d = P.vars[m.group(1)]
        idx = val(m.group(2)) if m.group(2) is not None else ("imm", 0)
        if d["is_array"] != (m.group(2) is not None):
            raise AsmError(f"array/scalar mismatch: {tok}")
        return (m.group(1), idx)

    def lock(tok):
        m = re.fullmatch(r"(" + IDENT + r")\s*(?:\[\s*(.+?)\s*\])?", tok)
        if not m or m.group(1) not in P.locks:
            raise AsmError(f"not a lock: {tok}")
        d = P.locks[m.group(1)]
        if d["is_array"] != (m.group(2) is not None):
            raise AsmError(f"array/scalar mismatch: {tok}")
        idx = val(m.group(2)) if m.group(2) is not None else ("imm", 0)
        return (m.group(1), idx)

    def cond(tok):
        m = re.fullmatch(r"(" + IDENT + r")\s*(?:\[\s*(.+?)\s*\])?", tok)
        if not m or m.group(1) not in P.conds:
            raise AsmError(f"not a cond: {tok}")
        d = P.conds[m.group(1)]
        if d["is_array"] != (m.group(2) is not None):
            raise AsmError(f"array/scalar mismatch: {tok}")
        idx = val(m.group(2)) if m.group(2) is not None else ("imm", 0)
        return (m.group(1), idx)

    def label(tok):
        if tok not in labels or labels[tok] is None:
            raise AsmError(f"undefined label {tok}")
        return labels[tok]

    def chan(tok):
        if tok not in P.chans:
            raise AsmError(f"not a channel: {tok}")
        return tok

    code = []
    for pc, ins in enumerate(insns):
        op, a = ins["op"], ins["args"]
        n = len(a)

        def need(k):
            if n != k:
                raise AsmError(f"line {ins['line']}: {op} takes {k} operands")
        d = dict(op=op, line=ins["line"], text=ins["text"],
                 end_label=any(l.startswith("end") for l in ins["labels"]))
        if op in ("nop", "end", "atomic", "end_atomic"):
            need(0)
        elif op == "assume":
            need(1)
            d.update(a=val(a[0]))
        elif op in ("mov", "not", "neg"):
            need(2)
            d.update(rd=reg(a[0]), a=val(a[1]))
        elif op in ARITH or op == "choose":
            need(3)
            d.update(rd=reg(a[0]), a=val(a[1]), b=val(a[2]))
        elif op == "load":
            need(2)
            d.update(rd=reg(a[0]), mem=mem(a[1]))
        elif op == "store":
            need(2)
            d.update(mem=mem(a[0]), a=val(a[1]))
        elif op in ("jmp", "call"):
            need(1)
            d.update(target=label(a[0]))
        elif op == "ret":
            need(0)
        elif op in ("jz", "jnz"):
            need(2)
            d.update(a=val(a[0]), target=label(a[1]))
        elif op == "assert":
            need(2)
            s = a[1]
            if not (len(s) >= 2 and s[0] == '"' and s[-1] == '"'):
                raise AsmError(f"line {ins['line']}: assert needs a string")
            d.update(a=val(a[0]), msg=s[1:-1].replace('\\"', '"').replace("\\\\", "\\"))
        elif op in ("acquire", "release", "wait", "notify", "notifyall"):
            need(1)
            d.update(lock=lock(a[0]))
        elif op == "cwait":
            need(2)
            d.update(cond=cond(a[0]), lock=lock(a[1]))
        elif op in ("csignal", "cbroadcast"):
            need(1)
            d.update(cond=cond(a[0]))
        elif op == "send":
            need(2)
            d.update(chan=chan(a[0]), a=val(a[1]))
        elif op == "recv":
            need(2)
            d.update(rd=reg(a[0]), chan=chan(a[1]))
        elif op == "spawn":
            need(3)
            if a[1] not in P.body_index or not P.bodies[P.body_index[a[1]]]["proc"]:
                raise AsmError(f"line {ins['line']}: not a proc: {a[1]}")
            d.update(rd=reg(a[0]), proc=P.body_index[a[1]], a=val(a[2]))
        elif op == "join":
            need(1)
            d.update(a=val(a[0]))
        else:
            raise AsmError(f"line {ins['line']}: unknown mnemonic '{op}'")
        vis = op in VISIBLE_OPS
        if op in ("load", "store") and P.vars[d["mem"][0]]["cls"] == "volatile":
            vis = True
        d["visible"] = vis or pc == 0  # InitVis
        code.append(d)
    # atomic blocks: atomic .. end_atomic, the instructions after the
    # `atomic` run in its step (in_block, never a scheduling point)
    start = None
    for pc, d in enumerate(code):
        d["in_block"] = start is not None
        if d["op"] == "atomic":
            if start is not None:
                raise AsmError(f"line {d['line']}: atomic blocks do not nest")
            start = pc
        elif d["op"] == "end_atomic":
            if start is None:
                raise AsmError(f"line {d['line']}: end_atomic without atomic")
            code[start]["guarded"] = any(x["op"] == "assume" for x in code[start:pc])
            start = None
        if d["in_block"]:
            d["visible"] = False
            if d["op"] in ("call", "ret", "wait", "cwait"):
                raise AsmError(f"line {d['line']}: {d['op']} inside an atomic block")
            if d["op"] in ("send", "recv") and P.chans[d["chan"]]["cap"] == 0:
                # the partner's step would run inside this thread's block
                raise AsmError(f"line {d['line']}: a rendezvous on '{d['chan']}' "
                               "cannot be inside an atomic block")
            if d["op"] in ("jmp", "jz", "jnz") and not (
                    code[pc]["target"] > max(i for i in range(pc) if code[i]["op"] == "atomic")):
                raise AsmError(f"line {d['line']}: a jump out of an atomic block")
    if start is not None:
        raise AsmError(f"line {code[start]['line']}: atomic without end_atomic")
    b["code"] = code
    b["ret_to"] = return_sites(code)


def return_sites(code):
    """For each pc of a `ret`: the sorted pcs it may return to. A ret belongs
    to the subroutine at L if a path from L reaches it on which every call
    inside is stepped over (it returns) and no other ret comes first; it may
    return after every `call L`. A ret of no subroutine is an assembly error
    (it could only run with an empty stack)."""
    owners = {}
    for entry in sorted({i["target"] for i in code if i["op"] == "call"}):
        seen, todo = {entry}, [entry]
        while todo:
            pc = todo.pop()
            i = code[pc]
            if i["op"] == "ret":
                owners.setdefault(pc, set()).add(entry)
                continue
            if i["op"] == "end":
                nxt = []
            elif i["op"] == "jmp":
                nxt = [i["target"]]
            elif i["op"] in ("jz", "jnz"):
                nxt = [i["target"], pc + 1]
            else:
                nxt = [pc + 1]
            for q in nxt:
                if q < len(code) and q not in seen:
                    seen.add(q)
                    todo.append(q)
    ret_to = {}
    for pc, i in enumerate(code):
        if i["op"] != "ret":
            continue
        if pc not in owners:
            raise AsmError(f"line {i['line']}: 'ret' that no 'call' reaches")
        ret_to[pc] = sorted(k + 1 for k, c in enumerate(code)
                            if c["op"] == "call" and c["target"] in owners[pc])
    return ret_to


# ------------------------------------------------------------ interpreter

UNUSED, RUNNING, WAITING, NOTIFIED, ENDED = 0, 1, 2, 3, 4
STATUS = {UNUSED: "unused", RUNNING: "running", WAITING: "waiting", NOTIFIED: "notified", ENDED: "ended"}


class Machine:
    """Mutable working copy of a state."""

    def __init__(self, P, s):
        self.P = P
        g, lk, ch, sp, th, ld, cv = s
        self.g = list(g)
        self.lk = [list(x) for x in lk]  # [owner, depth, waitset(frozenset)]
        self.ch = [list(x) for x in ch]
        self.sp = list(sp)
        # status, body, pc, self, regs, saved depth, return stack (pcs, bottom first)
        self.th = [list(t[:4]) + [list(t[4]), t[5], list(t[6])] for t in th]
        self.ld = list(ld) if ld is not None else None
        self.cv = list(cv)  # per cond element: its wait set (frozenset)
        self.partner = None  # the receiver of a rendezvous step (not state)

    def freeze(self):
        return (tuple(self.g), tuple((o, d, w) for o, d, w in self.lk),
                tuple(tuple(c) for c in self.ch), tuple(self.sp),
                tuple((t[0], t[1], t[2], t[3], tuple(t[4]), t[5], tuple(t[6])) for t in self.th),
                tuple(self.ld) if self.ld is not None else None, tuple(self.cv))


def initial_state(P, ld):
    g = P.init_globals
    lk = tuple((-1, 0, frozenset()) for _ in range(P.nlocks))
    ch = tuple(() for _ in range(P.nchans))
    sp = tuple(0 for _ in P.procs)
    th = []
    for t in range(P.nthreads):
        if t < P.nstatic:
            bi, k = P.threads[t]
            th.append((RUNNING, bi, 0, k, tuple([0] * P.bodies[bi]["nreg"]), 0, ()))
        else:
            th.append((UNUSED, -1, 0, 0, (), 0, ()))
    # per element: ("virgin",), ("init",), ("checked", lockset, written) for
    # shared elements (only with --ld), ("unsh", owner) for every element of
    # an unshared variable once a thread touched it (always checked)
    ldm = tuple([("virgin",)] * P.nglobals)
    cv = tuple(frozenset() for _ in range(P.nconds))
    return (g, lk, ch, sp, tuple(th), ldm, cv)


def value(m, t, opnd):
    k = opnd[0]
    if k == "imm":
        return opnd[1]
    if k == "reg":
        return m.th[t][4][opnd[1]]
    if k == "self":
        return m.th[t][3]
    return t  # tid


def elem_of(m, t, memop):
    name, idx = memop
    d = m.P.vars[name]
    i = value(m, t, idx)
    if not 0 <= i < d["size"]:
        raise Fault("runtime_error", f"index {i} out of range for {name}[{d['size']}]")
    return d["off"] + i, d


def lock_of(m, t, lkop):
    name, idx = lkop
    d = m.P.locks[name]
    i = value(m, t, idx)
    if not 0 <= i < d["size"]:
        raise Fault("runtime_error", f"lock index {i} out of range for {name}[{d['size']}]")
    return d["off"] + i


def cond_of(m, t, cop):
    name, idx = cop
    d = m.P.conds[name]
    i = value(m, t, idx)
    if not 0 <= i < d["size"]:
        raise Fault("runtime_error", f"cond index {i} out of range for {name}[{d['size']}]")
    return d["off"] + i


def held_locks(m, t):
    return frozenset(l for l in range(m.P.nlocks) if m.lk[l][0] == t)


def on_access(m, t, e, d, write):
    """The unshared check (always) and LD' (Eraser-style, only with --ld)."""
    body = m.th[t][1]
    meta = m.ld[e]
    if d["cls"] == "unshared":
        # the first thread to touch any element owns the variable
        base = d["off"]
        owner = None
        for k in range(base, base + d["size"]):
            if m.ld[k][0] == "unsh":
                owner = m.ld[k][1]
        if owner is None:
            for k in range(base, base + d["size"]):
                m.ld[k] = ("unsh", t)
        elif owner != t:
            raise Fault("runtime_error", f"unshared variable touched by two threads: {m.P.elem_name[e]}")
        return
    if d["cls"] != "shared" or not m.P.check_ld:
        return
    held = held_locks(m, t)
    if meta[0] == "virgin":
        if d["init_body"] is not None:
            if body != d["init_body"]:
                raise Fault("lock_discipline", f"lock discipline violated: {m.P.elem_name[e]} first accessed by a thread other than its init thread")
            m.ld[e] = ("init",)
            return
        meta = ("checked", None, False)
    elif meta[0] == "init":
        meta = ("checked", None, False)
    _, ls, written = meta
    ls = held if ls is None else (ls & held)
    written = written or write
    if written and not ls:
        raise Fault("lock_discipline", f"lock discipline violated: {m.P.elem_name[e]}")
    m.ld[e] = ("checked", ls, written)


def future_sets(P):
    """Per body and pc: four sets of variable names a thread there may still
    (any element: access, write; only its own element [self]: access, write),
    counting its own loads/stores on every path and everything a thread it
    may spawn can access (the child's [self] is not the spawner's, so it
    counts as any element). A backward fixed point; cached on P."""
    if getattr(P, "_future", None) is not None:
        return P._future
    empty = (frozenset(),) * 4
    fut = [[empty for _ in b["code"]] for b in P.bodies]
    changed = True
    while changed:
        changed = False
        for bi, b in enumerate(P.bodies):
            code = b["code"]
            for pc in range(len(code) - 1, -1, -1):
                ins = code[pc]
                acc = [set(), set(), set(), set()]
                op = ins["op"]
                if op in ("load", "store"):
                    name, idx = ins["mem"]
                    own = P.vars[name]["is_array"] and idx[0] == "self"
                    acc[2 if own else 0].add(name)
                    if op == "store":
                        acc[3 if own else 1].add(name)
                elif op == "spawn":
                    c = fut[ins["proc"]][0]
                    acc[0] |= c[0] | c[2]
                    acc[1] |= c[1] | c[3]
                succ = []
                if op in ("jmp", "call"):  # after a call: through its ret
                    succ = [ins["target"]]
                elif op == "ret":
                    succ = b["ret_to"][pc]
                elif op in ("jz", "jnz"):
                    succ = [pc + 1, ins["target"]]
                elif op != "end":
                    succ = [pc + 1]
                for q in succ:
                    if q < len(code):
                        for k in range(4):
                            acc[k] |= fut[bi][q][k]
                new = tuple(frozenset(a) for a in acc)
                if new != fut[bi][pc]:
                    fut[bi][pc] = new
                    changed = True
    P._future = fut
    return fut


def canonical_ld(m):
    """Reset LD' metadata no later check can read (as mcheck's
    ls_canonicalize): an element no live thread may access again goes back to
    virgin; an element nobody may write again that was not written since it
    became checked cannot violate LD' any more and goes back to virgin
    ("init" for a variable with `init T`)."""
    fut = future_sets(m.P)
    live = []
    for th in m.th:
        if th[0] in (RUNNING, WAITING, NOTIFIED):
            live.append((fut[th[1]][th[2]], th[3]))  # (sets, self)
    for name, d in m.P.vars.items():
        if d["cls"] == "volatile" or (d["cls"] == "shared" and not m.P.check_ld):
            continue
        for i in range(d["size"]):
            acc = any(name in f[0] or (name in f[2] and me == i) for f, me in live)
            wr = any(name in f[1] or (name in f[3] and me == i) for f, me in live)
            if d["cls"] == "unshared":
                acc = any(name in f[0] or name in f[2] for f, me in live)
                wr = True  # an owner is forgotten only when nobody may touch it
            e = d["off"] + i
            meta = m.ld[e]
            if not acc:
                m.ld[e] = ("virgin",)
            elif wr or d["cls"] != "shared":
                continue
            elif meta[0] == "checked" and meta[2]:
                continue
            elif meta[0] == "virgin" and d["init_body"] is not None:
                continue
            else:
                m.ld[e] = ("init",) if d["init_body"] is not None else ("virgin",)


def enabled_choices(m, t):
    """Number of successors of thread t (0 = cannot move)."""
    st = m.th[t][0]
    if st in (UNUSED, ENDED) or (st == WAITING and not m.P.spurious):
        return 0
    body = m.P.bodies[m.th[t][1]]
    ins = body["code"][m.th[t][2]]
    if st in (NOTIFIED, WAITING):  # waiting: a spurious wakeup
        try:
            l = lock_of(m, t, ins["lock"])
        except Fault:
            return 1
        return 1 if m.lk[l][0] == -1 else 0
    op = ins["op"]
    if op == "atomic":
        return len(block_choices(m, t))
    try:
        if op == "assume":
            return 1 if value(m, t, ins["a"]) != 0 else 0
        if op == "acquire":
            l = lock_of(m, t, ins["lock"])
            return 1 if m.lk[l][0] in (-1, t) else 0
        if op == "send":
            c = m.P.chans[ins["chan"]]
            if c["cap"] == 0:  # rendezvous: one successor per waiting receiver
                return len(receivers(m, t, ins["chan"]))
            return 1 if len(m.ch[c["idx"]]) < c["cap"] else 0
        if op == "recv":
            c = m.P.chans[ins["chan"]]
            if c["cap"] == 0:  # rendezvous: only a sender moves it
                return 0
            return 1 if len(m.ch[c["idx"]]) > 0 else 0
        if op == "join":
            j = value(m, t, ins["a"])
            if 0 <= j < m.P.nthreads:
                return 1 if m.th[j][0] == ENDED else 0
            return 1  # faults when executed
        if op == "choose":
            a, b = value(m, t, ins["a"]), value(m, t, ins["b"])
            return b - a + 1 if a <= b else 1
        if op == "notify":
            l = lock_of(m, t, ins["lock"])
            if m.lk[l][0] != t:
                return 1
            return max(1, len(m.lk[l][2]))
        if op == "csignal":  # one successor per waiter; a lost signal is one
            return max(1, len(m.cv[cond_of(m, t, ins["cond"])]))
    except Fault:
        return 1
    return 1


def receivers(m, t, chan):
    """The threads other than t that are running at a `recv _, chan`, in
    thread id order (a rendezvous send's choice k is the k-th of them)."""
    out = []
    for u in range(m.P.nthreads):
        th = m.th[u]
        if u == t or th[0] != RUNNING:
            continue
        ins = m.P.bodies[th[1]]["code"][th[2]]
        if ins["op"] == "recv" and ins["chan"] == chan:
            out.append(u)
    return out


def block_choices(m, t):
    """The choices of the first instruction of thread t's atomic block (t
    stands at its `atomic`) whose run passes every assume in it."""
    th = m.th[t]
    code = m.P.bodies[th[1]]["code"]
    pc = th[2]
    th[2] = pc + 1  # as if standing at the first instruction
    n = enabled_choices(m, t)
    th[2] = pc
    if not code[pc].get("guarded"):
        return list(range(n))
    out = []
    for c in range(n):
        w = Machine(m.P, m.freeze())
        try:
            run_block(w, t, c, 1 << 20)
        except NotTaken:
            continue
        except Fault:
            pass  # the block's step meets the error
        out.append(c)
    return out


def run_block(m, t, c, limit):
    """Thread t runs its atomic block, the first instruction with choice c."""
    code = m.P.bodies[m.th[t][1]]["code"]
    step(m, t, 0)  # atomic: the hidden lock
    first = True
    k = 0
    while m.th[t][0] == RUNNING and code[m.th[t][2]]["in_block"]:
        step(m, t, c if first else 0)
        first = False
        k += 1
        if k > limit:
            raise Fault("runtime_error", f"no visible operation within {limit} steps")


def step(m, t, choice):
    """Execute one instruction (or the re-acquire of a notified thread)."""
    P = m.P
    th = m.th[t]
    body = P.bodies[th[1]]
    ins = body["code"][th[2]]
    op = ins["op"]
    regs = th[4]
    if th[0] in (NOTIFIED, WAITING) and op == "cwait":  # pthread: depth back to 1
        l = lock_of(m, t, ins["lock"])
        q = cond_of(m, t, ins["cond"])
        m.cv[q] = m.cv[q] - {t}
        m.lk[l][0] = t
        m.lk[l][1] = 1
        th[0] = RUNNING
        th[2] += 1
        return
    if th[0] in (NOTIFIED, WAITING):  # re-acquire; waiting: a spurious wakeup
        l = lock_of(m, t, ins["lock"])
        m.lk[l][2] = m.lk[l][2] - {t}
        m.lk[l][0] = t
        m.lk[l][1] = th[5]
        th[5] = 0
        th[0] = RUNNING
        th[2] += 1
        return
    nxt = th[2] + 1
    if op == "nop":
        pass
    elif op == "assume":
        if value(m, t, ins["a"]) == 0:
            raise NotTaken()
    elif op in ("atomic", "end_atomic"):
        l = P.locks[ATOMIC_LOCK]["off"]
        m.lk[l][0] = t if op == "atomic" else -1
        m.lk[l][1] = 1 if op == "atomic" else 0
    elif op == "mov":
        regs[ins["rd"]] = value(m, t, ins["a"])
    elif op == "not":
        regs[ins["rd"]] = 1 if value(m, t, ins["a"]) == 0 else 0
    elif op == "neg":
        regs[ins["rd"]] = wrap(-value(m, t, ins["a"]))
    elif op in ARITH:
        a, b = value(m, t, ins["a"]), value(m, t, ins["b"])
        if op == "add":
            r = wrap(a + b)
        elif op == "sub":
            r = wrap(a - b)
        elif op == "mul":
            r = wrap(a * b)
        elif op in ("div", "mod"):
            if b == 0:
                raise Fault("runtime_error", "division by zero")
            q = abs(a) // abs(b)
            if (a < 0) != (b < 0):
                q = -q
            r = wrap(q) if op == "div" else wrap(a - q * b)
        elif op == "and":
            r = wrap(a & b)
        elif op == "or":
            r = wrap(a | b)
        elif op == "xor":
            r = wrap(a ^ b)
        elif op == "shl":
            r = wrap((a & 0xFFFFFFFF) << (b & 31))
        elif op == "shr":
            r = wrap((a & 0xFFFFFFFF) >> (b & 31))
        else:
            r = int({"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b,
                     "gt": a > b, "ge": a >= b}[op])
        regs[ins["rd"]] = r
    elif op == "load":
        e, d = elem_of(m, t, ins["mem"])
        on_access(m, t, e, d, False)
        regs[ins["rd"]] = m.g[e]
    elif op == "store":
        e, d = elem_of(m, t, ins["mem"])
        on_access(m, t, e, d, True)
        m.g[e] = value(m, t, ins["a"])
    elif op == "jmp":
        nxt = ins["target"]
    elif op == "call":
        if len(th[6]) >= body["stack"]:
            raise Fault("runtime_error", f"return stack overflow (stack {body['stack']})")
        th[6].append(th[2] + 1)
        nxt = ins["target"]
    elif op == "ret":
        if not th[6]:
            raise Fault("runtime_error", "ret with an empty return stack")
        nxt = th[6].pop()
    elif op == "jz":
        if value(m, t, ins["a"]) == 0:
            nxt = ins["target"]
    elif op == "jnz":
        if value(m, t, ins["a"]) != 0:
            nxt = ins["target"]
    elif op == "assert":
        if value(m, t, ins["a"]) == 0:
            raise Fault("assertion", "assertion violated: " + ins["msg"])
    elif op == "choose":
        a, b = value(m, t, ins["a"]), value(m, t, ins["b"])
        if a > b:
            raise Fault("runtime_error", f"choose: empty range [{a}, {b}]")
        regs[ins["rd"]] = a + choice
    elif op == "acquire":
        l = lock_of(m, t, ins["lock"])
        if m.lk[l][1] >= MAX_LOCK_DEPTH:  # the depth is a u16 (LANGUAGE.md's layout)
            raise Fault("runtime_error", "lock acquired more than 65535 times")
        m.lk[l][0] = t
        m.lk[l][1] += 1
    elif op == "release":
        l = lock_of(m, t, ins["lock"])
        if m.lk[l][0] != t:
            raise Fault("runtime_error", "release of a lock this thread does not own")
        m.lk[l][1] -= 1
        if m.lk[l][1] == 0:
            m.lk[l][0] = -1
    elif op == "wait":
        l = lock_of(m, t, ins["lock"])
        if m.lk[l][0] != t:
            raise Fault("runtime_error", "wait on a lock this thread does not own")
        th[5] = m.lk[l][1]
        m.lk[l][0] = -1
        m.lk[l][1] = 0
        m.lk[l][2] = m.lk[l][2] | {t}
        th[0] = WAITING
        nxt = th[2]  # stays at its wait
    elif op in ("notify", "notifyall"):
        l = lock_of(m, t, ins["lock"])
        if m.lk[l][0] != t:
            raise Fault("runtime_error", f"{op} on a lock this thread does not own")
        ws = sorted(m.lk[l][2])
        wake = ws if op == "notifyall" else ws[choice:choice + 1]
        for w in wake:
            m.th[w][0] = NOTIFIED
        m.lk[l][2] = frozenset(set(ws) - set(wake))
    elif op == "cwait":
        q = cond_of(m, t, ins["cond"])
        l = lock_of(m, t, ins["lock"])
        if m.lk[l][0] != t:
            raise Fault("runtime_error", "cwait with a lock this thread does not own")
        if m.lk[l][1] != 1:
            raise Fault("runtime_error", "cwait with the lock held at depth > 1")
        m.lk[l][0] = -1
        m.lk[l][1] = 0
        m.cv[q] = m.cv[q] | {t}
        th[0] = WAITING
        nxt = th[2]  # stays at its cwait
    elif op in ("csignal", "cbroadcast"):
        q = cond_of(m, t, ins["cond"])
        ws = sorted(m.cv[q])
        wake = ws if op == "cbroadcast" else ws[choice:choice + 1]
        for w in wake:
            m.th[w][0] = NOTIFIED
        m.cv[q] = frozenset(set(ws) - set(wake))
    elif op == "send" and P.chans[ins["chan"]]["cap"] == 0:
        # rendezvous with the choice-th waiting receiver: one step of both
        # threads; the caller runs the receiver's tail (m.partner)
        r = receivers(m, t, ins["chan"])[choice]
        m.th[r][4][m.P.bodies[m.th[r][1]]["code"][m.th[r][2]]["rd"]] = value(m, t, ins["a"])
        m.th[r][2] += 1
        m.partner = r
    elif op == "send":
        c = P.chans[ins["chan"]]
        m.ch[c["idx"]].append(value(m, t, ins["a"]))
    elif op == "recv":
        c = P.chans[ins["chan"]]
        regs[ins["rd"]] = m.ch[c["idx"]].pop(0)
    elif op == "spawn":
        pb = ins["proc"]
        pi = P.procs.index(pb)
        if m.sp[pi] >= P.bodies[pb]["count"]:
            raise Fault("runtime_error", f"spawn beyond max for proc {P.bodies[pb]['name']}")
        nt = P.nstatic + sum(m.sp)
        m.sp[pi] += 1
        m.th[nt] = [RUNNING, pb, 0, value(m, t, ins["a"]), [0] * P.bodies[pb]["nreg"], 0, []]
        regs[ins["rd"]] = nt
    elif op == "join":
        j = value(m, t, ins["a"])
        if not 0 <= j < P.nthreads:
            raise Fault("runtime_error", f"join: no thread {j}")
    elif op == "end":
        th[0] = ENDED
        th[2] = 0
        th[4] = [0] * len(regs)
        th[5] = 0
        th[6] = []
        if body["proc"]:
            th[3] = 0  # a spawned instance's self is cleared too
        return
    else:
        raise AssertionError(op)
    th[2] = nxt


def at_visible(m, t):
    th = m.th[t]
    if th[0] != RUNNING:
        return True
    return m.P.bodies[th[1]]["code"][th[2]]["visible"]


def tail(m, t, max_invis):
    """Thread t's invisible tail in a composed step: up to a visible pc, or t
    not running."""
    k = 0
    while m.th[t][0] == RUNNING and not at_visible(m, t):
        try:
            step(m, t, 0)
        except Fault:
            # an error in the invisible tail: the composed step ends before
            # the erring instruction, which becomes a scheduling point (as in
            # mcheck), so the other threads can still move first
            break
        k += 1
        if k > max_invis:
            raise Fault("runtime_error", f"no visible operation within {max_invis} steps")


def successors(P, s, reduced, max_invis):
    """Yield (tid, choice, next_state or ('ERROR', kind, msg, partial))."""
    m0 = Machine(P, s)
    for t in range(P.nthreads):
        th = m0.th[t]
        block = th[0] == RUNNING and P.bodies[th[1]]["code"][th[2]]["op"] == "atomic"
        for c in (block_choices(m0, t) if block else range(enabled_choices(m0, t))):
            m = Machine(P, s)
            try:
                if block:
                    run_block(m, t, c, max_invis)
                else:
                    step(m, t, c)
                if reduced:
                    tail(m, t, max_invis)
                    if m.partner is not None:  # a rendezvous: then the receiver's
                        tail(m, m.partner, max_invis)
            except Fault as f:
                canonical_ld(m)
                # an error state is the state and the thread that faulted in it
                # (as mcheck counts them: two threads failing in one state are
                # two errors)
                yield t, c, ("ERROR", f.kind, f.msg, m.freeze(), t)
                continue
            canonical_ld(m)
            yield t, c, m.freeze()


def end_verdict(P, s):
    """None if some thread can move; 'ok' for a valid end; 'deadlock' otherwise."""
    m = Machine(P, s)
    for t in range(P.nthreads):
        if enabled_choices(m, t):
            return None
    for t in range(P.nthreads):
        st = m.th[t][0]
        if st in (UNUSED, ENDED):
            continue
        ins = P.bodies[m.th[t][1]]["code"][m.th[t][2]]
        if not ins["end_label"]:
            return "deadlock"
    return "ok"


def explore(P, reduced, ld=False, max_invis=100000, max_states=None, trace=False,
            spurious=False):
    P.check_ld = ld
    P.spurious = spurious
    init = initial_state(P, ld)
    seen = {init: None}
    q = deque([init])
    transitions = 0
    errors = {}  # kind -> (msg, state)
    while q:
        s = q.popleft()
        nsucc = 0
        for t, c, ns in successors(P, s, reduced, max_invis):
            nsucc += 1
            transitions += 1
            if ns not in seen:
                seen[ns] = (s, t, c)
                if isinstance(ns, tuple) and len(ns) == 5 and ns[0] == "ERROR":
                    errors.setdefault(ns[1], (ns[2], ns))
                else:
                    q.append(ns)
                    if max_states and len(seen) > max_states:
                        raise SystemExit(f"refcheck: more than {max_states} states")
        if nsucc == 0:
            v = end_verdict(P, s)
            if v == "deadlock":
                errors.setdefault("deadlock", ("deadlock", s))
    return len(seen), transitions, errors, seen


def thread_name(m, t):
    th = m.th[t]
    b = m.P.bodies[th[1]]
    if b["proc"]:  # the k-th instance of proc P is P[k]
        k = sum(1 for u in range(m.P.nstatic, t) if m.th[u][1] == th[1])
        return f"{b['name']}[{k}]"
    return b["name"] + (f"[{th[3]}]" if b["is_array"] else "")


def describe_trace(P, seen, s):
    path = []
    while seen.get(s) is not None:
        prev, t, c = seen[s]
        m = Machine(P, prev)
        th = m.th[t]
        ins = P.bodies[th[1]]["code"][th[2]]
        name = thread_name(m, t)
        what = {NOTIFIED: "re-acquire after notify",
                WAITING: "spurious wakeup, re-acquire"}.get(th[0], ins["text"])
        if th[0] == RUNNING and ins["op"] == "send" and P.chans[ins["chan"]]["cap"] == 0:
            what += " ; with " + thread_name(m, receivers(m, t, ins["chan"])[c])
        path.append(f"  {name}: {what}" + (f" (choice {c})" if c else "") + (f"  (line {ins['line']})" if ins["line"] else ""))
        s = prev
    return "\n".join(reversed(path))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("-D", action="append", default=[], metavar="N=V")
    ap.add_argument("--mode", choices=["both", "none", "reduced"], default="both")
    ap.add_argument("--ld", action="store_true", help="check LD' (adds metadata to states)")
    ap.add_argument("--spurious-wakeups", action="store_true",
                    help="a waiting thread may re-acquire without a notify")
    ap.add_argument("--max-invisible", type=int, default=100000)
    ap.add_argument("--max-states", type=int, default=None)
    ap.add_argument("--trace", action="store_true", help="print a shortest trace per error kind")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    defs = {}
    for d in args.D:
        k, _, v = d.partition("=")
        pv = parse_int(v.strip())
        if pv is None:
            print(f"refcheck: bad -D {d}", file=sys.stderr)
            return 2
        defs[k.strip()] = pv
    try:
        with open(args.model) as f:
            P = assemble(f.read(), defs)
    except (AsmError, OSError) as e:
        print(f"{args.model}: error: {e}", file=sys.stderr)
        return 2
    modes = {"both": [("reduced", True), ("none", False)], "none": [("none", False)],
             "reduced": [("reduced", True)]}[args.mode]
    status = 0
    for label, red in modes:
        n, tr, errors, seen = explore(P, red, args.ld, args.max_invisible, args.max_states,
                                      spurious=args.spurious_wakeups)
        kinds = sorted(errors) or ["ok"]
        print(f"mode={label} states={n} transitions={tr} verdict={','.join(kinds)}")
        if errors:
            status = 1
            if not args.quiet:
                for k in sorted(errors):
                    msg, st = errors[k]
                    print(f"  {k}: {msg}")
                    if args.trace:
                        print(describe_trace(P, seen, st))
    return status


if __name__ == "__main__":
    sys.exit(main())
