/*
** libFuzzer entry point for LuaJIT detection (lua/detect.c with lua/vmfde.c,
** lua/x64scan.c, lua/bcofs.c), on whole ELF images.
**
**   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -D_GNU_SOURCE \
**         tests/fuzz/fuzz_lua_detect.c lua/detect.c lua/vmfde.c lua/x64scan.c \
**         lua/bcofs.c unwind/cfa.c -lelf -o /tmp/fl
**   mkdir -p /tmp/flc && cp /usr/bin/luajit /usr/lib/x86_64-linux-gnu/libluajit-5.1.so.2 /tmp/flc/
**   /tmp/fl -max_total_time=60 -max_len=1048576 /tmp/flc
**
** make fuzz seeds it from tests/fuzz/corpus/lua_detect (LuaJIT VMs cut out of real
** binaries into ~18 KB ELF images by tests/fuzz/mkseeds.py: with and without
** section headers, exports, .symtab) and the whole binaries of this system in
** FUZZ_SEEDS_lua_detect. Besides memory safety, every result is checked for the
** invariants detect.h promises.
*/

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lua/detect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* abort() unless the result keeps the invariants of detect.h. */
static void check(const struct luabuild *o)
{
	if (!memchr(o->why, 0, sizeof(o->why)) || !memchr(o->version, 0, sizeof(o->version)) ||
	    !memchr(o->layout, 0, sizeof(o->layout)) || o->n_entry > LUABUILD_ENTRY_MAX)
		abort();
	if (!o->found && o->supported)
		abort();
	if (!o->supported) {
		if (!o->why[0])
			abort();
		return;
	}
	if (o->why[0] || o->gc64 != 1 || o->cframe_size != 80 || o->vm_start >= o->vm_end)
		abort();
	if (o->bc_max < 64 || o->bc_max > 160 || o->n_bc_ofs != o->bc_max + 57)
		abort();
	if (o->off_vmstate >= o->off_cur_L || o->off_cur_L >= o->g2disp)
		abort();
	if (o->bc_funcc_ofs >= o->bc_funcc_ret || o->bc_funcc_ret > o->bc_funccw_ofs ||
	    o->bc_funccw_ofs >= o->bc_funccw_ret || o->vm_start + o->bc_funccw_ret > o->vm_end)
		abort();
	if (o->leaf_start && (o->leaf_start <= o->vm_start || o->leaf_end <= o->leaf_start ||
			      o->leaf_end > o->vm_end))
		abort();
	if (o->cpcall_ret && (o->cpcall_ret <= o->vm_start || o->cpcall_ret >= o->vm_end))
		abort();
	/* The windows outside L's chain: in the VM, and within their tables. */
	if (o->leave_start && (!o->cpcall_ret || o->leave_start < o->vm_start ||
			       o->unw_start < o->leave_start ||
			       o->unw_start + o->unw_len > o->vm_end ||
			       !o->unw_len || o->unw_len > X64_LEAVE_MAX))
		abort();
	for (uint32_t i = 0; i < o->n_entry; i++)
		if (o->entry[i] + o->entry_len[i] > o->vm_end)
			abort();
	if (o->n_link_store > LUABUILD_LINK_MAX)
		abort();
	for (uint32_t i = 0; i < o->n_link_store; i++)
		if (o->link_store[i] < o->vm_start || o->link_store[i] + 4 > o->vm_end)
			abort();
}

/* One input: an ELF image. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct luabuild o;
	int err = luabuild__detect_mem(data, size, &o);

	if (err && err != -ENOMEM)
		abort();
	if (!err)
		check(&o);
	return 0;
}
