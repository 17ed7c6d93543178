#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seed corpus of the verifier fuzzer (selftests/fuzz/verify_fuzz.c)
into selftests/fuzz/verify-corpus/ and its dictionary, verify.dict.

Each seed is one submission in the fuzzer's input format: struct fuzz_input,
then descriptors, a CC program and a compute program.  Together they cover
every descriptor op, dtype and redop, every CC opcode and every compute
opcode, accepted and refused (foreign semaphores and rings, addresses
outside the buffers, bad fields).  Check the result in.

Usage: selftests/fuzz/make-verify-corpus.py [--help]
"""
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "verify-corpus")
DICT = os.path.join(HERE, "verify.dict")

# fuzz_input.flags and .model
DESCS, START, PROGRAM, TRIGGER, COMPUTE, DMA_ERROR, CC_HANG = 1, 2, 4, 8, 16, 32, 64
TIMED, IDEAL = 1, 2

# uAPI values (uapi/drm/ccore_accel.h)
COPY, REDUCE, SEM_WRITE, DIV = 1, 2, 3, 4
DTYPES = {"i8": (1, 1), "u8": (2, 1), "i32": (3, 4), "u32": (4, 4), "i64": (5, 8),
          "u64": (6, 8), "f16": (7, 2), "bf16": (8, 2), "f32": (9, 4), "f64": (10, 8)}
REDOPS = {"sum": 1, "prod": 2, "max": 3, "min": 4}
F_SIGNAL, F_SEM_SET = 1, 2
OPS = {"nop": 0, "halt": 1, "wait": 2, "acquire": 3, "set": 4, "add": 5, "start": 6,
       "rwait": 7, "jump": 8, "bge": 9, "movi": 10, "addi": 11, "loop": 12, "call": 13,
       "ret": 14, "next": 15, "notify": 16, "starti": 17}
CE = {"compute": 1, "dma": 2, "trigger": 3, "wait_sem": 4, "end": 5}
SEM_TRIGGER = 0xffffffff

# The fuzzer's context: buffers mapped from CCM_VM_BASE, a page between them
# (4096 on device 0, 4096 on 0, 100 bytes on 0, 4096 on device 1).
BUF = [0x100000000, 0x100002000, 0x100004000, 0x100006000]
BUF_SIZE = [4096, 4096, 100, 4096]


def sem(dev, core, idx):
    """The context owns indexes 0..7 of every core, another context 8..15."""
    return dev << 24 | core << 16 | idx


def header(flags, dev=0, core=0, cc=0, engine=0, ring=0, ce_engine=0, ce_ring=0, slots=16,
           packet_size=512, index_stride=0, index_count=0, seed=1, ndesc=0, ninsn=0,
           nce=0, trigger_count=1, model=0, pattern=b""):
    return struct.pack("<8BIIqII3HBBB15s", flags, dev, core, cc, engine, ring, ce_engine,
                       ce_ring, slots, packet_size, index_stride, index_count, seed,
                       ndesc, ninsn, nce, trigger_count, model, len(pattern), pattern)


def desc(op, dtype=0, redop=0, flags=0, signal_sem=0, signal_value=0, value=0, length=0,
         dst=0, src0=0, src1=0):
    return struct.pack("<4BIIIQQQQ", op, dtype, redop, flags, signal_sem, signal_value, value,
                       length, dst, src0, src1)


def insn(op, reg=0, engine=0, ring=0, sem_ref=0, imm=0, target=0):
    return struct.pack("<4BIIi", OPS[op], reg, engine, ring, sem_ref, imm, target)


def ce(op, flags=0, sem_ref=0, value=0, cc_core=0, duration_ns=0, length=0, dst=0, src=0):
    return struct.pack("<BBHIIIQQQQ", CE[op], flags, 0, sem_ref, value, cc_core, duration_ns,
                       length, dst, src)


def seed(flags, descs=(), insns=(), ces=(), **kw):
    return (header(flags, ndesc=len(descs), ninsn=len(insns), nce=len(ces), **kw) +
            b"".join(descs) + b"".join(insns) + b"".join(ces))


def run_ring(n, engine=0, ring=0):
    """A job that starts the ring's n descriptors and waits for them."""
    return [insn("start", engine=engine, ring=ring, imm=n), insn("rwait", engine=engine, ring=ring),
            insn("ret")]


