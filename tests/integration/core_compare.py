#!/usr/bin/env python3
"""core_compare.py - compare corral's core of a crash with the kernel's own.

    core_compare.py OURS KERNEL ADDR
    core_compare.py OURS KERNEL FILE+OFF   (OFF from `nm FILE`: the address
                                            is where NT_FILE maps FILE at 0)

Checks (x86-64 ELF cores, docs/cores.md):
  - both are ET_CORE; the same threads (the pr_pid of every NT_PRSTATUS);
  - the first NT_PRSTATUS (the crashing thread) has the same pid, signal
    and general registers in both;
  - the PT_LOAD segment holding ADDR (hex) has the same vaddr, size and
    bytes in both, and is dumped (p_filesz > 0);
  - the same notes (name and type, as many of each); NT_SIGINFO, NT_AUXV
    and NT_X86_XSAVE_LAYOUT have the same bytes when both have them.
Prints one line per problem and exits 1 if any; "ok ..." otherwise.
Also prints (informational) how many common dumped segments differ.
"""
import struct
import sys

NT_PRSTATUS, NT_AUXV, NT_SIGINFO = 1, 6, 0x53494749


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise SystemExit(f"{path}: not a 64-bit ELF file")
    e_type, = struct.unpack_from("<H", data, 16)
    e_phoff, = struct.unpack_from("<Q", data, 32)
    e_phentsize, e_phnum = struct.unpack_from("<HH", data, 54)
    phdrs, notes = [], []
    for i in range(e_phnum):
        p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align = \
            struct.unpack_from("<IIQQQQQQ", data, e_phoff + i * e_phentsize)
        phdrs.append((p_type, p_offset, p_vaddr, p_filesz, p_memsz))
        if p_type == 4:  # PT_NOTE
            off, end = p_offset, p_offset + p_filesz
            while off + 12 <= end:
                namesz, descsz, ntype = struct.unpack_from("<III", data, off)
                off += 12
                name = data[off:off + namesz].rstrip(b"\0").decode()
                off += (namesz + 3) & ~3
                desc = data[off:off + descsz]
                off += (descsz + 3) & ~3
                notes.append((name, ntype, desc))
    return data, e_type, phdrs, notes


def prstatus(desc):
    signo, = struct.unpack_from("<i", desc, 0)
    cursig, = struct.unpack_from("<h", desc, 12)
    pid, = struct.unpack_from("<i", desc, 32)
    regs = struct.unpack_from("<27Q", desc, 112)
    return pid, signo, cursig, regs


def file_base(c, fname):
    for n, t, d in c[3]:
        if t != 0x46494c45:  # NT_FILE
            continue
        count, page = struct.unpack_from("<QQ", d, 0)
        ents = [struct.unpack_from("<QQQ", d, 16 + 24 * i) for i in range(count)]
        names = d[16 + 24 * count:].split(b"\0")
        for (start, end, pgoff), name in zip(ents, names):
            if name.decode(errors="replace") == fname and pgoff == 0:
                return start
    return None


REGS = ("r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax "
        "rip cs eflags rsp ss fs_base gs_base ds es fs gs").split()


def main():
    ours_p, kern_p, where = sys.argv[1], sys.argv[2], sys.argv[3]
    bad = []
    ours, kern = load(ours_p), load(kern_p)
    if "+" in where:
        fname, off = where.rsplit("+", 1)
        addr = file_base(kern, fname)
        if addr is None:
            raise SystemExit(f"{fname}: not in the kernel core's NT_FILE")
        addr += int(off, 16)
    else:
        addr = int(where, 16)
    for name, c in (("ours", ours), ("kernel", kern)):
        if c[1] != 4:
            bad.append(f"{name}: e_type {c[1]}, not ET_CORE")
    st_o = [prstatus(d) for n, t, d in ours[3] if t == NT_PRSTATUS and n == "CORE"]
    st_k = [prstatus(d) for n, t, d in kern[3] if t == NT_PRSTATUS and n == "CORE"]
    if sorted(s[0] for s in st_o) != sorted(s[0] for s in st_k):
        bad.append(f"threads differ: ours {sorted(s[0] for s in st_o)}, "
                   f"kernel {sorted(s[0] for s in st_k)}")
    if st_o and st_k:
        o, k = st_o[0], st_k[0]
        if o[0] != k[0]:
            bad.append(f"first thread: ours {o[0]}, kernel {k[0]}")
        if (o[1], o[2]) != (k[1], k[2]):
            bad.append(f"signal: ours {o[1:3]}, kernel {k[1:3]}")
        for i, r in enumerate(REGS):
            if o[3][i] != k[3][i]:
                bad.append(f"crashing thread's {r}: ours {o[3][i]:#x}, kernel {k[3][i]:#x}")
    else:
        bad.append("no NT_PRSTATUS")
    # the same notes, in the same order (threads aside: their order after
    # the first may differ)
    # (NT_X86_XSAVE_LAYOUT only when the kernel writes it: Linux 6.11+)
    kk = [(n, t) for n, t, d in kern[3]]
    ko = [(n, t) for n, t, d in ours[3] if t != 0x205 or ("LINUX", 0x205) in kk]
    if sorted(ko) != sorted(kk):
        bad.append(f"notes differ: ours {sorted(set(ko) ^ set(kk))} not in both, "
                   f"counts {len(ko)} vs {len(kk)}")
    for ntype, label in ((NT_SIGINFO, "NT_SIGINFO"), (NT_AUXV, "NT_AUXV"),
                         (0x205, "NT_X86_XSAVE_LAYOUT")):
        do = [d for n, t, d in ours[3] if t == ntype]
        dk = [d for n, t, d in kern[3] if t == ntype]
        if do and dk and do[0] != dk[0]:
            bad.append(f"{label} differs")
        if not do and ntype != 0x205:
            bad.append(f"ours has no {label}")

    def seg(c, a):
        for p in c[2]:
            if p[0] == 1 and p[2] <= a < p[2] + p[4]:
                return p
        return None

    so, sk = seg(ours, addr), seg(kern, addr)
    if not so or not sk:
        bad.append(f"no PT_LOAD holds {addr:#x}: ours {so}, kernel {sk}")
    else:
        if (so[2], so[4], so[3]) != (sk[2], sk[4], sk[3]):
            bad.append(f"segment at {addr:#x}: ours vaddr/memsz/filesz {so[2]:#x}/{so[4]}/{so[3]}, "
                       f"kernel {sk[2]:#x}/{sk[4]}/{sk[3]}")
        if not so[3]:
            bad.append(f"segment at {addr:#x} not dumped")
        bo = ours[0][so[1]:so[1] + so[3]]
        bk = kern[0][sk[1]:sk[1] + sk[3]]
        if bo != bk:
            bad.append(f"segment at {addr:#x}: contents differ")
    # informational: every segment both dumped
    kl = {p[2]: p for p in kern[2] if p[0] == 1}
    same = differ = 0
    for p in ours[2]:
        q = kl.get(p[2])
        if p[0] != 1 or not q or not p[3] or p[3] != q[3]:
            continue
        if ours[0][p[1]:p[1] + p[3]] == kern[0][q[1]:q[1] + q[3]]:
            same += 1
        else:
            differ += 1
    for b in bad:
        print(b)
    if bad:
        return 1
    print(f"ok: {len(st_o)} threads, first {st_o[0][0]}, registers equal, "
          f"segment {so[2]:#x} ({so[3]} bytes) equal; "
          f"{same} common segments equal, {differ} differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
