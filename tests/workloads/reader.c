/*
** Workload that lives in the kernel: read() from /dev/zero in a loop, so its
** samples carry the syscall path. Runs for argv[1] seconds (default 60).
*/
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 20];	/* large: the copy outweighs the syscall entry and exit */

__attribute__((noinline)) void read_loop(int fd)
{
	for (int i = 0; i < 100; i++)
		if (read(fd, buf, sizeof(buf)) < 0)
			exit(1);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 60;
	time_t end = time(NULL) + (time_t)secs;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	while (time(NULL) < end)
		read_loop(fd);
	return 0;
}
