/*
** Session helpers shared by batch mode and the live view.
*/
#include <stdio.h>

#include "bpf/loader.h"
#include "cli/collect.h"
#include "cli/session.h"

int session__pump(struct session *s, int timeout_ms)
{
	return sampler__poll(s->sampler, timeout_ms);
}

unsigned session__alive(struct session *s)
{
	unsigned alive = 0;

	for (unsigned i = 0; i < s->ntargets; i++)
		alive += !target__poll_exit(&s->targets[i]);
	return alive;
}

uint64_t session__lost(const struct session *s)
{
	return s->sampler ? sampler__dropped(s->sampler) : 0;
}

void session__describe(const struct session *s, char *out, size_t outsz)
{
	if (s->ntargets == 1)
		snprintf(out, outsz, "PID %d (%s)", (int)s->targets[0].pid, s->targets[0].comm);
	else
		snprintf(out, outsz, "%u processes", s->ntargets);
}