# Values at the ends of every integer type, for REDUCE and DIV to meet.
EXTREMES = bytes([0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0xff, 0xff, 0xff, 0xff,
                  0x7f, 0x01, 0x00])


def seeds():
    out = {}
    # every descriptor op, dtype and redop, run by the host's START
    out["copy"] = seed(DESCS | START, [desc(COPY, length=4096, dst=BUF[1], src0=BUF[0])])
    out["copy_cross_device"] = seed(DESCS | START, [
        desc(COPY, length=4096, dst=BUF[3], src0=BUF[0], flags=F_SIGNAL,
             signal_sem=sem(0, 0, 0), signal_value=1)])
    out["copy_small_buffer_edge"] = seed(DESCS | START, [
        desc(COPY, length=50, dst=BUF[2] + 50, src0=BUF[2])])
    for name, (dt, size) in DTYPES.items():
        for rname, rop in REDOPS.items():
            out[f"reduce_{name}_{rname}"] = seed(DESCS | START, [
                desc(REDUCE, dt, rop, length=4096, dst=BUF[1], src0=BUF[0], src1=BUF[1])],
                pattern=EXTREMES)
        for d in (1, 3, 255, 256, 0x80000000):
            out[f"div_{name}_{d}"] = seed(DESCS | START, [
                desc(DIV, dt, value=d, length=4096, dst=BUF[1], src0=BUF[0])],
                pattern=EXTREMES)
    out["sem_write_add"] = seed(DESCS | START, [
        desc(SEM_WRITE, value=5, dst=sem(0, 0, 1), flags=F_SIGNAL, signal_sem=sem(0, 0, 2),
             signal_value=1)])
    out["sem_write_set_remote"] = seed(DESCS | START, [
        desc(SEM_WRITE, value=7, dst=sem(1, 1, 3), flags=F_SEM_SET)])
    out["ring_mixed_packets"] = seed(DESCS | START, [
        desc(COPY, length=4096, dst=BUF[1], src0=BUF[0]),
        desc(REDUCE, 9, 1, length=4096, dst=BUF[0], src0=BUF[0], src1=BUF[1]),
        desc(DIV, 9, value=2, length=4096, dst=BUF[0], src0=BUF[0]),
        desc(SEM_WRITE, value=1, dst=sem(0, 0, 0))], packet_size=1024)
    out["ring_one_slot"] = seed(DESCS | START, [
        desc(COPY, length=100, dst=BUF[2], src0=BUF[0])], slots=1, seed=7)
    # indexed rings: STARTI displaces by index * stride
    out["indexed_starti"] = seed(DESCS | PROGRAM | TRIGGER, [
        desc(COPY, length=64, dst=BUF[1], src0=BUF[0])], [
        insn("movi", reg=0, imm=0), insn("movi", reg=1, imm=4),
        insn("starti", reg=0, imm=1), insn("rwait"), insn("addi", reg=0, imm=1),
        insn("loop", reg=1, target=-3), insn("ret")],
        index_stride=1024, index_count=4)
    out["indexed_negative_stride"] = seed(DESCS | PROGRAM | TRIGGER, [
        desc(REDUCE, 3, 1, length=64, dst=BUF[1] + 4000, src0=BUF[0] + 4000,
             src1=BUF[1] + 4000)], [
        insn("movi", reg=2, imm=3), insn("starti", reg=2, imm=1), insn("rwait"), insn("ret")],
        index_stride=-1000, index_count=4)
    # every CC opcode in jobs
    s0, s1 = sem(0, 0, 0), sem(0, 0, 1)
    out["cc_sems"] = seed(PROGRAM | TRIGGER, insns=[
        insn("set", sem_ref=s0, imm=3), insn("add", sem_ref=s0, imm=2),
        insn("wait", sem_ref=s0, imm=5), insn("acquire", sem_ref=s0, imm=4),
        insn("bge", sem_ref=s0, imm=1, target=2), insn("halt"),
        insn("add", sem_ref=sem(1, 0, 0), imm=1), insn("set", sem_ref=SEM_TRIGGER, imm=0),
        insn("notify", imm=42), insn("nop"), insn("ret")])
    out["cc_loop_call"] = seed(PROGRAM | TRIGGER, insns=[
        insn("movi", reg=3, imm=5), insn("call", target=3), insn("loop", reg=3, target=-1),
        insn("jump", target=2), insn("addi", reg=4, imm=0xffffffff), insn("ret"),
        insn("ret")])
    out["cc_start_ring"] = seed(DESCS | PROGRAM | TRIGGER, [
        desc(COPY, length=4096, dst=BUF[1], src0=BUF[0]),
        desc(DIV, 1, value=256, length=4096, dst=BUF[1], src0=BUF[1])], run_ring(2))
    # a START laps a ring of fewer descriptors; a job that restarts it forever
    out["cc_start_laps"] = seed(DESCS | PROGRAM | TRIGGER, [
        desc(DIV, 2, value=512, length=64, dst=BUF[0], src0=BUF[0]),
        desc(SEM_WRITE, value=1, dst=sem(0, 0, 5))],
        [insn("start", imm=16), insn("jump", target=-1)])
    out["cc_wait_trigger"] = seed(PROGRAM | TRIGGER, insns=[
        insn("acquire", sem_ref=SEM_TRIGGER, imm=1), insn("ret")], trigger_count=2)
    out["cc_spin"] = seed(PROGRAM | TRIGGER, insns=[insn("jump", target=0)])
    out["cc_hang"] = seed(PROGRAM | TRIGGER | CC_HANG, insns=[insn("ret")])
    out["cc_call_overflow"] = seed(PROGRAM | TRIGGER, insns=[insn("call", target=0)] +
                                   [insn("ret")])
    out["cc_other_core"] = seed(PROGRAM | TRIGGER, insns=[
        insn("wait", sem_ref=sem(1, 1, 0), imm=0), insn("ret")], dev=1, core=1, cc=1)
    out["dma_error"] = seed(DESCS | PROGRAM | TRIGGER | DMA_ERROR, [
        desc(COPY, length=64, dst=BUF[1], src0=BUF[0])], run_ring(1))
    # refused: NEXT, foreign semaphore and ring, bad fields, outside buffers
    out["bad_next"] = seed(PROGRAM | TRIGGER, insns=[insn("next"), insn("ret")])
    out["bad_foreign_sem"] = seed(PROGRAM | TRIGGER, insns=[
        insn("add", sem_ref=sem(0, 0, 8), imm=1), insn("ret")])
    out["bad_foreign_ring"] = seed(PROGRAM | TRIGGER, insns=[
        insn("start", engine=1, ring=3, imm=1), insn("ret")])
    out["bad_branch"] = seed(PROGRAM | TRIGGER, insns=[insn("jump", target=-1)])
    out["bad_falls_off"] = seed(PROGRAM | TRIGGER, insns=[insn("nop")])
    out["bad_unused_field"] = seed(PROGRAM | TRIGGER, insns=[insn("ret", imm=1)])
    out["bad_desc_outside"] = seed(DESCS | START, [
        desc(COPY, length=101, dst=BUF[2], src0=BUF[0])])
    out["bad_desc_span"] = seed(DESCS | START, [
        desc(COPY, length=64, dst=BUF[1] + 4000, src0=BUF[0])], index_stride=64,
        index_count=2)
    out["bad_div_zero"] = seed(DESCS | START, [
        desc(DIV, 3, value=0, length=64, dst=BUF[1], src0=BUF[0])])
    out["bad_reduce_len"] = seed(DESCS | START, [
        desc(REDUCE, 5, 1, length=12, dst=BUF[1], src0=BUF[0], src1=BUF[1])])
    out["bad_sem_write_foreign"] = seed(DESCS | START, [
        desc(SEM_WRITE, value=1, dst=sem(0, 0, 9))])
    # compute programs: every opcode
    out["compute_all"] = seed(COMPUTE, ces=[
        ce("compute", duration_ns=1000),
        ce("dma", flags=1, sem_ref=sem(0, 0, 4), value=1, length=4096, dst=BUF[1], src=BUF[0]),
        ce("wait_sem", sem_ref=sem(0, 0, 4), value=1), ce("trigger", cc_core=1),
        ce("dma", length=100, dst=BUF[2], src=BUF[3]), ce("end")], ce_engine=1, ce_ring=1)
    out["compute_triggers_job"] = seed(PROGRAM | COMPUTE, insns=[
        insn("add", sem_ref=sem(0, 1, 2), imm=1), insn("ret")], ces=[
        ce("trigger", cc_core=2), ce("wait_sem", sem_ref=sem(0, 1, 2), value=1), ce("end")],
        core=1)
    out["compute_dma_on_ring"] = seed(DESCS | COMPUTE, [
        desc(COPY, length=64, dst=BUF[1], src0=BUF[0])], ces=[
        ce("dma", length=64, dst=BUF[0], src=BUF[1]), ce("end")])
    out["compute_dma_error"] = seed(COMPUTE | DMA_ERROR, ces=[
        ce("dma", length=64, dst=BUF[0], src=BUF[1]), ce("end")], ce_engine=0, ce_ring=2)
    out["bad_compute_foreign_ring"] = seed(COMPUTE, ces=[
        ce("dma", length=64, dst=BUF[0], src=BUF[1]), ce("end")], ce_engine=1, ce_ring=3)
    out["bad_compute_trigger"] = seed(COMPUTE, ces=[ce("trigger", cc_core=3), ce("end")])
    out["bad_compute_duration"] = seed(COMPUTE, ces=[
        ce("compute", duration_ns=3600000000001), ce("end")])
    # the timed model (and its ideal setting) runs a few of them its own way
    for name in ("cc_start_ring", "indexed_starti", "compute_all", "ring_mixed_packets",
                 "dma_error", "compute_dma_error"):
        for model, suffix in ((TIMED, "timed"), (TIMED | IDEAL, "ideal")):
            data = bytearray(out[name])
            data[39] = model
            out[f"{name}_{suffix}"] = bytes(data)
    return out


