/* SPDX-License-Identifier: MIT */
/* Opening side files safely (see side_file.h). */
#include "side_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int sv_side_open(const char *path, unsigned long long max)
{
	/* O_NONBLOCK: opening a FIFO with no writer would wait forever. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	struct stat st;
	int e = 0;
	if (fstat(fd, &st) != 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EISDIR;
	else if ((unsigned long long)st.st_size > max)
		e = EFBIG;
	else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
		e = errno;
	if (e) {
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

bool sv_side_may_open(const char *path)
{
	struct stat st;
	return stat(path, &st) != 0 || S_ISREG(st.st_mode);
}
