/*
** Workload without frame pointers (-O2 -fomit-frame-pointer): a known chain
** main -> level1 -> level2 -> level3 -> qsort (libc) -> cmp_burn, where the
** comparator burns CPU. Runs for argv[1] seconds (default 60).
*/
#include <stdlib.h>
#include <time.h>

#define N 4096

static int data[N];
volatile unsigned long sink;

__attribute__((noinline)) int cmp_burn(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	for (int i = 0; i < 200; i++)
		sink += (unsigned long)(x ^ i) * (unsigned long)y;
	return (x > y) - (x < y);
}

__attribute__((noinline)) void level3(void)
{
	for (int i = 0; i < N; i++)
		data[i] = rand();
	qsort(data, N, sizeof(data[0]), cmp_burn);
	sink += data[0];
}

__attribute__((noinline)) void level2(void)
{
	level3();
	sink++;
}

__attribute__((noinline)) void level1(void)
{
	level2();
	sink++;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 60;
	time_t end = time(NULL) + (time_t)secs;

	while (time(NULL) < end)
		level1();
	return 0;
}