DICT_ENTRIES = [
    ("va_buf%d" % i, struct.pack("<Q", va)) for i, va in enumerate(BUF)
] + [
    ("va_buf%d_end" % i, struct.pack("<Q", va + size)) for i, (va, size) in
    enumerate(zip(BUF, BUF_SIZE))
] + [
    ("sem_own", struct.pack("<I", sem(0, 0, 0))), ("sem_own_1_1", struct.pack("<I", sem(1, 1, 0))),
    ("sem_other", struct.pack("<I", sem(0, 0, 8))), ("sem_trigger", struct.pack("<I", SEM_TRIGGER)),
    ("div_256", struct.pack("<I", 256)), ("div_max", struct.pack("<I", 0x80000000)),
    ("u32_max", struct.pack("<I", 0xffffffff)), ("len_4096", struct.pack("<Q", 4096)),
    ("stride_max", struct.pack("<q", 1 << 39)), ("stride_min", struct.pack("<q", -(1 << 39))),
    ("index_count_max", struct.pack("<I", 1 << 24)),
]


def main():
    if len(sys.argv) > 1:
        print(__doc__.strip())
        return 0 if sys.argv[1] in ("-h", "--help") else 2
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    corpus = seeds()
    for name, data in sorted(corpus.items()):
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    with open(DICT, "w") as f:
        f.write("# Written by make-verify-corpus.py: the verifier fuzzer's VAs, semaphores and\n"
                "# limits, little-endian.\n")
        for name, data in DICT_ENTRIES:
            f.write('%s="%s"\n' % (name, "".join("\\x%02x" % b for b in data)))
    print("%d corpus files" % len(corpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
