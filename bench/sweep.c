/*
** A native target that empties the caches between two samples: main ->
** run_work -> [descend x DEPTH] -> sweep, which writes one byte a cache line of
** a buffer of argv[1] KiB (default 32768) over and over. Built with frame
** pointers, so its walk is as cheap as walks come (five frames and DEPTH more,
** all of the latter at one return address); what a sample of it costs beyond
** burn's is the sampler's own code and data coming back from memory
** (bench/bpf_cost.sh). argv[2]: DEPTH (default 0). Runs until killed.
*/
#include <stdlib.h>

volatile unsigned long sink;

void sweep(unsigned char *buf, size_t n);
void descend(unsigned char *buf, size_t n, int depth);
void run_work(unsigned char *buf, size_t n, int depth);

__attribute__((noinline)) void sweep(unsigned char *buf, size_t n)
{
	for (size_t i = 0; i < n; i += 64)
		buf[i]++;
	sink++;
}

__attribute__((noinline)) void descend(unsigned char *buf, size_t n, int depth)
{
	if (depth > 0)
		descend(buf, n, depth - 1);
	else
		sweep(buf, n);
	sink++;	/* not a tail call: the frame stays */
}

__attribute__((noinline)) void run_work(unsigned char *buf, size_t n, int depth)
{
	if (depth > 0)
		descend(buf, n, depth - 1);
	else
		sweep(buf, n);
}

int main(int argc, char **argv)
{
	size_t n = (size_t)atol(argc > 1 ? argv[1] : "32768") * 1024;
	int depth = argc > 2 ? atoi(argv[2]) : 0;
	unsigned char *buf = calloc(1, n ? n : 1);

	if (!buf || depth < 0 || depth > 100)
		return 1;
	for (;;)
		run_work(buf, n, depth);
}
