#!/usr/bin/env python3
"""Writes one kernel of N short circuits in a row (if (x > k && y < 3k) ... else ...), each four
blocks with a branch that depends on the thread index: the shape on which a pass that walks the
rest of its region per construct, or a guard sequence per guard, grows faster than ptxas
(docs/results/frontend.md, "Large functions" and "Tenth round"). ptxas accepts it."""
import argparse


def chain(constructs):
    lines = [".version 8.0", ".target sm_80", ".address_size 64", "",
             ".visible .entry chain(.param .u64 out)", "{", "\t.reg .pred %p<3>;",
             "\t.reg .b32 %r<5>;", "\t.reg .b64 %rd<3>;", "",
             "\tld.param.u64 %rd1, [out];", "\tcvta.to.global.u64 %rd1, %rd1;",
             "\tmov.u32 %r1, %tid.x;", "\tmul.lo.s32 %r2, %r1, 7;", "\tmov.u32 %r3, 0;"]
    for k in range(constructs):
        lines += [f"$B{k}:", f"\tsetp.gt.s32 %p1, %r1, {k};", f"\t@!%p1 bra $E{k};",
                  f"\tsetp.lt.s32 %p2, %r2, {3 * k};", f"\t@!%p2 bra $E{k};",
                  f"\tadd.s32 %r3, %r3, {k};", f"\tbra.uni $N{k};", f"$E{k}:",
                  f"\txor.b32 %r3, %r3, {k + 1};", f"$N{k}:"]
    lines += ["\tmul.wide.u32 %rd2, %r1, 4;", "\tadd.s64 %rd2, %rd1, %rd2;",
              "\tst.global.u32 [%rd2], %r3;", "\tret;", "}", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="the PTX file to write")
    parser.add_argument("--constructs", type=int, default=1000,
                        help="short circuits in the chain (default 1000)")
    args = parser.parse_args()
    if args.constructs < 0:
        parser.error("--constructs must be at least 0")
    with open(args.output, "w", encoding="utf-8") as out:
        out.write(chain(args.constructs))


if __name__ == "__main__":
    main()
