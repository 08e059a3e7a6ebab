/*
** LuaJIT VM detection and per-binary offsets (see detect.h).
**
** Order of evidence:
**  1. .eh_frame: the VM FDE gives the VM range (vmfde.c); without it there is
**     no VM luatop can unwind, whatever the symbols say.
**  2. The VM entry code gives the flavour (GC64 or not), GG_G2DISP, cur_L and
**     vmstate; FUNCC's vmstate/call pair locates BC_FUNCC (x64scan.c).
**  3. lj_bc_ofs[] in .rodata must agree with (2); it gives BC__MAX and every
**     handler (bcofs.c); JLOOP's handler then gives jit_base and J->trace.
**  4. Strings and exports: version, OpenResty, Tarantool.
**  5. The offsets are matched against the builds in luajit_internals.md §2.11;
**     a known build settles sizeof(lua_State), an unknown one must pass the
**     plausibility checks every known one passes. When .symtab names the VM,
**     every derived address is compared with it.
**
** Files are read through libelf with ELF_C_READ (pread, not mmap: a target that
** truncates its file cannot SIGBUS us), and only the sections used are read.
*/
#include <errno.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lua/bcofs.h"
#include "lua/detect.h"
#include "lua/layout.h"
#include "lua/vmdef.h"
#include "lua/vmfde.h"
#include "lua/x64scan.h"
#include "unwind/fde.h"
#include "proc/files.h"

#define DT_REGION_MAX	(256u << 20)	/* larger sections/segments are not read */
#define DT_REGIONS	16		/* read-only regions scanned for data */
#define DT_VM_MAX	(1u << 20)	/* largest VM accepted (17 KB in 2026) */
#define DT_VERSION_PFX	"LuaJIT 2."

#ifndef SHT_X86_64_UNWIND
#define SHT_X86_64_UNWIND	0x70000001
#endif

/* A range of the file readable at a virtual address. */
struct dt_region {
	const uint8_t *p;
	size_t len;
	uint64_t vaddr;
};

/* One analysis. */
struct dt_ctx {
	Elf *elf;
	GElf_Ehdr eh;
	size_t nph;		/* program headers */
	size_t shstrndx;
	int has_shdrs;		/* section headers present and named */
	struct dt_region rod[DT_REGIONS];	/* read-only data */
	size_t nrod;
	struct luabuild *out;
};

/* Names looked up in .symtab (hidden VM labels) for the cross-check. */
enum {
	S_BEGIN, S_FFI_CALL, S_FUNCC, S_FUNCCW, S_JLOOP, S_BC_OFS, S_FLOOR, S_FFI_CB,
	S_EXIT, S__N
};
static const char *const vm_syms[S__N] = {
	"lj_vm_asm_begin", "lj_vm_ffi_call", "lj_BC_FUNCC", "lj_BC_FUNCCW", "lj_BC_JLOOP",
	"lj_bc_ofs", "lj_vm_floor", "lj_vm_ffi_callback", "lj_vm_exit_handler",
};

/* What .dynsym exports. */
struct dt_exports {
	uint8_t exdata;		/* lua_setexdata + lua_getexdata: OpenResty */
	uint8_t exdata2;	/* lua_setexdata2 + lua_getexdata2: OpenResty >= 2020-10 */
	uint8_t tarantool;	/* luaM_metrics / luaM_sysprof_start */
	char version[40];	/* from luaJIT_version_2_1_<ts>, e.g. "2.1.1700008891" */
};

