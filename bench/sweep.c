/*
** A native target that empties the caches between two samples: main ->
** run_work -> sweep, which writes one byte a cache line of a buffer of argv[1]
** KiB (default 32768) over and over. Built with frame pointers, so its walk is
** as cheap as walks come (five frames, no rule tables needed); what a sample
** of it costs beyond burn's is the sampler's own code and data coming back
** from memory (bench/bpf_cost.sh). Runs until killed.
*/
#include <stdlib.h>

volatile unsigned long sink;

void sweep(unsigned char *buf, size_t n);
void run_work(unsigned char *buf, size_t n);

__attribute__((noinline)) void sweep(unsigned char *buf, size_t n)
{
	for (size_t i = 0; i < n; i += 64)
		buf[i]++;
	sink++;
}

__attribute__((noinline)) void run_work(unsigned char *buf, size_t n)
{
	sweep(buf, n);
}

int main(int argc, char **argv)
{
	size_t n = (size_t)atol(argc > 1 ? argv[1] : "32768") * 1024;
	unsigned char *buf = calloc(1, n ? n : 1);

	if (!buf)
		return 1;
	for (;;)
		run_work(buf, n);
}
