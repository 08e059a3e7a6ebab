#!/usr/bin/env python3
"""Regenerate the binary seed corpora of the fuzz targets (tests/fuzz/corpus/NAME/).

    python3 tests/fuzz/mkseeds.py [LUAJIT_OPENRESTY [LUAJIT_UPSTREAM]]

Writes (the text corpora, procmaps, kallsyms, folded and perfmap, are hand-written):

  lua_detect/  minimal ELF images cut out of real LuaJIT binaries (default:
               /usr/bin/luajit and .deps/luajit-upstream/usr/bin/luajit): the VM
               code, its .eh_frame entries (re-encoded), lj_bc_ofs[] and the
               version string, with or without section headers, exports, .symtab.
               ~20 KB each instead of ~600 KB.
  ehframe/     .eh_frame/.debug_frame sections with fuzz_ehframe's 5-byte header:
               /usr/bin/true's, a small program's .debug_frame, the LuaJIT VM's.
  debuglink/   fuzz_debuglink inputs: small stripped programs with a build-id
               and a .gnu_debuglink, their separate debug files (gcc, objcopy).
  luaproto/    fuzz_luaproto inputs: fake GCprotos, strings and a trace laid out
               as lj_parse does (as tests/unit/test_luanames.c builds them).

Needs python3, gcc and binutils. Deterministic for the same tools and binaries.
"""

import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")