/*
** Builds whose x64 GC64 offsets are known (luajit_internals.md §2.11). jit_trace
** is G2J + offsetof(jit_State, trace). Tarantool is listed to be refused: its
** vmstate enum differs.
*/
static const struct dt_layout {
	const char *name;
	uint32_t g2disp, vmstate, cur_L, jit_base, jit_trace, sizeof_L;
	uint8_t openresty;	/* 1: an OpenResty build */
	uint8_t gcstr_new;	/* GCstr.len at +20 (since 2020-06-23), else at +16 */
	uint8_t refuse;		/* 1: known, but not walkable */
} layouts[] = {
	/* name, g2disp, vmstate, cur_L, jit_base, jit_trace, sizeof_L, or, gcstr, refuse */
	{ "upstream 2.1 2019-12..2020-06 (GC64)", 3920, 128, 344, 352, 1064, 96, 0, 0, 0 },
	{ "upstream 2.1 2020-06-15", 3936, 128, 344, 352, 1088, 96, 0, 0, 0 },
	{ "upstream 2.1 2020-06-23", 3952, 176, 360, 368, 1104, 96, 0, 1, 0 },
	{ "upstream 2.1 2020-09-30", 3960, 184, 368, 376, 1112, 96, 0, 1, 0 },
	{ "upstream 2.1 2021-03..2024-04 (Debian 12)", 3968, 184, 368, 376, 1112, 96, 0, 1, 0 },
	{ "upstream 2.1 2024-04..2025-11", 3976, 184, 368, 376, 1120, 96, 0, 1, 0 },
	{ "upstream 2.1 2025-11-06", 3992, 184, 368, 376, 1120, 96, 0, 1, 0 },
	{ "upstream 2.1 2025-11-10..2026", 4000, 184, 376, 384, 1128, 96, 0, 1, 0 },
	{ "OpenResty v2.1-20200102", 3928, 128, 344, 352, 1072, 104, 1, 0, 0 },
	{ "OpenResty v2.1-20201001", 4000, 176, 360, 368, 1112, 104, 1, 1, 0 },
	{ "OpenResty v2.1-20201012..20210510", 4000, 184, 368, 376, 1120, 112, 1, 1, 0 },
	{ "OpenResty v2.1-20211210..20240314", 4008, 184, 368, 376, 1120, 112, 1, 1, 0 },
	{ "Tarantool 2024-10 (GC64)", 4080, 408, 448, 464, 1200, 96, 0, 0, 1 },
};

/* Say why the file is not supported (one line). */
static void dt_why(struct luabuild *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void dt_why(struct luabuild *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
	o->supported = 0;
}

/* -- ELF access ----------------------------------------------------------- */

/* Bytes [vaddr, vaddr+len) from one PT_LOAD (executable if need_x), or NULL. */
static const uint8_t *dt_vread(struct dt_ctx *c, uint64_t vaddr, uint64_t len, int need_x)
{
	for (size_t i = 0; i < c->nph; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(c->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr < ph.p_vaddr || vaddr - ph.p_vaddr > ph.p_filesz ||
		    len > ph.p_filesz - (vaddr - ph.p_vaddr))
			continue;
		if ((need_x && !(ph.p_flags & PF_X)) || len > DT_REGION_MAX || !len)
			return NULL;
		if (ph.p_offset + (vaddr - ph.p_vaddr) < ph.p_offset)
			return NULL;
		d = elf_getdata_rawchunk(c->elf, (int64_t)(ph.p_offset + (vaddr - ph.p_vaddr)),
					 (size_t)len, ELF_T_BYTE);
		return d && d->d_buf && d->d_size == len ? d->d_buf : NULL;
	}
	return NULL;
}

/* The raw bytes of a section, or -1 (NOBITS, too big, unreadable). */
static int dt_secdata(Elf_Scn *scn, const GElf_Shdr *sh, struct dt_region *r)
{
	Elf_Data *d;

	if (sh->sh_type == SHT_NOBITS || !sh->sh_size || sh->sh_size > DT_REGION_MAX ||
	    (sh->sh_flags & SHF_COMPRESSED))
		return -1;
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size != sh->sh_size)
		return -1;
	*r = (struct dt_region){ .p = d->d_buf, .len = d->d_size, .vaddr = sh->sh_addr };
	return 0;
}

