/*
** What /proc says about one process or thread: the fields of its stat line
** luatop uses, its thread group, its name. One parser for each of these files,
** shared by the target checks, the process scans and the live thread list.
*/
#ifndef LUATOP_PROC_PIDINFO_H
#define LUATOP_PROC_PIDINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PIDINFO_PF_KTHREAD	0x00200000u	/* include/linux/sched.h: a kernel thread */

/* The fields of /proc/PID/stat (proc(5)) that luatop reads. */
struct pidstat {
	char state;		/* field 3: R, S, D, Z (zombie), X (dead), ... */
	pid_t ppid;		/* field 4 */
	unsigned long flags;	/* field 9: PF_* */
	uint64_t start;		/* field 22: start time in clock ticks after boot */
};

/*
** Parse a stat line. The comm (field 2) may hold anything, ')' and spaces too,
** so the fields are read from after the last ')'. 0, or -EINVAL.
*/
int pidinfo__parse_stat(const char *line, struct pidstat *st);
/* /proc/PID/stat read and parsed: 0, or -errno (ENOENT/ESRCH: gone). */
int pidinfo__stat(pid_t pid, struct pidstat *st);
/* The thread group of pid (Tgid in /proc/PID/status): 0, or -errno. */
int pidinfo__tgid(pid_t pid, pid_t *tgid);
/*
** The name (comm) of process pid, or of its thread tid when tid > 0, without
** its newline, into out (outsz > 0): 0, or -errno with out empty. Raw bytes
** the process chose: sanitize before a terminal (base/text.h).
*/
int pidinfo__comm(pid_t pid, pid_t tid, char *out, size_t outsz);

#endif
