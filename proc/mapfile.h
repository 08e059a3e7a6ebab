/*
** Open the file behind a mapping of another process, safely: through
** /proc/PID/map_files (deleted files, other mount namespaces), else inside
** /proc/PID/root, else the plain path; only regular files with the mapped inode.
*/
#ifndef LUATOP_PROC_MAPFILE_H
#define LUATOP_PROC_MAPFILE_H

#include "proc/procmaps.h"

/* An O_PATH fd of the regular file mapped at m in process pid (it identifies the
** file without opening it for reading), or -1 with errno. */
int mapfile__open_path(int pid, const struct procmap *m);
/* A read-only fd of the file mapped at m in process pid, or -1 with errno. */
int mapfile__open(int pid, const struct procmap *m);
/* An O_PATH fd of path resolved inside the process's root directory, or -1. */
int mapfile__open_in_root(int pid, const char *path);
/* An O_PATH fd of the process's root directory, or -1 with errno: it stays
** usable after the process exits (the directory, not the process, is held). */
int mapfile__open_root(int pid);
/* An O_PATH fd of path resolved inside root (an fd of mapfile__open_root), or -1. */
int mapfile__open_at_root(int root, const char *path);
/* Turn an O_PATH fd (consumed) into a read-only fd, only for a regular file with
** inode ino (0: any). -1 otherwise; never opens devices or FIFOs. */
int mapfile__reopen_regular(int pfd, uint64_t ino);
#endif
