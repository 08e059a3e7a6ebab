/*
** The kernel walk's tables (cli/kstack.h): symbols from /proc/kallsyms, checked
** against each other before the sampler trusts them.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "base/log.h"
#include "cli/kstack.h"
#include "proc/readfile.h"
#include "symbolize/kallsyms.h"

#define ORC_ENTRY	6	/* bytes of a struct orc_entry */

enum { S_STEXT, S_ETEXT, S_IP, S_IP_END, S_ORC, S_ORC_END, S_GRAPH, S_RETHOOK, S__COUNT };

static const char *const names[S__COUNT] = {
	"_stext", "_etext", "__start_orc_unwind_ip", "__stop_orc_unwind_ip",
	"__start_orc_unwind", "__stop_orc_unwind",
	"return_to_handler",		/* ftrace's function graph: rewrites return addresses */
	"arch_rethook_trampoline",	/* kretprobes and fprobes: the same */
};

/* Linux 6.4 or later: the ORC entries of unwind/korc.h. */
static int orc_format_known(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return 0;
	return major > 6 || (major == 6 && minor >= 4);
}

/* kernel.perf_event_max_stack: the frames bpf_get_stack gives at most. */
static unsigned max_stack(void)
{
	char buf[64];

	if (readfile__into("/proc/sys/kernel/perf_event_max_stack", buf, sizeof(buf)) < 0)
		return 127;
	return (unsigned)strtoul(buf, NULL, 10);
}

/* Do the symbols describe tables the sampler can search? */
static int tables_ok(const uint64_t *a)
{
	uint64_t n;

	if (!a[S_STEXT] || a[S_ETEXT] <= a[S_STEXT] || a[S_IP_END] <= a[S_IP] ||
	    a[S_ORC_END] <= a[S_ORC] || (a[S_IP_END] - a[S_IP]) % 4)
		return 0;
	n = (a[S_IP_END] - a[S_IP]) / 4;
	return n < (1u << 24) && a[S_ORC_END] - a[S_ORC] == n * ORC_ENTRY;
}

int kstack__mode(struct sampler_korc *k)
{
	const char *mode = secure_getenv("LUATOP_KSTACK");

	memset(k, 0, sizeof(*k));
	if (mode && *mode && strcmp(mode, "orc") && strcmp(mode, "kernel") && strcmp(mode, "check")) {
		lt_log(LT_LOG_ERROR, "LUATOP_KSTACK: no such mode (orc, kernel or check)");
		return -1;
	}
	if ((mode && !strcmp(mode, "kernel")) || !orc_format_known())
		return 0;
	k->max_frames = max_stack();
	k->check = mode && !strcmp(mode, "check");
	return 0;
}

void kstack__tables(struct sampler_korc *k, const char *text, size_t len)
{
	uint64_t a[S__COUNT];

	if (!k->max_frames || !text)
		return;
	kallsyms__find(text, len, names, a, S__COUNT);
	if (!tables_ok(a)) {
		lt_log(LT_LOG_DEBUG, "kernel stacks: no ORC tables in /proc/kallsyms, the kernel unwinds them");
		return;
	}
	k->text_lo = a[S_STEXT];
	k->text_hi = a[S_ETEXT];
	k->ip_table = a[S_IP];
	k->table = a[S_ORC];
	k->tramp[0] = a[S_GRAPH];
	k->tramp[1] = a[S_RETHOOK];
	k->n = (uint32_t)((a[S_IP_END] - a[S_IP]) / 4);
}
