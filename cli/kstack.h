/*
** Where the core kernel's ORC tables are, for the sampler's own walk of kernel
** stacks (bpf/loader.h struct sampler_korc, unwind/korc.h).
*/
#ifndef LUATOP_CLI_KSTACK_H
#define LUATOP_CLI_KSTACK_H

#include "bpf/loader.h"

/*
** Fill k from /proc/kallsyms on Linux 6.4 and later (the ORC entry format the
** sampler reads); k->n 0 leaves every kernel stack to the kernel's unwinder:
** an older kernel, hidden addresses, a table missing. LUATOP_KSTACK=kernel
** asks for that; LUATOP_KSTACK=check walks both ways and counts the
** differences (-v); orc (or unset) is the default. -1 (and a logged error)
** for another value.
*/
int kstack__korc(struct sampler_korc *k);

#endif