def put(name, data):
    path = os.path.join(CORPUS, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    print("%-40s %6d bytes" % (name, len(data)))


def align(n, a):
    return (n + a - 1) // a * a


# -- ELF reading --------------------------------------------------------------

class Elf:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.b = f.read()
        b = self.b
        assert b[:4] == b"\x7fELF" and b[4] == 2 and b[5] == 1, path
        (self.shoff,) = struct.unpack_from("<Q", b, 0x28)
        self.shentsize, self.shnum, self.shstrndx = struct.unpack_from("<HHH", b, 0x3A)
        self.secs = []
        for i in range(self.shnum):
            f = struct.unpack_from("<IIQQQQIIQQ", b, self.shoff + i * 64)
            self.secs.append(dict(name_off=f[0], type=f[1], flags=f[2], addr=f[3],
                                  offset=f[4], size=f[5], link=f[6], info=f[7],
                                  align=f[8], entsize=f[9]))
        strtab = self.secs[self.shstrndx]
        for s in self.secs:
            o = strtab["offset"] + s["name_off"]
            s["name"] = b[o:b.index(b"\0", o)].decode()

    def sec(self, name):
        for s in self.secs:
            if s["name"] == name:
                return s
        return None

    def data(self, s):
        return self.b[s["offset"]:s["offset"] + s["size"]]

    def vread(self, vaddr, n):
        for s in self.secs:
            if s["type"] != 8 and s["addr"] <= vaddr and vaddr + n <= s["addr"] + s["size"]:
                o = s["offset"] + vaddr - s["addr"]
                return self.b[o:o + n]
        raise KeyError(hex(vaddr))


# -- DWARF CFI ----------------------------------------------------------------

def uleb(b, o):
    v = s = 0
    while True:
        c = b[o]
        o += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, o


def ptr_size(enc):
    return {0x00: 8, 0x03: 4, 0x0B: 4, 0x04: 8, 0x0C: 8, 0x02: 2, 0x0A: 2}[enc & 0x0F]


def read_ptr(b, o, enc, field_vaddr):
    fmt = {0x00: "<Q", 0x03: "<I", 0x0B: "<i", 0x04: "<Q", 0x0C: "<q",
           0x02: "<H", 0x0A: "<h"}[enc & 0x0F]
    (v,) = struct.unpack_from(fmt, b, o)
    if enc & 0x70 == 0x10:
        v += field_vaddr
    return v & (2**64 - 1)


def write_ptr(b, o, enc, field_vaddr, value):
    fmt = {0x00: "<Q", 0x03: "<I", 0x0B: "<i", 0x04: "<Q", 0x0C: "<q"}[enc & 0x0F]
    if enc & 0x70 == 0x10:
        value -= field_vaddr
    if fmt in ("<I", "<Q"):
        value &= (2 ** (8 * struct.calcsize(fmt))) - 1
    struct.pack_into(fmt, b, o, value)


def parse_eh(b, vaddr):
    """The CIEs (by offset) and FDEs of an .eh_frame section."""
    cies, fdes, o = {}, [], 0
    while o + 4 <= len(b):
        (ln,) = struct.unpack_from("<I", b, o)
        if ln == 0:
            break
        assert ln != 0xFFFFFFFF, "64-bit CFI"
        (cid,) = struct.unpack_from("<I", b, o + 4)
        raw = b[o:o + 4 + ln]
        if cid == 0:
            p = o + 9
            aug = b[p:b.index(b"\0", p)].decode()
            p += len(aug) + 1
            _, p = uleb(b, p)          # code alignment
            _, p = uleb(b, p)          # data alignment (sleb, skipped the same way)
            _, p = uleb(b, p)          # return address register
            enc, penc, ppos = 0, None, None
            if aug.startswith("z"):
                _, p = uleb(b, p)
                for ch in aug[1:]:
                    if ch == "R":
                        enc = b[p]
                        p += 1
                    elif ch == "P":
                        penc, ppos = b[p], p + 1 - o
                        p += 1 + ptr_size(b[p])
                    elif ch == "L":
                        p += 1
            cies[o] = dict(off=o, raw=raw, enc=enc, aug=aug, penc=penc, ppos=ppos)
        else:
            cie = cies[o + 4 - cid]
            lo = read_ptr(b, o + 8, cie["enc"], vaddr + o + 8)
            n = ptr_size(cie["enc"])
            rng = read_ptr(b, o + 8 + n, cie["enc"] & 0x0F, 0)
            p = o + 8 + 2 * n
            if cie["aug"].startswith("z"):
                al, p = uleb(b, p)
                p += al
            fdes.append(dict(off=o, raw=raw, cie=cie, lo=lo, hi=lo + rng, insns=b[p:o + 4 + ln]))
        o += 4 + ln
    return cies, fdes


def build_eh(fdes, vaddr, old_vaddr):
    """A new .eh_frame at vaddr with the given FDEs and their CIEs; (bytes, [(lo, fde vaddr)])."""
    out, at, table = bytearray(), {}, []
    for f in fdes:
        c = f["cie"]
        if c["off"] not in at:
            at[c["off"]] = len(out)
            raw = bytearray(c["raw"])
            if c["penc"] is not None and c["penc"] & 0x70 == 0x10:
                target = read_ptr(c["raw"], c["ppos"], c["penc"], old_vaddr + c["off"] + c["ppos"])
                write_ptr(raw, c["ppos"], c["penc"], vaddr + len(out) + c["ppos"], target)
            out += raw
        raw = bytearray(f["raw"])
        struct.pack_into("<I", raw, 4, len(out) + 4 - at[c["off"]])
        write_ptr(raw, 8, c["enc"], vaddr + len(out) + 8, f["lo"])
        table.append((f["lo"], vaddr + len(out)))
        out += raw
    out += b"\0\0\0\0"
    return bytes(out), table


def build_eh_hdr(hdr_vaddr, eh_vaddr, table):
    """.eh_frame_hdr: version 1, pcrel sdata4 eh_frame_ptr, udata4 count, datarel sdata4 table."""
    b = bytearray(struct.pack("<BBBB", 1, 0x1B, 0x03, 0x3B))
    b += struct.pack("<i", eh_vaddr - (hdr_vaddr + 4))
    b += struct.pack("<I", len(table))
    for lo, fde in sorted(table):
        b += struct.pack("<ii", lo - hdr_vaddr, fde - hdr_vaddr)
    return bytes(b)


# -- ELF writing ----------------------------------------------------------------

def write_elf(secs, loads, extra_phdrs=(), shdrs=True, e_type=3):
    """secs: dicts name, type, flags, addr, data, align, link, info, entsize (file order).
    loads: (flags, first section name, last section name) PT_LOADs over those sections.
    extra_phdrs: (p_type, p_flags, section name) headers covering one section."""
    nph = len(loads) + len(extra_phdrs)
    off = 64 + 56 * nph
    for s in secs:
        off = align(off, max(s.get("align", 1), 1))
        s["offset"] = off
        off += len(s["data"])
    names = bytearray(b"\0")
    all_secs = list(secs)
    if shdrs:
        shstr = dict(name=".shstrtab", type=3, flags=0, addr=0, data=b"", align=1)
        all_secs.append(shstr)
        for s in all_secs:
            s["name_off"] = len(names)
            names += s["name"].encode() + b"\0"
        shstr["data"] = bytes(names)
        shstr["offset"] = off
        off += len(names)
    shoff = align(off, 8) if shdrs else 0
    index = {s["name"]: i + 1 for i, s in enumerate(all_secs)}
    img = bytearray(shoff + 64 * (len(all_secs) + 1) if shdrs else off)
    eh = bytearray(64)
    eh[0:16] = b"\x7fELF\x02\x01\x01" + b"\0" * 9
    struct.pack_into("<HHIQQQIHHHHHH", eh, 16, e_type, 62, 1, 0, 64, shoff, 0, 64, 56, nph,
                     64 if shdrs else 0, len(all_secs) + 1 if shdrs else 0,
                     index[".shstrtab"] if shdrs else 0)
    img[0:64] = eh
    by = {s["name"]: s for s in all_secs}
    ph = 64
    for flags, first, last in loads:
        a, z = by[first], by[last]
        size = z["offset"] + len(z["data"]) - a["offset"]
        struct.pack_into("<IIQQQQQQ", img, ph, 1, flags, a["offset"], a["addr"], a["addr"],
                         size, size, 16)
        ph += 56
    for p_type, flags, name in extra_phdrs:
        s = by[name]
        struct.pack_into("<IIQQQQQQ", img, ph, p_type, flags, s["offset"], s["addr"],
                         s["addr"], len(s["data"]), len(s["data"]), 4)
        ph += 56
    for s in all_secs:
        img[s["offset"]:s["offset"] + len(s["data"])] = s["data"]
    if shdrs:
        for i, s in enumerate(all_secs):
            link = s.get("link", 0)
            if isinstance(link, str):
                link = index[link]
            struct.pack_into("<IIQQQQIIQQ", img, shoff + 64 * (i + 1), s["name_off"], s["type"],
                             s["flags"], s["addr"], s["offset"], len(s["data"]), link,
                             s.get("info", 0), s.get("align", 1), s.get("entsize", 0))
    return bytes(img)


def symtab(syms, shndx):
    """An Elf64_Sym table and its string table for (name, value, size) functions."""
    tab, strs = bytearray(24), bytearray(b"\0")
    for name, value, size in syms:
        tab += struct.pack("<IBBHQQ", len(strs), 0x12, 0, shndx, value, size)
        strs += name.encode() + b"\0"
    return bytes(tab), bytes(strs)


# -- lua_detect -----------------------------------------------------------------

def find_bc_ofs(rod, vm_len):
    """Offset in rod of the lj_bc_ofs[] candidate: 0, then a rising run below vm_len."""
    for i in range(0, len(rod) - 400, 2):
        if rod[i] or rod[i + 1] or not (rod[i + 2] | rod[i + 3]):
            continue
        v = struct.unpack_from("<90H", rod, i)
        if all(v[k] <= v[k + 1] < vm_len for k in range(89)):
            return i
    raise ValueError("no lj_bc_ofs[]")


def luajit_min(path):
    """The pieces of a LuaJIT binary that detection reads."""
    e = Elf(path)
    ehs = e.sec(".eh_frame")
    _, fdes = parse_eh(e.data(ehs), ehs["addr"])
    vm = [f for f in fdes if f["insns"][:2] == b"\x0e\x50" and f["hi"] - f["lo"] > 4096]
    assert len(vm) == 1, "VM FDE"
    vm = vm[0]
    ffi = [f for f in fdes if f["lo"] == vm["hi"]]
    lo, hi = vm["lo"], (ffi[0]["hi"] if ffi else vm["hi"])
    rod = e.data(e.sec(".rodata"))
    bo = find_bc_ofs(rod, vm["hi"] - vm["lo"])
    v = rod.index(b"LuaJIT 2.")
    version = rod[v:rod.index(b"\0", v) + 1]
    return dict(code=e.vread(lo, hi - lo), lo=lo, hi=hi, vm=vm, fdes=[vm] + ffi[:1],
                eh_vaddr=ehs["addr"], bc_ofs=rod[bo:bo + 2 * 220], version=version)


def lua_detect_seed(m, shdrs=True, exports=(), symbols=False, jitless=False):
    code_at = m["lo"] & ~0xF
    code = m["code"]
    pad = m["lo"] - code_at
    text = dict(name=".text", type=1, flags=6, addr=code_at, data=b"\xcc" * pad + code, align=16)
    r_at = align(m["hi"], 0x1000) + 0x1000
    rodata = dict(name=".rodata", type=1, flags=2, addr=r_at, data=m["bc_ofs"], align=32)
    strs = dict(name=".rodata.str1.1", type=1, flags=0x32, addr=r_at + len(m["bc_ofs"]),
                data=m["version"], align=1)
    hdr_at = align(strs["addr"] + len(strs["data"]), 4)
    nf = len(m["fdes"])
    hdr_len = 12 + 8 * nf
    eh_at = align(hdr_at + hdr_len, 8)
    eh, table = build_eh(m["fdes"], eh_at, m["eh_vaddr"])
    ehhdr = dict(name=".eh_frame_hdr", type=1, flags=2, addr=hdr_at,
                 data=build_eh_hdr(hdr_at, eh_at, table), align=4)
    ehs = dict(name=".eh_frame", type=1, flags=2, addr=eh_at, data=eh, align=8)
    secs = [text, rodata, strs, ehhdr, ehs]
    # One R segment: its sections back to back in the file as in memory (padded).
    for s in (rodata, strs, ehhdr, ehs):
        s["align"] = 1
    strs["data"] += b"\0" * (hdr_at - (strs["addr"] + len(strs["data"])))
    ehhdr["data"] += b"\0" * (eh_at - (hdr_at + hdr_len))
    if exports:
        tab, st = symtab([(n, m["lo"] + 16 * i, 5) for i, n in enumerate(exports)], 1)
        secs += [dict(name=".dynsym", type=11, flags=2, addr=0, data=tab, align=8,
                      link=".dynstr", info=1, entsize=24),
                 dict(name=".dynstr", type=3, flags=2, addr=0, data=st, align=1)]
    if symbols:
        syms = [("lj_vm_asm_begin", m["lo"], 0)]
        if len(m["fdes"]) > 1:
            syms.append(("lj_vm_ffi_call", m["hi"] - (m["fdes"][1]["hi"] - m["fdes"][1]["lo"]), 0))
        tab, st = symtab(syms, 1)
        secs += [dict(name=".symtab", type=2, flags=0, addr=0, data=tab, align=8,
                      link=".strtab", info=1, entsize=24),
                 dict(name=".strtab", type=3, flags=0, addr=0, data=st, align=1)]
    return write_elf(secs, [(5, ".text", ".text"), (4, ".rodata", ".eh_frame")],
                     [(0x6474E550, 4, ".eh_frame_hdr")], shdrs=shdrs)


def gen_lua_detect(openresty, upstream):
    vm = None
    if openresty and os.path.exists(openresty):
        m = luajit_min(openresty)
        vm = m
        put("lua_detect/openresty_min", lua_detect_seed(
            m, exports=("lua_setexdata", "lua_getexdata", "luaJIT_version_2_1_0_beta3")))
        put("lua_detect/openresty_noshdr", lua_detect_seed(m, shdrs=False))
    if upstream and os.path.exists(upstream):
        m = luajit_min(upstream)
        vm = vm or m
        put("lua_detect/upstream_min", lua_detect_seed(m))
        put("lua_detect/upstream_symtab", lua_detect_seed(m, symbols=True))
    return vm


# -- ehframe --------------------------------------------------------------------

def eh_input(flags, vaddr, data):
    return struct.pack("<BI", flags, vaddr & 0xFFFFFFFF) + data


def gen_ehframe(tmp, vm):
    e = Elf("/usr/bin/true")
    s = e.sec(".eh_frame")
    put("ehframe/true_eh_frame", eh_input(1, s["addr"], e.data(s)))
    # bit 1, split at 32/64: the second half read as .debug_frame (overlaps, garbage)
    put("ehframe/true_split", eh_input(1 | 2 | 32 << 2, s["addr"], e.data(s)))
    src = os.path.join(tmp, "df.c")
    with open(src, "w") as f:
        f.write("int g(int x) { return x * 7; }\n"
                "int f(int x) { int a[16]; for (int i = 0; i < 16; i++) a[i] = g(x + i);\n"
                "  return a[x & 15]; }\n"
                "int main(int c, char **v) { (void)v; return f(c); }\n")
    exe = os.path.join(tmp, "df")
    subprocess.run(["gcc", "-O1", "-g", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables",
                    "-fno-omit-frame-pointer", src, "-o", exe], check=True)
    d = Elf(exe)
    s = d.sec(".debug_frame")
    put("ehframe/debug_frame", eh_input(0, 0x1000, d.data(s)))
    if vm:
        eh, _ = build_eh(vm["fdes"], 0x20000, vm["eh_vaddr"])
        put("ehframe/luajit_vm", eh_input(1, 0x20000, eh))


# -- debuglink ------------------------------------------------------------------

TINY = r"""
int helper(int x) { return x * 3 + 1; }
int twice(int x) { return helper(helper(x)); }
void _start(void)
{
	volatile int r = twice(2);
	(void)r;
	__asm__ volatile ("mov $60, %eax; xor %edi, %edi; syscall");
}
"""

TINY_LIB = r"""
int lib_helper(int x) { return x * 5 + 2; }
int lib_entry(int x) { return lib_helper(x) + lib_helper(x + 1); }
"""


def dl_input(flags, off, path, rt, dbg=b""):
    return struct.pack("<BHI", flags, off, len(rt) if dbg else 0) + path + b"\0" + rt + dbg


def text_off(path):
    """File offset of .text: the lookup lands in a PT_LOAD there."""
    return Elf(path).sec(".text")["offset"]


def gen_debuglink(tmp):
    def build(name, src, extra):
        c = os.path.join(tmp, name + ".c")
        with open(c, "w") as f:
            f.write(src)
        full = os.path.join(tmp, name)
        subprocess.run(["gcc", "-O1", "-g", "-nostdlib", "-ffile-prefix-map=%s=/src" % tmp,
                        "-Wl,-n", "-Wl,-z,noseparate-code", "-Wl,-z,norelro",
                        "-Wl,--no-warn-rwx-segments", c, "-o", full] + extra, check=True)
        dbg = full + ".debug"
        subprocess.run(["objcopy", "--only-keep-debug", "--compress-debug-sections=zlib",
                        full, dbg], check=True)
        rt = full + ".rt"
        subprocess.run(["objcopy", "--strip-all", "--add-gnu-debuglink=" + dbg, full, rt],
                       check=True)
        with open(rt, "rb") as f, open(dbg, "rb") as g:
            return f.read(), g.read(), text_off(rt)

    rt, dbg, off = build("prog", TINY, ["-static", "-fno-pie", "-no-pie", "-Wl,--build-id"])
    put("debuglink/exe_by_id", dl_input(0, off, b"/usr/bin/prog", rt, dbg))
    put("debuglink/exe_by_link", dl_input(4, off, b"/usr/bin/prog", rt, dbg))
    put("debuglink/exe_no_debug_root", dl_input(1, off, b"/opt/app/bin/prog (deleted)", rt))
    lib, ldbg, loff = build("lib", TINY_LIB, ["-shared", "-fPIC", "-Wl,--build-id=sha1"])
    put("debuglink/lib_by_link", dl_input(4 | 2, loff, b"/usr/lib/x86_64-linux-gnu/libx.so.1",
                                          lib, ldbg))
    nid, ndbg, noff = build("noid", TINY_LIB, ["-shared", "-fPIC", "-Wl,--build-id=none"])
    put("debuglink/lib_no_build_id", dl_input(3 | 8, noff, b"/d/libnoid.so", nid, ndbg))


# -- luaproto -------------------------------------------------------------------

MEM_BASE = 0x10000000
BC = dict(MOV=18, KSHORT=41, UGET=45, USETV=46, FNEW=51, GGET=54, GSET=55, TGETS=57,
          TSETS=61, CALLM=65, CALL=66, RET0=75, RET1=76, JMP=88)
FUNCF = 89  # LVM_BC__COMMON: a function header


def ad(op, a, d):
    return BC[op] | a << 8 | d << 16


def abc(op, a, b, c):
    return BC[op] | a << 8 | c << 16 | b << 24


class Mem:
    def __init__(self, size):
        self.m = bytearray(size)

    def u32(self, off, v):
        struct.pack_into("<I", self.m, off, v & 0xFFFFFFFF)

    def u64(self, off, v):
        struct.pack_into("<Q", self.m, off, v)

    def gcstr(self, off, s, old=False):
        """A GC64 GCstr at off (len at +20, or +16 in the old layout); its address."""
        s = s.encode()
        self.m[off + 9] = 4
        if old:
            self.u32(off + 16, len(s))
            self.u32(off + 20, 0x5A5A5A5A)
        else:
            self.u32(off + 16, 0xABCDEF12)
            self.u32(off + 20, len(s))
        self.m[off + 24:off + 24 + len(s) + 1] = s + b"\0"
        return MEM_BASE + off

    def proto(self, off, chunk, firstline, numline, bc, kgc=(), lineinfo=None, uvinfo=None,
              sizeuv=0, varinfo=None):
        """A GCproto at off as lj_parse lays it out; kgc: addresses, kgc[0] nearest k."""
        p = off
        self.m[p + 9] = 7
        self.u32(p + 12, len(bc))
        for i, ins in enumerate(bc):
            self.u32(p + 104 + 4 * i, ins)
        o = align(104 + 4 * len(bc), 8)
        for i, a in enumerate(reversed(kgc)):
            self.u64(p + o + 8 * i, a)
        k = o + 8 * len(kgc)
        o = k
        li = uvi = vi = 0
        if lineinfo is not None:
            li = o
            self.m[p + o:p + o + len(lineinfo)] = lineinfo
            o += len(lineinfo)
        if uvinfo is not None:
            uvi = o
            self.m[p + o:p + o + len(uvinfo)] = uvinfo
            o += len(uvinfo)
        if varinfo is not None:
            vi = o
            self.m[p + o:p + o + len(varinfo)] = varinfo
            o += len(varinfo)
        base = MEM_BASE + p
        self.u64(p + 32, base + k)
        self.u32(p + 48, len(kgc))
        self.u32(p + 56, o)
        self.m[p + 60] = sizeuv
        self.u64(p + 64, chunk)
        self.u32(p + 72, firstline)
        self.u32(p + 76, numline)
        self.u64(p + 80, base + li if li else 0)
        self.u64(p + 88, base + uvi if uvi else 0)
        self.u64(p + 96, base + vi if vi else 0)
        return base


def frame(kind, link, pt, pc=0, flags=0, ffid=0):
    """8 header bytes: pc is the raw u16 (q + 2 = after the instruction at q)."""
    return struct.pack("<BBBBHH", kind, link, flags, ffid, (pt - MEM_BASE) // 8, pc)


LUA, C, FAST, CORO = 1, 2, 3, 4
L_LUA, L_C, L_CONT, L_PCALL = 0, 1, 2, 6


def lp_input(flags, frames, mem):
    frames = list(frames) + [b"\0" * 8] * (4 - len(frames))
    used = len(bytes(mem.m).rstrip(b"\0"))
    return bytes([flags]) + b"".join(frames) + bytes(mem.m[:align(used + 1, 8)])


def gen_luaproto():
    def after(q):
        return q + 2

    # The caller of test_luanames' fake_names_and_lines and its leaf callee.
    m = Mem(0x1000)
    keys = [m.gcstr(0x800, "handler"), m.gcstr(0x840, "M"), m.gcstr(0x880, "run")]
    chunk = m.gcstr(0x8C0, "@/srv/app/main.lua")
    caller = m.proto(0x000, chunk, 40, 7, [
        FUNCF, ad("GGET", 2, 0), abc("CALL", 2, 1, 1), ad("GGET", 3, 1), ad("MOV", 6, 3),
        abc("TGETS", 4, 3, 2), abc("CALL", 4, 1, 2), ad("UGET", 2, 1), abc("CALL", 2, 1, 1),
        ad("RET0", 0, 1)], kgc=keys, lineinfo=bytes([0, 1, 1, 2, 3, 3, 4, 5, 6]),
        uvinfo=b"cfg\0up\0", sizeuv=2, varinfo=bytes([ord("l"), ord("f"), 0, 1, 9, 0]))
    lchunk = m.gcstr(0x900, "@lib/util.lua")
    callee = m.proto(0x400, lchunk, 12, 1, [FUNCF, ad("RET0", 0, 1)], lineinfo=b"\x01")
    put("luaproto/global_call", lp_input(1 | 4, [
        frame(LUA, L_LUA, callee, after(1)), frame(LUA, L_C, caller, after(2))], m))
    put("luaproto/method_call", lp_input(1 | 1 << 3, [
        frame(LUA, L_LUA, callee, after(1)), frame(LUA, L_C, caller, after(6))], m))
    put("luaproto/upvalue_readv", lp_input(1 | 4 | 1 << 3 | 0x40 | 0x80, [
        frame(LUA, L_LUA, callee, after(1)), frame(LUA, L_C, caller, after(8))], m))
    put("luaproto/c_fast_coroutine", lp_input(3 | 0x20, [
        frame(C, L_LUA, MEM_BASE + 0x1000, 0, ffid=1), frame(LUA, L_PCALL, caller, after(2)),
        frame(FAST, L_LUA, MEM_BASE, 0, ffid=3), frame(CORO, L_C, MEM_BASE)], m))

    # Definition-site names: the main chunk's FNEW of the child, stored by GSET "make".
    m = Mem(0xC00)
    chunk = m.gcstr(0x800, "=stdin")
    key = m.gcstr(0x840, "make")
    child_at = MEM_BASE + 0x400
    parent = m.proto(0x000, chunk, 0, 10, [
        FUNCF, ad("FNEW", 0, 0), ad("GSET", 0, 1), ad("FNEW", 1, 0), abc("TSETS", 1, 0, 1),
        ad("FNEW", 2, 0), ad("USETV", 0, 2), ad("RET0", 0, 1)], kgc=[child_at, key],
        lineinfo=bytes(range(1, 8)), uvinfo=b"up\0", sizeuv=1,
        varinfo=b"loc\0\x01\x07\0")
    m.proto(0x400, chunk, 3, 2, [FUNCF, ad("KSHORT", 0, 1), ad("RET1", 0, 2)],
            lineinfo=b"\x00\x01")
    put("luaproto/definer", lp_input(1 | 4 | 0x80, [
        frame(LUA, L_C, child_at, after(1)), frame(LUA, L_C, parent, after(2))], m))

    # Old GCstr layout (found out), 2-byte lineinfo (numline >= 256), source-text chunk.
    m = Mem(0xC00)
    chunk = m.gcstr(0x800, "local t = {}\nfor i = 1, 10 do t[i] = i end return t", old=True)
    key = m.gcstr(0x880, "f", old=True)
    pt = m.proto(0x000, chunk, 1, 300, [
        FUNCF, ad("GGET", 0, 0), abc("CALL", 0, 1, 1), ad("KSHORT", 1, 7), ad("JMP", 0, 0x8000),
        ad("RET0", 0, 1)], kgc=[key], lineinfo=struct.pack("<5H", 0, 100, 200, 250, 299))
    leaf = m.proto(0x400, chunk, 120, 70000, [FUNCF, ad("RET0", 0, 1)],
                   lineinfo=struct.pack("<I", 69999))
    put("luaproto/old_layout_lines", lp_input(1 | 4, [
        frame(LUA, L_LUA, leaf, after(1)), frame(LUA, L_C, pt, after(2))], m))
    put("luaproto/old_layout_told", lp_input(1 | 4 | 2 << 3, [
        frame(LUA, L_LUA, leaf, after(1)), frame(LUA, L_C, pt, after(2))], m))

    # A JLOOP trace exit PC: &T->startins + 1 of a trace that starts at a RET1.
    m = Mem(0x1000)
    chunk = m.gcstr(0x800, "@t.lua")
    pt = m.proto(0x000, chunk, 7, 4, [
        FUNCF, ad("KSHORT", 0, 1), ad("KSHORT", 1, 1), ad("KSHORT", 2, 1), ad("RET1", 0, 2)],
        lineinfo=bytes([1, 2, 3, 4]))
    t = 0x600
    m.m[t + 9] = 9
    m.u64(t + 64, pt)
    m.u64(t + 72, pt + 104 + 4 * 3)
    m.u32(t + 80, ad("RET1", 0, 2))
    pc = 0x8000 | (t + 84)
    put("luaproto/trace_exit", lp_input(0 | 4, [frame(LUA, L_C, pt, pc)], m))

    # A bytecode builtin (firstline -1) called as a metamethod continuation.
    m = Mem(0x1000)
    chunk = m.gcstr(0x800, "string.gsub")
    bi = m.proto(0x000, chunk, -1, 0, [FUNCF, ad("RET0", 0, 1)])
    c2 = m.gcstr(0x840, "@/a/b/c/long/path/to/" + "x" * 80 + ".lua")
    caller = m.proto(0x400, c2, 5, 3, [FUNCF, abc("TGETS", 0, 1, 0), ad("RET0", 0, 1)],
                     kgc=[m.gcstr(0x900, "field")], lineinfo=b"\x00\x01")
    put("luaproto/builtin_meta", lp_input(1 | 4 | 0x80, [
        frame(LUA, L_CONT, bi, after(1)), frame(LUA, L_LUA, caller, after(1))], m))


def main():
    openresty = sys.argv[1] if len(sys.argv) > 1 else "/usr/bin/luajit"
    upstream = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        HERE, "..", "..", ".deps", "luajit-upstream", "usr", "bin", "luajit")
    with tempfile.TemporaryDirectory() as tmp:
        vm = gen_lua_detect(openresty, upstream)
        gen_ehframe(tmp, vm)
        gen_debuglink(tmp)
    gen_luaproto()


if __name__ == "__main__":
    main()
