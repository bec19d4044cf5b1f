#!/usr/bin/env python3
"""Regenerates tests/asm/corpus/gen_*.hsail.

Each family below enumerates mnemonic/operand variants (modifiers x types x
literal forms ...). Every variant is assembled on its own by HSAILasm (the HSA
Foundation assembler, used only as an oracle); the variants it accepts are
collected into one corpus file per family, which the differential test
(AsmCorpusTest) then compares byte for byte with openhsa-as.

Usage: tests/asm/gen_corpus.py [--hsailasm PATH] [--jobs N] [family ...]
Running every family takes a while (tens of thousands of oracle runs).
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

TYPES = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "f32",
         "f64", "b1", "b8", "b16", "b32", "b64", "b128", "u8x4", "u8x8",
         "u8x16", "u16x2", "u16x4", "u16x8", "u32x2", "u32x4", "u64x2",
         "s8x4", "s8x8", "s8x16", "s16x2", "s16x4", "s16x8", "s32x2", "s32x4",
         "s64x2", "f16x2", "f16x4", "f16x8", "f32x2", "f32x4", "f64x2"]


def bits(t):
    if "x" in t:
        b, n = t[1:].split("x")
        return int(b) * int(n)
    return 1 if t == "b1" else int(t[1:])


def reg(t, i):
    return {1: "$c", 8: "$s", 16: "$s", 32: "$s", 64: "$d",
            128: "$q"}[bits(t)] + str(i)


def imm(t):
    if t in ("f16", "f32", "f64"):
        return {"f16": "1.5h", "f32": "1.5f", "f64": "1.5"}[t]
    if "x" in t:
        b, n = t[1:].split("x")
        if t[0] == "f":
            sfx = {"16": "h", "32": "f", "64": ""}[b]
            return t + "(" + ",".join(["1.0" + sfx] * int(n)) + ")"
        return t + "(" + ",".join(str(k + 1) for k in range(int(n))) + ")"
    return "u64x2(1,2)" if t == "b128" else "7"


def fam_mod():
    ops = {2: ["neg", "abs", "fract", "sqrt", "ceil", "floor", "rint", "trunc"],
           3: ["add", "sub", "mul", "div", "max", "min", "copysign", "mulhi"],
           4: ["fma", "mad"]}
    packs = ["_pp", "_ps", "_sp", "_ss", "_s", "_p", "_pp_sat", "_ps_sat",
             "_sp_sat", "_ss_sat", "_s_sat", "_p_sat"]
    for n, names in ops.items():
        for op in names:
            for t in TYPES:
                for ftz in ["", "_ftz"]:
                    for r in ["", "_near", "_zero", "_up", "_down"]:
                        for p in (packs if "x" in t else [""]):
                            if "x" in t and p not in ("_p", "_pp"):
                                continue
                            o = [reg(t, i + 1) for i in range(n - 1)] + [imm(t)]
                            yield f"{op}{ftz}{r}{p}_{t} " + ", ".join(o) + ";"


def fam_cvt():
    sc = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "f32",
          "f64", "b1"]
    rounds = ["", "_near", "_zero", "_up", "_down", "_neari", "_zeroi",
              "_upi", "_downi", "_neari_sat", "_zeroi_sat", "_upi_sat",
              "_downi_sat", "_sneari", "_szeroi", "_supi", "_sdowni",
              "_sneari_sat", "_szeroi_sat", "_supi_sat", "_sdowni_sat"]
    for d in sc:
        for s in sc:
            for ftz in ["", "_ftz"]:
                for r in rounds:
                    yield f"cvt{ftz}{r}_{d}_{s} {reg(d, 1)}, {reg(s, 2)};"


LITERALS = [
    "0", "1", "-1", "0x7f", "0xffffffff", "0x100000000", "0777",
    "18446744073709551615", "-9223372036854775808", "1.0h", "1.0f", "1.0",
    "-2.5f", "0H3c00", "0F3f800000", "0D3ff0000000000000", "0x1p1", "0x1p1f",
    "0x1p1h", "u8(5)", "s8(-5)", "u16(5)", "s16(-5)", "u32(5)", "s32(-5)",
    "u64(5)", "s64(-5)", "f16(1.0h)", "f32(1.0f)", "f64(1.0)",
    "u8x4(1,2,3,4)", "s8x4(-1,2,-3,4)", "u16x2(1,2)", "s16x2(-1,2)",
    "f16x2(1.0h,2.0h)", "u8x8(1,2,3,4,5,6,7,8)", "u16x4(1,2,3,4)",
    "s32x2(-1,2)", "f32x2(1.0f,2.0f)", "u32x2(1,2)", "u64x2(1,2)",
    "s64x2(-1,2)", "f64x2(1.0,2.0)", "u32x4(1,2,3,4)",
    "f32x4(1.0f,2.0f,3.0f,4.0f)",
    "u8x16(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16)", "sig64(0)",
    "f16x4(1.0h,2.0h,3.0h,4.0h)", "u16x8(1,2,3,4,5,6,7,8)", "+5", "- 5",
    "-0F3f800000", "-u32(5)", "f32(-1.0f)", "s32(0x80000000)", "u8(300)",
    "u32(-1)"]


def fam_imm_mov():
    for t in ["b1", "b32", "b64", "b128", "u32", "s32", "u64", "s64", "f16",
              "f32", "f64"]:
        for l in LITERALS:
            yield f"mov_{t} {reg(t, 1)}, {l};"


def fam_imm_operand():
    for l in LITERALS:
        for t in ["u8x4", "s16x2", "f16x2", "u32x2", "f32x2", "u8x8", "f64x2",
                  "u64x2", "s8x16"]:
            yield f"add_pp_{t} {reg(t, 1)}, {reg(t, 2)}, {l};"
        for t in ["u32", "s64"]:
            yield f"shl_{t} {reg(t, 1)}, {reg(t, 2)}, {l};"
        for t in ["b32", "b64", "u8x4", "s16x2", "f32x2"]:
            yield f"cmov_{t} {reg(t, 1)}, {l}, {reg(t, 3)}, {reg(t, 4)};"
        yield f"bitextract_u32 $s1, $s2, {l}, 3;"
        yield f"popcount_u32_b64 $s1, {l};"
        yield f"cvt_f32_s8 $s1, {l};"
        yield f"shuffle_u8x4 $s1, $s2, $s3, {l};"
        yield f"activelanepermute_b64 $d1, $d2, {l}, $d3, 1;"
        yield f"st_global_u8 {l}, [$d1];"
        yield f"st_global_f16 {l}, [$d1];"
        yield f"st_global_b128 {l}, [$d1];"
        yield f"class_b1_f32 $c1, $s2, {l};"
        yield f"debugtrap_u32 {l};"


def fam_cmp():
    ops = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu",
           "gtu", "geu", "num", "nan", "seq", "sne", "slt", "sle", "sgt",
           "sge", "sgeu", "sequ", "sneu", "sltu", "sleu", "snum", "snan",
           "sgtu"]
    dsts = ["b1", "u32", "s32", "f32", "u64", "f64", "u8x4", "u16x2", "u32x2",
            "u64x2", "u16x4", "u8x8", "u8x16", "u16x8", "u32x4"]
    out = []
    for c in ops:
        for s in TYPES:
            for d in dsts:
                for ftz in ["", "_ftz"]:
                    p = "_pp" if "x" in s else ""
                    out.append(f"cmp_{c}{ftz}{p}_{d}_{s} {reg(d, 1)}, "
                               f"{reg(s, 2)}, {imm(s)};")
    random.Random(5).shuffle(out)
    return out[:6000]


def fam_memory():
    segs = ["", "_global", "_group", "_private", "_kernarg", "_readonly",
            "_spill", "_arg", "_flat"]
    mtypes = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16",
              "f32", "f64", "b128", "u8x4", "f32x2", "u64x2", "b32", "b64",
              "roimg", "samp", "sig64"]

    def addr(seg):
        return ("[$s5+4]" if seg in ("_group", "_private", "_spill", "_arg")
                else "[$d5+8]")
    out = []
    for op in ["ld", "st"]:
        for seg in segs:
            for t in mtypes:
                for al in ["", "_align(4)", "_align(16)"]:
                    for c in ["", "_const"]:
                        for w in ["", "_width(8)", "_width(all)"]:
                            for eq in ["", "_equiv(5)"]:
                                r = (reg(t, 1) if t not in
                                     ("roimg", "samp", "sig64") else "$d1")
                                out.append(f"{op}{seg}{al}{c}{eq}{w}_{t} {r}, "
                                           f"{addr(seg)};")
    random.Random(3).shuffle(out)
    out = out[:2500]
    for v in ["_v2", "_v3", "_v4"]:
        for seg in segs:
            for t in ["u32", "f32", "u64", "s8", "f64", "u8x4"]:
                n = int(v[2])
                regs = "(" + ", ".join(reg(t, i + 1) for i in range(n)) + ")"
                for op in ["ld", "st"]:
                    out.append(f"{op}{v}{seg}_{t} {regs}, {addr(seg)};")
    return out


def fam_atomic():
    out = []
    for op in ["atomic", "atomicnoret"]:
        for a in ["add", "and", "cas", "exch", "ld", "max", "min", "or", "st",
                  "sub", "wrapdec", "wrapinc", "xor"]:
            for seg in ["", "_global", "_group", "_flat"]:
                for o in ["_rlx", "_scacq", "_screl", "_scar"]:
                    for sc in ["_wi", "_wave", "_wg", "_agent", "_system"]:
                        for t in ["b32", "b64", "u32", "s64"]:
                            for eq in ["", "_equiv(2)"]:
                                ad = "[$s5]" if seg == "_group" else "[$d5]"
                                o2 = ([reg(t, 1)] if op == "atomic" else [])
                                o2.append(ad)
                                if a == "cas":
                                    o2 += [reg(t, 2), imm(t)]
                                elif not (op == "atomic" and a == "ld"):
                                    o2.append(imm(t))
                                out.append(f"{op}_{a}{seg}{o}{sc}{eq}_{t} " +
                                           ", ".join(o2) + ";")
    random.Random(3).shuffle(out)
    return out[:3000]


def fam_image():
    geoms = {"1d": 1, "2d": 2, "3d": 3, "1da": 2, "2da": 3, "1db": 1,
             "2ddepth": 2, "2dadepth": 3}
    for g, n in geoms.items():
        coord = "$s9" if n == 1 else "(" + ", ".join(
            "$s%d" % (9 + k) for k in range(n)) + ")"
        dst = "$s0" if "depth" in g else "($s0, $s1, $s2, $s3)"
        v = "" if "depth" in g else "_v4"
        for d in ["s32", "u32", "f32", "f16"]:
            for it in ["roimg", "rwimg", "woimg"]:
                for ct in ["f32", "s32", "u32"]:
                    for eq in ["", "_equiv(4)"]:
                        yield f"rdimage{v}_{g}{eq}_{d}_{it}_{ct} {dst}, $d1, $d2, {coord};"
                        yield f"ldimage{v}_{g}{eq}_{d}_{it}_{ct} {dst}, $d1, {coord};"
                        yield f"stimage{v}_{g}{eq}_{d}_{it}_{ct} {dst}, $d1, {coord};"
        for q in ["width", "height", "depth", "array", "channelorder",
                  "channeltype"]:
            for it in ["roimg", "rwimg", "woimg"]:
                yield f"queryimage_{g}_{q}_u32_{it} $s1, $d1;"
    for q in ["addressing", "coord", "filter"]:
        yield f"querysampler_{q}_u32 $s1, $d1;"
    yield "imagefence;"


def fam_misc():
    lines = []
    for op in ['popcount','firstbit','lastbit']:
      for d in ['u32','u64','s32']:
        for s in ['b32','b64','u32','s32','u64','s64']:
          lines.append(f'{op}_{d}_{s} {reg(d,1)}, {reg(s,2)};')
    for d in ['b32','b64','b128']:
      for s in ['b32','b64','b128']:
        for v in ['_v2','_v3','_v4']:
          n=int(v[2])
          lines.append(f'combine{v}_{d}_{s} {reg(d,1)}, ('+', '.join(reg(s,i+2) for i in range(n))+');')
          lines.append(f'expand{v}_{s}_{d} ('+', '.join(reg(s,i+2) for i in range(n))+f'), {reg(d,1)};')
    for op in ['activelanecount','activelaneid','activelanemask','activelanepermute']:
      for w in ['','_width(1)','_width(64)','_width(WAVESIZE)','_width(all)']:
        for t in ['u32','b1','b32','b64','b128','u64']:
          for s in ['','_b1','_u32']:
            if op=='activelanecount': lines.append(f'{op}{w}_{t}{s} {reg(t,1)}, $c1;')
            if op=='activelaneid': lines.append(f'{op}{w}_{t}{s} {reg(t,1)};')
            if op=='activelanemask': lines.append(f'{op}_v4{w}_{t}{s} ($d1,$d2,$d3,$d4), $c1;')
            if op=='activelanepermute': lines.append(f'{op}{w}_{t}{s} {reg(t,1)}, {reg(t,2)}, $s3, {reg(t,4)}, $c5;')
    sops=['ld','and','or','xor','exch','add','sub','cas','wait_eq','wait_ne','wait_lt','wait_gte','waittimeout_eq','waittimeout_ne','waittimeout_lt','waittimeout_gte','st']
    for op in ['signal','signalnoret']:
      for so in sops:
        for o in ['_rlx','_scacq','_screl','_scar']:
          for t in ['b64','u64','s64','b32']:
            for st in ['sig64','sig32']:
              if op=='signal':
                ops=[reg(t,1),'$d2']
                if so!='ld': ops.append(imm(t))
                if so=='cas': ops.append(reg(t,3))
                if so.startswith('waittimeout'): ops.append('$d4')
              else: ops=['$d2',imm(t)]
              lines.append(f'{op}_{so}{o}_{t}_{st} '+', '.join(ops)+';')
    for seg in ['','_global','_group','_private','_kernarg','_readonly','_flat']:
      for t in ['u32','u64']:
        lines.append(f'nullptr{seg}_{t} {reg(t,1)};')
        lines.append(f'lda{seg}_{t} {reg(t,1)}, [{"$s2" if t=="u32" else "$d2"}];')
        for op in ['segmentp','ftos','stof']:
          for nn in ['','_nonull']:
            for s in ['u32','u64']:
              d='b1' if op=='segmentp' else t
              lines.append(f'{op}{seg}{nn}_{d}_{s} {reg(d,1)}, {reg(s,2)};')
    for op in ['addqueuewriteindex','casqueuewriteindex','ldqueuereadindex','ldqueuewriteindex','stqueuereadindex','stqueuewriteindex']:
      for seg in ['','_global','_group']:
        for o in ['_rlx','_scacq','_screl','_scar']:
          if op.startswith('add'): ops='$d1, [$d2], 5'
          elif op.startswith('cas'): ops='$d1, [$d2], 5, $d3'
          elif op.startswith('ld'): ops='$d1, [$d2]'
          else: ops='[$d2], 4'
          lines.append(f'{op}{seg}{o}_u64 {ops};')
    for o in ['_rlx','_scacq','_screl','_scar']:
      for sc in ['_wi','_wave','_wg','_agent','_system']:
        lines.append(f'memfence{o}{sc};')
    for w in ['','_width(1)','_width(2)','_width(64)','_width(WAVESIZE)','_width(all)']:
      lines.append(f'barrier{w};'); lines.append(f'wavebarrier{w};')
      for op in ['joinfbar','waitfbar','arrivefbar','leavefbar']:
        lines.append(f'{op}{w} $s1;')
    for op in ['packcvt_u8x4_f32 $s1, $s2, 1.0f, $s4, $s5','unpackcvt_f32_u8x4 $s1, $s2, 3','sad_u32_u8x4 $s1, $s2, $s3, 7','sadhi_u16x2_u8x4 $s1, $s2, $s3, u16x2(1,2)','lerp_u8x4 $s1, $s2, $s3, u8x4(1,2,3,4)','bitalign_b32 $s1, $s2, $s3, 5','pack_s8x4_s32 $s1, s8x4(1,2,3,4), $s2, 1','unpack_u32_u16x2 $s1, u16x2(1,2), 1','mulhi_pp_u16x2 $s1, $s2, $s3','class_b1_f64 $c1, $d2, 5']:
      lines.append(op+';')

    return lines


VTYPES = ['u8','u16','u32','u64','s8','s16','s32','s64','f16','f32','f64','b8','b16','b32','b64','b128','u8x4','s16x2','f16x2','f32x2','u64x2','f64x2','s8x16','sig64','sig32','roimg','woimg','rwimg','samp']


def var_init(t, arr):
    if t=='sig64' or t=='sig32': return f'{t}(0)' if not arr else f'{t}[]({t}(0), {t}(0))'
    if t in ['roimg','woimg','rwimg']:
        o=f'{t}(geometry = 1d, width = 4, channel_type = float, channel_order = r)'
        return o if not arr else f'{t}[]({o}, {o})'
    if t=='samp':
        o='samp(coord = normalized, filter = linear, addressing = repeat)'
        return o if not arr else f'samp[]({o}, {o})'
    i=imm(t)
    if t=='b128': i='u64x2(1,2)'
    if not arr: return i
    if 'x' in t or t=='b128': return ('u64x2' if t=='b128' else t)+'[]('+i+', '+i+')'
    bt={'b8':'u8','b16':'u16','b32':'u32','b64':'u64'}.get(t,t)
    base=i if not bt.startswith('f') else imm(bt)
    return bt+'[]('+base+', '+base+')'


def fam_variables():
    lines = []
    for seg in ['global','readonly','group','private']:
      for t in VTYPES:
        for pre in ['','align(32) ','const ','alloc(agent) ','prog ','decl prog ','decl ','prog align(16) const ']:
          for arr in ['','[2]','[]']:
            for ini in [False,True]:
              if arr=='[]' and not ini: continue
              s=f'{pre}{seg}_{t} &v{arr}'
              if ini: s+=' = '+var_init(t, arr != '')
              lines.append(s+';')

    random.Random(7).shuffle(lines)
    return lines[:2500]


FAMILIES = {"mod": fam_mod, "cvt": fam_cvt, "imm_mov": fam_imm_mov,
            "imm_operand": fam_imm_operand, "cmp": fam_cmp,
            "memory": fam_memory, "atomic": fam_atomic, "image": fam_image,
            "misc": fam_misc, "variables": fam_variables}
TOPLEVEL = {"variables"}
DESCRIPTIONS = {
    "mod": "arithmetic instructions with ftz/rounding/packing modifiers",
    "cvt": "cvt destination/source types with rounding and ftz",
    "imm_mov": "mov with every literal form (integer bases, floats, typed "
               "and packed constants)",
    "imm_operand": "literal forms in operand positions with their own "
                   "immediate types",
    "cmp": "cmp operations over source/destination types (sampled)",
    "memory": "ld/st segments, types, alignment, const, equiv, width, "
              "vectors (sampled)",
    "atomic": "atomic/atomicnoret operations, segments, orders, scopes "
              "(sampled)",
    "image": "image instructions over geometries, types and queries",
    "misc": "source-type, lane, signal, segment, queue, fence and barrier "
            "instructions",
    "variables": "variable declarations: segments, types, qualifiers, "
                 "arrays, initializers (sampled)",
}


def accepted(hsailasm, line, tmp, toplevel):
    fd, path = tempfile.mkstemp(suffix=".hsail", dir=tmp)
    with os.fdopen(fd, "w") as f:
        f.write("module &m:1:0:$full:$large:$default;\nextension \"IMAGE\";\n")
        if toplevel:
            f.write(line + "\n")
        else:
            f.write("kernel &k()\n{\n\t" + line + "\n\tret;\n};\n")
    r = subprocess.run([hsailasm, path, "-o", path + ".brig"],
                       capture_output=True)
    for p in (path, path + ".brig"):
        if os.path.exists(p):
            os.remove(p)
    return r.returncode == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hsailasm", default="HSAILasm")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("families", nargs="*", default=sorted(FAMILIES))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for fam in a.families:
            lines = list(FAMILIES[fam]())
            with ThreadPoolExecutor(a.jobs) as ex:
                ok = list(ex.map(lambda l: accepted(a.hsailasm, l, tmp,
                                                    fam in TOPLEVEL), lines))
            keep = [l for l, k in zip(lines, ok) if k]
            name = "gen_" + fam
            out = os.path.join(CORPUS, name + ".hsail")
            with open(out, "w") as f:
                f.write(f"// Generated by tests/asm/gen_corpus.py from a sweep "
                        f"of {DESCRIPTIONS[fam]}:\n// every variant that "
                        f"HSAILasm accepts, one per line ({len(keep)} lines).\n")
                f.write(f"module &{name}:1:0:$full:$large:$default;\n")
                f.write("extension \"IMAGE\";\n\n")
                if fam in TOPLEVEL:
                    for i, l in enumerate(keep):  # one name per declaration
                        f.write(re.sub(r"&v\b", "&v%d" % i, l) + "\n")
                else:
                    f.write("kernel &k()\n{\n")
                    for l in keep:
                        f.write("\t" + l + "\n")
                    f.write("\tret;\n};\n")
            print(f"{fam}: {len(keep)} of {len(lines)} variants -> {out}")


if __name__ == "__main__":
    sys.exit(main())