/* The section called name, or NULL. */
static Elf_Scn *dt_section(struct dt_ctx *c, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	if (!c->has_shdrs)
		return NULL;
	while ((scn = elf_nextscn(c->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(c->elf, c->shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* .eh_frame through PT_GNU_EH_FRAME, for files without section headers. */
static int dt_ehframe_phdr(struct dt_ctx *c, struct dt_region *r)
{
	for (size_t i = 0; i < c->nph; i++) {
		const uint8_t *hdr;
		uint64_t at, len = 0;
		GElf_Phdr ph;

		if (!gelf_getphdr(c->elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME ||
		    ph.p_filesz < 8)
			continue;
		hdr = dt_vread(c, ph.p_vaddr, ph.p_filesz, 0);
		if (!hdr || fde__eh_frame_of_hdr(hdr, ph.p_filesz, ph.p_vaddr, &at))
			return -1;
		/* The section runs to the end of its PT_LOAD at most. */
		for (size_t j = 0; j < c->nph; j++) {
			GElf_Phdr lp;

			if (gelf_getphdr(c->elf, (int)j, &lp) && lp.p_type == PT_LOAD &&
			    at >= lp.p_vaddr && at - lp.p_vaddr < lp.p_filesz)
				len = lp.p_filesz - (at - lp.p_vaddr);
		}
		if (len > DT_REGION_MAX)
			len = DT_REGION_MAX;
		r->p = len ? dt_vread(c, at, len, 0) : NULL;
		r->len = (size_t)len;
		r->vaddr = at;
		return r->p ? 0 : -1;
	}
	return -1;
}

/* Run the VM FDE scan over .eh_frame. */
static void dt_ehframe(struct dt_ctx *c, struct vmfde *f)
{
	struct dt_region r;
	GElf_Shdr sh;
	Elf_Scn *scn = dt_section(c, ".eh_frame", &sh);

	memset(f, 0, sizeof(*f));
	if (scn && (sh.sh_type == SHT_PROGBITS || sh.sh_type == SHT_X86_64_UNWIND) &&
	    !dt_secdata(scn, &sh, &r))
		vmfde__scan(r.p, r.len, r.vaddr, 0, f);
	else if (!c->has_shdrs && !dt_ehframe_phdr(c, &r))
		vmfde__scan(r.p, r.len, r.vaddr, 1, f);
}

/* Read-only data regions: .rodata*, or without sections every PT_LOAD. */
static size_t dt_rodata(struct dt_ctx *c, struct dt_region *r, size_t max)
{
	Elf_Scn *scn = NULL;
	size_t n = 0;

	if (c->has_shdrs) {
		while (n < max && (scn = elf_nextscn(c->elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
			    !(sh.sh_flags & SHF_ALLOC) ||
			    (sh.sh_flags & (SHF_WRITE | SHF_EXECINSTR)))
				continue;
			name = elf_strptr(c->elf, c->shstrndx, sh.sh_name);
			if (name && !strncmp(name, ".rodata", 7) && !dt_secdata(scn, &sh, &r[n]))
				n++;
		}
		return n;
	}
	for (size_t i = 0; i < c->nph && n < max; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(c->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    (ph.p_flags & PF_W) || !ph.p_filesz)
			continue;
		r[n].p = dt_vread(c, ph.p_vaddr, ph.p_filesz, 0);
		r[n].len = (size_t)ph.p_filesz;
		r[n].vaddr = ph.p_vaddr;
		n += r[n].p != NULL;
	}
	return n;
}

/* Call fn for every named symbol of the sections of type type. */
static void dt_symbols(struct dt_ctx *c, uint32_t type,
		       void (*fn)(void *arg, const char *name, const GElf_Sym *s), void *arg)
{
	Elf_Scn *scn = NULL;

	if (!c->has_shdrs)
		return;
	while ((scn = elf_nextscn(c->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type ||
		    sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_size > DT_REGION_MAX)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		n = d->d_size / sizeof(Elf64_Sym);
		for (size_t i = 1; i < n; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || !s.st_name || s.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(c->elf, sh.sh_link, s.st_name);
			if (name)
				fn(arg, name, &s);
		}
	}
}

/* dt_symbols callback: note OpenResty/Tarantool/version exports. */
static void dt_export_fn(void *arg, const char *name, const GElf_Sym *s)
{
	struct dt_exports *e = arg;

	(void)s;
	if (!strcmp(name, "lua_setexdata") || !strcmp(name, "lua_getexdata"))
		e->exdata += 1;
	else if (!strcmp(name, "lua_setexdata2") || !strcmp(name, "lua_getexdata2"))
		e->exdata2 += 1;
	else if (!strcmp(name, "luaM_metrics") || !strcmp(name, "luaM_sysprof_start"))
		e->tarantool = 1;
	else if (!strncmp(name, "luaJIT_version_", 15) && !e->version[0]) {
		size_t j = 0;

		for (const char *p = name + 15; *p && j + 1 < sizeof(e->version); p++)
			e->version[j++] = *p == '_' ? '.' : *p;
		e->version[j] = 0;
	}
}

/* dt_symbols callback: the VM labels of an unstripped file. */
static void dt_vmsym_fn(void *arg, const char *name, const GElf_Sym *s)
{
	uint64_t *v = arg;

	if (name[0] != 'l' || name[1] != 'j' || name[2] != '_')
		return;
	for (int i = 0; i < S__N; i++) {
		if (!strcmp(name, vm_syms[i]) && !v[i])
			v[i] = s->st_value ? s->st_value : 1;	/* 1: at 0, never real */
	}
}

/* Can c be part of a version token ("2.1.0-beta3", "2.1.1700008891")? */
static int dt_vchar(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '.' || c == '-' || c == '_';
}

/* LUAJIT_VERSION: the first "LuaJIT 2.<token>" string in read-only data. */
static void dt_version(const struct dt_region *r, size_t n, char *out, size_t outsz)
{
	const size_t pl = sizeof(DT_VERSION_PFX) - 1;

	out[0] = 0;
	for (int pass = 0; pass < 2; pass++) {	/* 0: only at a string start */
		for (size_t k = 0; k < n; k++) {
			const uint8_t *p = r[k].p, *q = p, *end = p + r[k].len;

			while ((q = memmem(q, (size_t)(end - q), DT_VERSION_PFX, pl))) {
				size_t j = 0, t = (size_t)(q - p) + pl;

				if (pass == 1 || q == p || q[-1] == 0) {
					while (t < r[k].len && j < 24 && dt_vchar(p[t])) {
						t++;
						j++;
					}
					if (j && (t == r[k].len || p[t] == 0 || p[t] == ' ')) {
						snprintf(out, outsz, "%.*s", (int)(pl + j),
							 (const char *)q);
						return;
					}
				}
				q++;
				if (q >= end)
					break;
			}
		}
	}
}

/* -- Analysis ------------------------------------------------------------- */

/* The known build with these offsets, or NULL. */
static const struct dt_layout *dt_layout(const struct luabuild *o)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		const struct dt_layout *l = &layouts[i];

		if (l->g2disp == o->g2disp && l->vmstate == o->off_vmstate &&
		    l->cur_L == o->off_cur_L && l->jit_base == o->off_jit_base &&
		    (!o->jit || l->jit_trace == o->off_jit_trace))
			return l;
	}
	return NULL;
}

/* G-relative offset from a DISPATCH-relative displacement: 0 and *off, or -1. */
static int dt_goff(uint32_t g2disp, int32_t disp, uint32_t *off)
{
	int64_t v = (int64_t)g2disp + disp;

	if (v <= 0 || v >= (int64_t)g2disp)
		return -1;	/* G's fields and J lie between G and DISPATCH */
	*off = (uint32_t)v;
	return 0;
}

/* Which handler [bc_ofs[i], bc_ofs[i+1]) of the first nbc holds JLOOP, per pattern. */
static int dt_jloop(const uint8_t *code, size_t len, const struct luabuild *o, uint32_t nbc,
		    struct x64_jloop *jl, uint32_t *idx)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i + 1 < nbc; i++) {
		struct x64_jloop t;

		if (o->bc_ofs[i] < o->bc_ofs[i + 1] &&
		    !x64scan__jloop(code, len, o->bc_ofs[i], o->bc_ofs[i + 1], &t) && !n++) {
			*jl = t;
			*idx = i;
		}
	}
	return n == 1 ? 0 : n ? -EBADMSG : -ENOENT;
}

/* Compare the derived addresses with .symtab: NULL, or the first name that differs. */
static const char *dt_crosscheck(const struct luabuild *o, const uint64_t *v)
{
	uint64_t want[S__N] = {
		[S_BEGIN] = o->vm_start,
		[S_FFI_CALL] = o->ffi_call_start,
		[S_FUNCC] = o->vm_start + o->bc_funcc_ofs,
		[S_FUNCCW] = o->vm_start + o->bc_funccw_ofs,
		[S_JLOOP] = o->jit ? o->vm_start + o->bc_jloop_ofs : 0,
		[S_BC_OFS] = o->bc_ofs_vaddr,
		[S_FLOOR] = o->leaf_start,
		[S_FFI_CB] = o->ffi_callback,
		[S_EXIT] = o->exit_start,
	};

	for (int i = 0; i < S__N; i++) {
		if (v[i] && want[i] && v[i] != want[i])
			return vm_syms[i];
	}
	return NULL;
}

/*
** Each entry's window, up to its link (x64scan__links), ends where another
** entry's prologue starts: lj_vm_pcall's runs on into lj_vm_call's, which
** pushes its own registers.
*/
static void dt_windows(struct luabuild *o, const struct x64_entry *en, const uint32_t *link)
{
	for (uint32_t i = 0; i < en->n; i++) {
		uint32_t end = link[i] + 1;

		for (uint32_t k = 0; k < en->n; k++)
			if (en->ofs[k] > en->ofs[i] && en->ofs[k] < end)
				end = en->ofs[k];
		o->entry_len[i] = end - en->ofs[i];
	}
}

/* Derive the sizes and offsets from the VM code and lj_bc_ofs (step 2 and 3). */
static int dt_vm(struct dt_ctx *c, const uint8_t *code, size_t len)
{
	struct luabuild *o = c->out;
	struct bcofs_want want = { .vm_len = (uint32_t)len };
	struct x64_entry en;
	struct x64_jloop jl = { 0 };
	struct x64_leave lv;
	uint32_t link[X64_ENTRY_MAX], stores[LUABUILD_LINK_MAX];
	struct bcofs *bo;
	uint32_t ncand = 0, call = 0, callw = 0, idx = 0, cb, cb_g2disp, ex, cp;
	int err;

	err = x64scan__entry(code, len, &en);
	o->gc64 = en.gc64;
	o->n_entry = en.n;
	for (uint32_t i = 0; i < en.n; i++)
		o->entry[i] = o->vm_start + en.ofs[i];
	if (!x64scan__links(code, len, &en, LT_LJ_L_CFRAME, link))
		dt_windows(o, &en, link);
	if (!x64scan__link_stores(code, len, stores, LUABUILD_LINK_MAX, &o->n_link_store))
		for (uint32_t i = 0; i < o->n_link_store; i++)
			o->link_store[i] = o->vm_start + stores[i];
	else
		o->n_link_store = 0;
	if (!strncmp(o->version, "LuaJIT 2.0", 10)) {
		dt_why(o, "%s build (no cur_L, non-GC64): not supported", o->version);
		return -1;
	}
	if (err == -ENOENT) {
		dt_why(o, "VM entry code not recognised (no glref load + add $G2DISP)");
		return -1;
	}
	if (err || en.nglref < 2) {
		dt_why(o, "VM entry code ambiguous (%u entries, %u agree on G2DISP)", en.n,
		       en.nglref);
		return -1;
	}
	if (!en.gc64) {
		dt_why(o, "%s non-GC64 build: not supported",
		       o->version[0] ? o->version : "LuaJIT");
		return -1;
	}
	if (!en.ncur_L || !en.nvmstate) {
		dt_why(o, "no %s store in the VM entry code (LuaJIT 2.0?): not supported",
		       en.ncur_L ? "vmstate" : "cur_L");
		return -1;
	}
	o->g2disp = en.g2disp;
	if (dt_goff(en.g2disp, en.d_cur_L, &o->off_cur_L) ||
	    dt_goff(en.g2disp, en.d_vmstate, &o->off_vmstate)) {
		dt_why(o, "cur_L/vmstate displacements outside global_State: not supported");
		return -1;
	}
	err = x64scan__funcc(code, len, en.d_vmstate, &call, &callw);
	if (err) {
		dt_why(o, "BC_FUNCC/FUNCCW handlers %s",
		       err == -ENOENT ? "not recognised" : "ambiguous");
		return -1;
	}
	want.funcc_call = call;
	want.funcc_end = call + 3;
	want.funccw_call = callw;
	want.funccw_end = callw + 7;
	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return -ENOMEM;
	for (size_t i = 0; i < c->nrod; i++)
		ncand += bcofs__find(c->rod[i].p, c->rod[i].len, c->rod[i].vaddr, &want, bo);
	if (ncand != 1) {
		free(bo);
		if (ncand)
			dt_why(o, "%u lj_bc_ofs[] candidates in read-only data: ambiguous", ncand);
		else
			dt_why(o, "lj_bc_ofs[] not found in read-only data");
		return -1;
	}
	o->bc_ofs_vaddr = bo->vaddr;
	o->bc_max = bo->bc_max;
	o->n_bc_ofs = bo->bc_max + BCOFS_ASMFF;
	memcpy(o->bc_ofs, bo->ofs, o->n_bc_ofs * sizeof(o->bc_ofs[0]));
	free(bo);
	o->bc_funcc_ofs = o->bc_ofs[o->bc_max - 2];
	o->bc_funccw_ofs = o->bc_ofs[o->bc_max - 1];
	o->bc_funcc_ret = want.funcc_end;
	o->bc_funccw_ret = want.funccw_end;
	/* JIT: JLOOP's handler, found by its pattern among the handlers before FUNCF. */
	err = dt_jloop(code, len, o, o->bc_max - 8, &jl, &idx);
	if (err == -EBADMSG) {
		dt_why(o, "BC_JLOOP handler ambiguous");
		return -1;
	}
	if (!err) {
		o->jit = 1;
		o->bc_jloop_ofs = o->bc_ofs[idx];
		o->off_trace_mcode = jl.mcode;
		if (dt_goff(en.g2disp, jl.d_jit_base, &o->off_jit_base) ||
		    dt_goff(en.g2disp, jl.d_trace, &o->off_jit_trace)) {
			dt_why(o, "jit_base/J->trace displacements outside GG_State: "
			       "not supported");
			return -1;
		}
		if (jl.mcode != 88) {
			dt_why(o, "GCtrace.mcode at %u, not 88: unknown GCtrace layout", jl.mcode);
			return -1;
		}
	}
	/* Helpers the unwinder treats specially. */
	if (!x64scan__ffi_callback(code, len, &cb, &cb_g2disp)) {
		if (cb_g2disp != o->g2disp) {
			dt_why(o, "G2DISP %u in lj_vm_ffi_callback, %u in the entry code: "
			       "ambiguous", cb_g2disp, o->g2disp);
			return -1;
		}
		o->ffi_callback = o->vm_start + cb;
	}
	if (!x64scan__cpcall(code, len, &cp)) {
		o->cpcall_ret = o->vm_start + cp;
		if (!x64scan__leave(code, len, cp, o->cframe_size, &lv)) {
			o->cpcall_len = lv.cp_len;
			o->leave_start = o->vm_start + lv.leave;
			o->unw_start = o->vm_start + lv.unw;
			o->unw_len = lv.len;
			memcpy(o->unw_cfa, lv.cfa, sizeof(o->unw_cfa));
		}
	}
	if (!x64scan__leaf(code, len, o->bc_ofs[o->bc_max - 1], &idx) &&
	    (o->ffi_callback ? o->vm_start + idx < o->ffi_callback : !o->ffi_call_start)) {
		o->leaf_start = o->vm_start + idx;
		o->leaf_end = o->ffi_callback ? o->ffi_callback : o->vm_end;
	}
	if (o->jit && o->leaf_start && !x64scan__exit_handler(code, len, &ex) &&
	    o->vm_start + ex < o->leaf_start) {
		o->exit_start = o->vm_start + ex;
		o->exit_end = o->leaf_start;
	}
	if (!o->jit && !x64scan__exit_handler(code, len, &ex)) {
		dt_why(o, "BC_JLOOP handler not recognised (the VM has a trace exit handler)");
		return -1;
	}
	return 0;
}

/* Step 5: known build, or plausible offsets; then sizeof(lua_State). */
static int dt_layout_check(struct luabuild *o, const struct dt_exports *ex)
{
	const struct dt_layout *l = dt_layout(o);

	if (ex->tarantool || (l && l->refuse)) {
		dt_why(o, "Tarantool LuaJIT (own vmstate enum and layout): not supported");
		return -1;
	}
	if (l) {
		if (o->openresty && !l->openresty) {
			dt_why(o, "offsets match %s, but the file exports OpenResty's "
			       "lua_setexdata", l->name);
			return -1;
		}
		snprintf(o->layout, sizeof(o->layout), "%s", l->name);
		o->sizeof_lua_State = l->sizeof_L;
		o->gcstr_new = l->gcstr_new;
		o->openresty |= l->openresty;	/* a static build need not export */
		return 0;
	}
	/*
	** Every known GC64 build keeps vmstate before cur_L and jit_base right after
	** it, and J (with the trace array) between G and DISPATCH. Without the JIT
	** there is no J and no hotcount: G2DISP = sizeof(global_State).
	*/
	if (o->off_vmstate >= o->off_cur_L || o->g2disp > 8192 ||
	    (o->jit && (o->off_jit_base != o->off_cur_L + 8 ||
			o->off_jit_trace <= o->off_jit_base || o->g2disp < 2048))) {
		dt_why(o, "unknown build with implausible offsets "
		       "(G2DISP %u, vmstate %u, cur_L %u)", o->g2disp, o->off_vmstate,
		       o->off_cur_L);
		return -1;
	}
	o->sizeof_lua_State = ex->exdata2 >= 2 ? 112 : o->openresty ? 104 : 96;
	return 0;
}

/* The whole analysis of an opened ELF (see the file comment). */
static int dt_analyse(struct dt_ctx *c)
{
	struct luabuild *o = c->out;
	struct dt_exports ex = { 0 };
	uint64_t sym[S__N] = { 0 };
	const uint8_t *code;
	struct vmfde f;
	const char *bad;
	int err;

	if (!gelf_getehdr(c->elf, &c->eh) || c->eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    c->eh.e_ident[EI_DATA] != ELFDATA2LSB || c->eh.e_machine != EM_X86_64 ||
	    (c->eh.e_type != ET_EXEC && c->eh.e_type != ET_DYN) ||
	    elf_getphdrnum(c->elf, &c->nph)) {
		dt_why(o, "not an x86-64 ELF executable or shared object");
		return 0;
	}
	c->has_shdrs = !elf_getshdrstrndx(c->elf, &c->shstrndx) &&
		       elf_nextscn(c->elf, NULL) != NULL;
	dt_ehframe(c, &f);
	if (!f.nvm) {
		dt_symbols(c, SHT_SYMTAB, dt_vmsym_fn, sym);
		if (!sym[S_BEGIN]) {
			dt_why(o, "no LuaJIT VM");
			return 0;
		}
		o->found = 1;
		dt_why(o, "VM named in .symtab but no VM FDE in .eh_frame "
		       "(LUAJIT_NO_UNWIND?): not supported");
		return 0;
	}
	o->found = 1;
	o->vm_start = f.vm_lo;
	o->vm_end = f.vm_hi;
	o->cframe_size = f.cfa_off;
	o->ffi_call_start = f.ffi_lo;
	o->ffi_call_end = f.ffi_hi;
	c->nrod = dt_rodata(c, c->rod, DT_REGIONS);
	dt_version(c->rod, c->nrod, o->version, sizeof(o->version));
	dt_symbols(c, SHT_DYNSYM, dt_export_fn, &ex);
	if (!o->version[0] && ex.version[0])
		snprintf(o->version, sizeof(o->version), "LuaJIT %s", ex.version);
	o->openresty = ex.exdata >= 2;
	if (f.nvm > 1) {
		dt_why(o, "%u VM-shaped FDEs in .eh_frame: ambiguous", f.nvm);
		return 0;
	}
	if (f.cfa_off != 80) {
		dt_why(o, "VM frame of %u bytes (LUAJIT_NO_UNWIND or Tarantool build): "
		       "not supported", f.cfa_off);
		return 0;
	}
	if (f.vm_hi - f.vm_lo > DT_VM_MAX ||
	    !(code = dt_vread(c, f.vm_lo, f.vm_hi - f.vm_lo, 1))) {
		dt_why(o, "VM code not readable from an executable segment");
		return 0;
	}
	if (f.ffi_lo) {
		const uint8_t *ffi = dt_vread(c, f.ffi_lo, f.ffi_hi - f.ffi_lo, 1);

		if (!ffi || !x64scan__is_ffi_call(ffi, f.ffi_hi - f.ffi_lo))
			o->ffi_call_start = o->ffi_call_end = 0;	/* not lj_vm_ffi_call */
	}
	err = dt_vm(c, code, f.vm_hi - f.vm_lo);
	if (err)
		return err == -ENOMEM ? err : 0;
	if (dt_layout_check(o, &ex))
		return 0;
	dt_symbols(c, SHT_SYMTAB, dt_vmsym_fn, sym);
	if (sym[S_BEGIN]) {
		bad = dt_crosscheck(o, sym);
		if (bad) {
			dt_why(o, "derived address of %s differs from .symtab: not supported", bad);
			return 0;
		}
		o->symbols = 1;
	}
	o->supported = 1;
	o->why[0] = 0;
	return 0;
}

/* Set up *out, run the analysis over elf, release it. */
static int dt_run(Elf *elf, struct luabuild *out)
{
	struct dt_ctx *c;
	int err;

	memset(out, 0, sizeof(*out));
	out->gc64 = -1;
	out->gcstr_new = -1;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		dt_why(out, "not an x86-64 ELF executable or shared object");
		elf_end(elf);
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		elf_end(elf);
		memset(out, 0, sizeof(*out));
		return -ENOMEM;
	}
	c->elf = elf;
	c->out = out;
	err = dt_analyse(c);
	free(c);
	elf_end(elf);
	if (err)
		memset(out, 0, sizeof(*out));
	return err;
}

/* Analyse an open file (see detect.h). */
int luabuild__detect_fd(int fd, struct luabuild *out)
{
	unsigned char ident[EI_NIDENT];
	struct stat st;
	ssize_t n;

	if (!out || fd < 0)
		return -EINVAL;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	do
		n = pread(fd, ident, sizeof(ident), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	return dt_run(elf_begin(fd, ELF_C_READ, NULL), out);
}

/* Analyse an image in memory (see detect.h). */
int luabuild__detect_mem(const void *buf, size_t len, struct luabuild *out)
{
	char *copy;
	int err;

	if (!out || (!buf && len))
		return -EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	/* libelf wants a writable image; it must also outlive the Elf handle. */
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, buf, len);
	err = dt_run(elf_memory(copy, len), out);
	free(copy);
	return err;
}

/* Fast function names by ffid (see detect.h). */
const char *const *luabuild__ffnames(int openresty, unsigned *n)
{
	static const char *const ffu[] = { LVM_FFNAMES_UPSTREAM };
	static const char *const ffo[] = { LVM_FFNAMES_OPENRESTY };

	if (openresty == 1) {
		*n = sizeof(ffo) / sizeof(ffo[0]);
		return ffo;
	}
	*n = openresty == 0 ? sizeof(ffu) / sizeof(ffu[0]) : LVM_FF_COMMON;
	return ffu;
}

/* The TF_LUAJIT part of a file (see detect.h). */
const struct luabuild *luabuild__of_file(struct tfile *f)
{
	struct luabuild *lj;
	int fd;

	if (tfile__has(f, TF_LUAJIT))
		return tfile__part(f, TF_LUAJIT);
	lj = malloc(sizeof(*lj));
	fd = tfile__fd(f);
	if (lj && (fd < 0 || luabuild__detect_fd(fd, lj) || !lj->found)) {
		free(lj);
		lj = NULL;
	}
	tfile__set(f, TF_LUAJIT, lj, free);
	return lj;
}
