#!/usr/bin/env python3
"""Register-bank reads of a kernel's FFMAs, from its SASS (cuobjdump -sass).

An FFMA that reads three source registers of one bank (register number mod
4) from the register file, none of them served by the operand reuse cache
(the `.reuse` flag of the instruction before it in the same operand slot),
stalls in dispatch: ncu's samples put most of the f32 products' FFMA
dispatch stalls on them. This counts the FFMAs by how many registers
they read from the file and the largest number of those in one bank, and,
given ncu's source page of the same code, the dispatch-stall samples of
each group:

    ptxas -arch=sm_90a kernel.ptx -o k.cubin && cuobjdump -sass k.cubin > k.sass
    scripts/sass-register-banks.py k.sass [source.csv]
        # source.csv: ncu -i REPORT --page source --csv --print-source sass

A kernel's PTX does not choose its registers; ptxas does, so compare
variants by these counts before timing them."""
import collections
import csv
import re
import sys


def parse_sass(path):
    """(offset, instruction text) for each instruction of the listing."""
    ins = []
    for line in open(path):
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2).strip()))
    return ins


def ffma_reads(ins):
    """(offset, file reads, most reads in one bank) for each FFMA."""
    cached = {}  # operand slot -> register the previous instruction kept
    out = []
    for offset, text in ins:
        words = text.split()
        if words[0].startswith("@"):
            words = words[1:]
        operands = [w.strip(",") for w in words[1:]]
        if not (words[0].startswith("FFMA") and len(operands) == 4):
            cached = {}
            continue
        reads, kept = [], {}
        for slot, operand in enumerate(operands[1:]):
            reg = operand.replace(".reuse", "")
            if not re.fullmatch(r"R\d+", reg):
                continue
            if cached.get(slot) != reg:
                reads.append(int(reg[1:]))
            if operand.endswith(".reuse"):
                kept[slot] = reg
        cached = kept
        banks = collections.Counter(r % 4 for r in reads)
        out.append((offset, len(reads), max(banks.values(), default=0)))
    return out


def dispatch_samples(path):
    """Offset (from the kernel's first instruction) -> dispatch-stall samples."""
    rows = list(csv.reader(open(path)))
    header = next(i for i, r in enumerate(rows) if "Address" in r and "Source" in r)
    names = rows[header]
    data = [dict(zip(names, r)) for r in rows[header + 1:] if len(r) == len(names)]
    base = min(int(d["Address"], 16) for d in data)
    return {int(d["Address"], 16) - base: int(d.get("stall_dispatch") or 0) for d in data}


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    reads = ffma_reads(parse_sass(sys.argv[1]))
    samples = dispatch_samples(sys.argv[2]) if len(sys.argv) == 3 else {}
    groups = collections.defaultdict(lambda: [0, 0])
    for offset, n, same_bank in reads:
        groups[(n, same_bank)][0] += 1
        groups[(n, same_bank)][1] += samples.get(offset, 0)
    print(f"{'file reads':>10s} {'one bank':>8s} {'FFMAs':>6s}" +
          (f" {'dispatch samples':>16s} {'per FFMA':>8s}" if samples else ""))
    for (n, same_bank), (count, stalls) in sorted(groups.items()):
        line = f"{n:10d} {same_bank:8d} {count:6d}"
        if samples:
            line += f" {stalls:16d} {stalls / count:8.2f}"
        print(line)
    conflicts = groups[(3, 3)][0]
    print(f"{len(reads)} FFMAs, {conflicts} read three registers of one bank")


if __name__ == "__main__":
    main()
