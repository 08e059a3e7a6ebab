/*
** Where the core kernel's ORC tables are, for the sampler's own walk of kernel
** stacks (bpf/loader.h struct sampler_korc, unwind/korc.h).
*/
#ifndef LUATOP_CLI_KSTACK_H
#define LUATOP_CLI_KSTACK_H

#include "bpf/loader.h"

/*
** The walk's settings, at the start: on Linux 6.4 and later (the ORC entry
** format the sampler reads) k->max_frames is kernel.perf_event_max_stack, else
** 0 and the kernel's unwinder takes every kernel stack, as LUATOP_KSTACK=kernel
** asks; LUATOP_KSTACK=check walks both ways and counts the differences (-v);
** orc (or unset) is the default. -1 (and a logged error) for another value.
*/
int kstack__mode(struct sampler_korc *k);

/*
** Where the tables are, from text (/proc/kallsyms' contents: kallsyms__read),
** for sampler__set_korc; k->n stays 0 when they are not there (hidden
** addresses, a table missing) or k->max_frames is 0.
*/
void kstack__tables(struct sampler_korc *k, const char *text, size_t len);

#endif
